#include "s2s/pipeline/long_lines.h"

#include <algorithm>

namespace s2s::pipeline {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t'; }

std::string_view trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && is_space(s[b])) ++b;
  while (e > b && is_space(s[e - 1])) --e;
  return s.substr(b, e - b);
}

std::vector<std::string_view> words_of(std::string_view s) {
  std::vector<std::string_view> words;
  for (std::size_t i = 0; i < s.size();) {
    while (i < s.size() && is_space(s[i])) ++i;
    const std::size_t b = i;
    while (i < s.size() && !is_space(s[i])) ++i;
    if (i > b) words.push_back(s.substr(b, i - b));
  }
  return words;
}

// Start of the character holding byte `pos` (backs over continuation bytes).
std::size_t char_start(std::string_view s, std::size_t pos) {
  while (pos > 0 && pos < s.size() && (static_cast<unsigned char>(s[pos]) & 0xC0) == 0x80) --pos;
  return pos;
}

// End of the first character of s.
std::size_t first_char_end(std::string_view s) {
  std::size_t pos = 1;
  while (pos < s.size() && (static_cast<unsigned char>(s[pos]) & 0xC0) == 0x80) ++pos;
  return std::min(pos, s.size());
}

// Cuts texts to a token limit by asking `count` about candidate pieces.
class Fitter {
 public:
  Fitter(std::size_t limit, const TokenCounter& count)
      : count_(count), limit_(limit), base_(count(std::string())) {
    budget_ = limit_ > base_ ? limit_ - base_ : 0;
  }

  // Appends pieces of `s` within the limit to `out` (see split_to_limit).
  void fit(std::string_view s, std::vector<std::string>& out) const {
    s = trim(s);
    if (s.empty()) return;
    // A text too big to count at once is packed word by word, which gives it whole if it fits.
    if (s.size() <= kCountBytes && tokens(s) <= limit_) {
      out.emplace_back(s);
      return;
    }
    const std::vector<std::string_view> words = words_of(s);
    if (words.size() == 1) {
      split_word(words[0], out);
      return;
    }
    // As many whole words per piece as fit, counting each word alone (SentencePiece pieces do
    // not cross spaces); a piece whose count is more than the sum is cut again in halves.
    const char* begin = nullptr;
    const char* end = nullptr;
    std::size_t used = 0, n = 0;
    const auto flush = [&]() {
      if (n == 0) return;
      const std::string_view piece(begin, static_cast<std::size_t>(end - begin));
      if (n > 1 && tokens(piece) > limit_) {
        const std::vector<std::string_view> w = words_of(piece);
        const std::string_view middle = w[w.size() / 2];
        fit(std::string_view(begin, static_cast<std::size_t>(middle.data() - begin)), out);
        fit(std::string_view(middle.data(), static_cast<std::size_t>(end - middle.data())), out);
      } else {
        out.emplace_back(piece);
      }
      used = n = 0;
    };
    for (std::string_view w : words) {
      const std::size_t t = word_tokens(w);
      if (t > budget_) {
        flush();
        split_word(w, out);
        continue;
      }
      if (used + t > budget_) flush();
      if (n == 0) begin = w.data();
      end = w.data() + w.size();
      used += t;
      ++n;
    }
    flush();
  }

  // Bytes of the longest beginning of s within the limit (see truncate_to_limit).
  std::size_t prefix(std::string_view s) const {
    if (s.size() <= kCountBytes && tokens(s) <= limit_) return s.size();
    const std::vector<std::string_view> words = words_of(s);
    if (words.empty()) return s.size();
    std::vector<std::size_t> ends;  // end offset after each whole word kept
    std::size_t used = 0;
    for (std::string_view w : words) {
      const std::size_t t = word_tokens(w);
      if (used + t > budget_) break;
      used += t;
      ends.push_back(static_cast<std::size_t>(w.data() + w.size() - s.data()));
    }
    // Word counts add up with SentencePiece; drop words while the whole is still too long.
    while (!ends.empty() && tokens(s.substr(0, ends.back())) > limit_) ends.pop_back();
    if (!ends.empty()) return ends.back();
    const std::string_view first = words[0];
    const std::size_t offset = static_cast<std::size_t>(first.data() - s.data());
    return offset + chunk(first, sampled_bytes_per_token(first));
  }

 private:
  std::size_t tokens(std::string_view s) const { return count_(std::string(s)); }
  // Tokens of w alone, without what the model adds; a word too big to count at once is taken
  // to be over the budget (it is: SentencePiece pieces are at most 16 characters by default).
  std::size_t word_tokens(std::string_view w) const {
    if (w.size() > kCountBytes) return budget_ + 1;
    const std::size_t t = tokens(w);
    return t > base_ ? t - base_ : 0;
  }
  // Average bytes per token of w, from its first few kilobytes.
  double sampled_bytes_per_token(std::string_view w) const {
    const std::string_view sample = w.substr(0, std::max(char_start(w, 4096), first_char_end(w)));
    const std::size_t t = word_tokens(sample);
    return static_cast<double>(sample.size()) / static_cast<double>(std::max<std::size_t>(t, 1));
  }

