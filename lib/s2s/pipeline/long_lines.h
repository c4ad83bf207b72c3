// Lines longer than the model may take (never dropped: docs/user-guide.md, "Guarantees"): the
// token limit and where it comes from, counting tokens of huge texts, and cutting a line into
// pieces that fit.
//
// split_to_limit: a line is cut at sentence ends (text/segment.h, ICU), then a sentence still
// too long at whitespace (as many whole words per piece as fit), then a word still too long
// between characters. Each piece's token count, as `count` gives it, is within the limit.
// truncate_to_limit keeps the longest such beginning instead.
//
// Usage:
//   TokenCounter count = [&](const std::string& s) { return codec.encode_source(s).size(); };
//   if (count(text) > 1000) pieces = split_to_limit(text, 1000, count, &splitter);
#pragma once

#include <cstddef>
#include <functional>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "s2s/text/segment.h"

namespace s2s::pipeline {

// What happens to a line (or a scored pair) longer than the token limit.
enum class LongLines { split, truncate, fail };

// The names used by --long-lines and YAML, in enum order.
inline constexpr const char* kLongLinesNames[] = {"split", "truncate", "fail"};
static_assert(std::size(kLongLinesNames) == static_cast<std::size_t>(LongLines::fail) + 1,
              "one name per LongLines");

const char* long_lines_name(LongLines mode);
std::optional<LongLines> parse_long_lines(const std::string& name);

// Tokens the model would be given for a text: everything it adds (</s>, a language label)
// included, so count("") is that overhead. Must be deterministic.
using TokenCounter = std::function<std::size_t(const std::string&)>;

// Pieces of `text` (see the top of this file), in order, trimmed, none blank. Each has at most
// `limit` tokens unless a single character alone has more (then it is a piece by itself).
// `sentences` null: the text is not cut at sentence ends first (it is one sentence).
std::vector<std::string> split_to_limit(std::string_view text, std::size_t limit,
                                        const TokenCounter& count,
                                        const text::SentenceSplitter* sentences);

// The longest beginning of `text` within `limit` tokens, cut after a whole word when at least
// one fits, else between characters of the first word (at least one character).
std::string truncate_to_limit(std::string_view text, std::size_t limit, const TokenCounter& count);

// The token count of a text too big to give SentencePiece at once (it needs a few hundred bytes
// per byte): the sum of the counts of pieces of at most 64 KB cut at whitespace (between
// characters inside a longer word), plus what the model adds once. Exact when, as with
// SentencePiece, no token crosses a space.
struct ChunkedCount {
  std::size_t tokens = 0;
  std::size_t over_at = std::string_view::npos;  // end of the piece where the sum passed `limit`
};
ChunkedCount count_in_chunks(std::string_view text, std::size_t limit, const TokenCounter& count);

// The most bytes given to one count: SentencePiece needs a few hundred bytes of memory per byte of
// text it encodes, so a 1 MB line is never encoded at once. Longer texts: count_in_chunks.
inline constexpr std::size_t kCountBytes = 64 * 1024;

// The token limit on one sentence and where it comes from, for messages.
struct TokenLimit {
  std::size_t tokens = 1000;
  bool from_positions = false;  // the model's learned position table, not --max-length

  // min(max_length, max_positions when > 0).
  static TokenLimit of(std::size_t max_length, std::size_t max_positions);
  // "the limit of 1000 (--max-length)" or "the limit of 512 (the model's position table)"
  std::string describe() const;
};

// "line 7: 1523 tokens, more than the limit of 1000 (--max-length)"; `what` may name the side,
// e.g. "source " gives "line 7: source 1523 tokens, ...".
std::string too_long_message(std::size_t line_number, std::size_t tokens, const TokenLimit& limit,
                             const std::string& what = "");

}  // namespace s2s::pipeline
