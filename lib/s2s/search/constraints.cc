#include "s2s/search/constraints.h"

#include <algorithm>

#include "s2s/core/error.h"

namespace s2s::search {

Constraints::Constraints(std::vector<std::vector<std::int32_t>> phrases, bool whole_words)
    : phrases_(std::move(phrases)), whole_words_(whole_words) {
  for (const auto& phrase : phrases_) {
    if (phrase.empty()) throw UsageError("empty constraint phrase");
    total_ += static_cast<std::int32_t>(phrase.size());
  }
}

ConstraintState Constraints::start() const {
  ConstraintState state;
  state.met.assign(phrases_.size(), 0);
  return state;
}

ConstraintState Constraints::advance(const ConstraintState& state, std::int32_t token) const {
  ConstraintState next = state;
  next.term_ended = false;
  if (next.cur >= 0) {
    const std::vector<std::int32_t>& phrase = phrases_[next.cur];
    if (token == phrase[next.prog]) {
      ++next.prog;
      ++next.bank;
      if (next.prog == static_cast<std::int32_t>(phrase.size())) {
        next.met[next.cur] = 1;
        next.cur = -1;
        next.prog = 0;
        next.term_ended = true;
      }
      return next;
    }
    next.bank -= next.prog;  // left midway: its matched tokens no longer count
    next.cur = -1;
    next.prog = 0;
  }
  for (std::size_t j = 0; j < phrases_.size(); ++j) {
    if (next.met[j] || phrases_[j][0] != token) continue;
    ++next.bank;
    if (phrases_[j].size() == 1) {
      next.met[j] = 1;
      next.term_ended = true;
    } else {
      next.cur = static_cast<std::int32_t>(j);
      next.prog = 1;
    }
    break;
  }
  return next;
}

std::vector<std::int32_t> Constraints::allowed(const ConstraintState& state) const {
  if (state.cur >= 0) return {phrases_[state.cur][state.prog]};
  std::vector<std::int32_t> out;
  for (std::size_t j = 0; j < phrases_.size(); ++j)
    if (!state.met[j] && std::find(out.begin(), out.end(), phrases_[j][0]) == out.end())
      out.push_back(phrases_[j][0]);
  return out;
}

std::vector<dim_t> bank_sizes(dim_t k, const std::vector<dim_t>& counts) {
  const dim_t banks = static_cast<dim_t>(counts.size()), top = banks - 1;
  std::vector<dim_t> size(banks, k / banks);
  size[top] += k % banks;
  for (dim_t b = top; b > 0; --b) {
    if (size[b] > counts[b]) {
      size[b - 1] += size[b] - counts[b];
      size[b] = counts[b];
    }
  }
  dim_t excess = std::max<dim_t>(0, size[0] - counts[0]);
  size[0] -= excess;
  for (dim_t b = 1; b < banks && excess > 0; ++b) {
    const dim_t x = std::min(excess, counts[b] - size[b]);
    size[b] += x;
    excess -= x;
  }
  return size;
}

namespace {

// The first code point of UTF-8 text (0 for none; an invalid lead byte as itself).
char32_t first_code_point(const std::string& text) {
  if (text.empty()) return 0;
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(0);
  const std::size_t length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
  if (length == 1 || text.size() < length) return lead;
  char32_t code = lead & (0x3F >> (length - 1));
  for (std::size_t i = 1; i < length; ++i) code = (code << 6) | (byte(i) & 0x3F);
  return code;
}

// Ends a word. Not the hyphens (- U+2010 U+2011): they join a compound ("Dokument-Datei").
bool ends_word(char32_t c) {
  const auto in = [c](char32_t first, char32_t last) { return c >= first && c <= last; };
  if (c == 0x2D || c == 0x2010 || c == 0x2011) return false;
  return in(0x21, 0x2F) || in(0x3A, 0x40) || in(0x5B, 0x60) || in(0x7B, 0x7E) || c == 0xA1 ||
         c == 0xAB || c == 0xBB || c == 0xBF || in(0x2010, 0x205E) || in(0x3000, 0x303F) ||
         in(0xFF01, 0xFF0F) || in(0xFF1A, 0xFF20) || in(0xFF3B, 0xFF40) || in(0xFF5B, 0xFF65);
}

const std::string kWordMark = "\xe2\x96\x81";  // '▁'

}  // namespace

bool continues_word(const std::string& piece) {
  return !piece.empty() && piece.compare(0, kWordMark.size(), kWordMark) != 0 &&
         !ends_word(first_code_point(piece));
}

std::vector<std::int32_t> word_continuations(const std::vector<std::string>& pieces) {
  std::vector<std::int32_t> ids;
  for (std::size_t id = 0; id < pieces.size(); ++id)
    if (continues_word(pieces[id])) ids.push_back(static_cast<std::int32_t>(id));
  return ids;
}

}  // namespace s2s::search
