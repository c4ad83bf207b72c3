// Sentences of a line, by ICU's sentence BreakIterator (Unicode UAX #29) with the abbreviation
// suppressions of the source language (CLDR's "standard" list: "Mr. Smith", "e.g. this" are not
// cut), plus a few title abbreviations CLDR's English list lacks (kExtraSuppressions in
// segment.cc). docs/real-text.md says what s2s does to a line and why.
//
// Usage:
//   const SentenceSplitter splitter("en");
//   for (const Sentence& s : splitter.split(line)) use(line.substr(s.begin, s.end - s.begin));
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace s2s::text {

// A sentence as byte offsets into the text it came from, surrounding whitespace left out; the
// bytes between two sentences are whitespace only (or nothing, after '。').
struct Sentence {
  std::size_t begin = 0;
  std::size_t end = 0;
};

class SentenceSplitter {
 public:
  // `language`: an ISO 639 code ("en", "de", ...) whose abbreviations ICU knows, or "" for the
  // rules alone. A language ICU has no data for gets the rules alone, as "" does.
  explicit SentenceSplitter(const std::string& language = "en");
  ~SentenceSplitter();
  SentenceSplitter(const SentenceSplitter&) = delete;
  SentenceSplitter& operator=(const SentenceSplitter&) = delete;

  // The sentences of `text` (valid UTF-8), in order, none blank; one for a text without a
  // sentence end. Safe to call from several threads at once.
  std::vector<Sentence> split(std::string_view text) const;

  const std::string& language() const { return language_; }

 private:
  struct Icu;
  std::string language_;
  std::unique_ptr<Icu> icu_;
};

// The whitespace characters segmentation trims: space, tab, and Unicode spaces (U+00A0, U+3000, ...).
// Returns the length in bytes of the whitespace character at text[pos], or 0.
std::size_t whitespace_at(std::string_view text, std::size_t pos);

}  // namespace s2s::text