  // Bytes of a beginning of w (whole characters, at least one) within the limit, found from an
  // estimate: shrunk while over the budget, then grown into what is left of it. A few counts per
  // piece, never a search over every length.
  std::size_t chunk(std::string_view w, double bytes_per_token) const {
    const std::size_t one = first_char_end(w);
    const auto at_least_one = [&](std::size_t pos) { return std::max(char_start(w, pos), one); };
    std::size_t take = at_least_one(std::min(
        {w.size(), kCountBytes,
         static_cast<std::size_t>(static_cast<double>(budget_) * bytes_per_token * 0.9)}));
    std::size_t t = word_tokens(w.substr(0, take));
    while (t > budget_ && take > one) {
      std::size_t smaller = at_least_one(static_cast<std::size_t>(
          static_cast<double>(take) * static_cast<double>(budget_) / static_cast<double>(t) * 0.9));
      if (smaller >= take) smaller = at_least_one(take - 1);
      take = smaller;
      t = word_tokens(w.substr(0, take));
    }
    for (int tries = 0; tries < 3 && t < budget_ && take < w.size() && take < kCountBytes; ++tries) {
      const std::size_t grow = static_cast<std::size_t>(static_cast<double>(budget_ - t) *
                                                        bytes_per_token * 0.9);
      std::size_t bigger = char_start(w, std::min(w.size(), take + grow));
      if (bigger <= take) bigger = take + first_char_end(w.substr(take));
      const std::size_t tb = word_tokens(w.substr(0, bigger));
      if (tb > budget_) break;
      take = bigger;
      t = tb;
    }
    return take;
  }

  void split_word(std::string_view w, std::vector<std::string>& out) const {
    if (budget_ == 0) {  // nothing fits next to what the model adds: the caller must cut ids
      out.emplace_back(w);
      return;
    }
    const double bpt = sampled_bytes_per_token(w);
    bool fits = word_tokens(w) <= budget_;
    while (!w.empty()) {
      const std::size_t take = fits ? w.size() : chunk(w, bpt);
      out.emplace_back(w.substr(0, take));
      w.remove_prefix(take);
      // Count what is left only when it may fit: counting a long rest again for every piece
      // would cost time quadratic in the word's length.
      fits = !w.empty() &&
             static_cast<double>(w.size()) <= 1.5 * bpt * static_cast<double>(budget_) &&
             word_tokens(w) <= budget_;
    }
  }

  const TokenCounter& count_;
  std::size_t limit_;
  std::size_t base_;
  std::size_t budget_;
};

}  // namespace

const char* long_lines_name(LongLines mode) {
  return kLongLinesNames[static_cast<std::size_t>(mode)];
}

std::optional<LongLines> parse_long_lines(const std::string& name) {
  for (std::size_t i = 0; i < std::size(kLongLinesNames); ++i)
    if (name == kLongLinesNames[i]) return static_cast<LongLines>(i);
  return std::nullopt;
}

std::vector<std::string> split_to_limit(std::string_view text, std::size_t limit,
                                        const TokenCounter& count,
                                        const text::SentenceSplitter* sentences) {
  const Fitter fitter(limit, count);
  std::vector<std::string> pieces;
  if (sentences == nullptr) {
    fitter.fit(text, pieces);
    return pieces;
  }
  for (const text::Sentence& s : sentences->split(text))
    fitter.fit(text.substr(s.begin, s.end - s.begin), pieces);
  return pieces;
}

std::string truncate_to_limit(std::string_view text, std::size_t limit,
                              const TokenCounter& count) {
  return std::string(text.substr(0, Fitter(limit, count).prefix(text)));
}

ChunkedCount count_in_chunks(std::string_view text, std::size_t limit,
                             const TokenCounter& count) {
  const std::size_t base = count(std::string());
  ChunkedCount result;
  std::size_t tokens = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t end = std::min(text.size(), pos + kCountBytes);
    if (end < text.size()) {
      std::size_t space = end;
      while (space > pos && !is_space(text[space])) --space;
      end = space > pos ? space : std::max(char_start(text, end), pos + first_char_end(text.substr(pos)));
    }
    const std::size_t t = count(std::string(text.substr(pos, end - pos)));
    tokens += t > base ? t - base : 0;
    if (tokens + base > limit && result.over_at == std::string_view::npos) result.over_at = end;
    pos = end;
  }
  result.tokens = tokens + base;
  return result;
}

TokenLimit TokenLimit::of(std::size_t max_length, std::size_t max_positions) {
  TokenLimit limit{max_length, false};
  if (max_positions > 0 && max_positions < max_length) limit = {max_positions, true};
  return limit;
}

std::string TokenLimit::describe() const {
  return "the limit of " + std::to_string(tokens) +
         (from_positions ? " (the model's position table)" : " (--max-length)");
}

std::string too_long_message(std::size_t line_number, std::size_t tokens, const TokenLimit& limit,
                             const std::string& what) {
  return "line " + std::to_string(line_number) + ": " + what + std::to_string(tokens) +
         " tokens, more than " + limit.describe();
}
}  // namespace s2s::pipeline
