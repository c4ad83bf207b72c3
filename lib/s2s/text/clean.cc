#include "s2s/text/clean.h"

namespace s2s::text {
namespace {

const char kReplacement[] = "\xEF\xBF\xBD";  // U+FFFD

// Length of the well-formed UTF-8 sequence at s[i] (Unicode Table 3-7), or 0 when it is not
// well formed; then `bad` is the length of its maximal subpart (at least 1), which becomes one
// U+FFFD.
std::size_t sequence_at(std::string_view s, std::size_t i, std::size_t& bad) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b = byte(i);
  if (b < 0x80) return 1;
  std::size_t need = 0;            // continuation bytes
  unsigned char lo = 0x80, hi = 0xBF;  // range of the first continuation byte
  if (b >= 0xC2 && b <= 0xDF) {
    need = 1;
  } else if (b == 0xE0) {
    need = 2, lo = 0xA0;
  } else if ((b >= 0xE1 && b <= 0xEC) || b == 0xEE || b == 0xEF) {
    need = 2;
  } else if (b == 0xED) {
    need = 2, hi = 0x9F;  // ED A0..BF would be a surrogate
  } else if (b == 0xF0) {
    need = 3, lo = 0x90;
  } else if (b >= 0xF1 && b <= 0xF3) {
    need = 3;
  } else if (b == 0xF4) {
    need = 3, hi = 0x8F;
  } else {
    bad = 1;  // 80..C1, F5..FF never start a sequence
    return 0;
  }
  std::size_t k = 1;
  for (; k <= need && i + k < s.size(); ++k) {
    const unsigned char c = byte(i + k);
    if (c < (k == 1 ? lo : 0x80) || c > (k == 1 ? hi : 0xBF)) break;
  }
  if (k == need + 1) return need + 1;
  bad = k;
  return 0;
}

}  // namespace

CleanReport clean_text(std::string_view in, std::string& out) {
  CleanReport report;
  out.clear();
  out.reserve(in.size());
  for (std::size_t i = 0; i < in.size();) {
    std::size_t bad = 0;
    const std::size_t n = sequence_at(in, i, bad);
    if (n == 0) {
      out += kReplacement;
      ++report.invalid_utf8;
      i += bad;
      continue;
    }
    const unsigned char b = static_cast<unsigned char>(in[i]);
    const bool c0 = n == 1 && ((b < 0x20 && b != '\t') || b == 0x7F);
    const bool c1 = n == 2 && b == 0xC2 && static_cast<unsigned char>(in[i + 1]) <= 0x9F;
    if (c0 || c1) {
      out += ' ';
      ++report.controls;
    } else {
      out.append(in.data() + i, n);
    }
    i += n;
  }
  return report;
}

bool is_valid_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    std::size_t bad = 0;
    const std::size_t n = sequence_at(text, i, bad);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::size_t repair_utf8(std::string& text) {
  if (is_valid_utf8(text)) return 0;
  std::string out;
  out.reserve(text.size() + 16);
  std::size_t replaced = 0;
  for (std::size_t i = 0; i < text.size();) {
    std::size_t bad = 0;
    const std::size_t n = sequence_at(text, i, bad);
    if (n == 0) {
      out += kReplacement;
      ++replaced;
      i += bad;
    } else {
      out.append(text, i, n);
      i += n;
    }
  }
  text = std::move(out);
  return replaced;
}

bool strip_bom(std::string& line) {
  if (line.compare(0, 3, "\xEF\xBB\xBF") != 0) return false;
  line.erase(0, 3);
  return true;
}

std::string invalid_utf8_message(std::size_t line_number, std::size_t sequences) {
  return "line " + std::to_string(line_number) + ": invalid UTF-8 replaced with U+FFFD (" +
         std::to_string(sequences) + (sequences == 1 ? " sequence)" : " sequences)");
}

}  // namespace s2s::text
