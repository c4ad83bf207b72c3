// Terminology glossaries (--glossary FILE, issue 19 part 5): "source term<TAB>target term" lines;
// when a source line contains a source term, the translation must contain its target term
// (search/constraints.h: constrained beam search). The rules are those of
// tools/reference/constrained_search.py (GLOSSARY MATCHING):
//  - the file is UTF-8, lines end at \n (a trailing \r is dropped); blank lines are skipped;
//    every other line has exactly one TAB, a source term with at least one word and a non-empty
//    target term (InputError "FILE:LINE: ..." otherwise);
//  - words: each ASCII punctuation character is a word of its own, the words between are the
//    runs of other characters up to ASCII whitespace (space \t \n \v \f \r, not NBSP) or
//    punctuation; so "license." and "(license" contain "license" (raw text puts punctuation next
//    to words), "non-free" is "non" "-" "free". A source term (split the same way) matches a
//    line where its words occur contiguously as whole words; every matching entry
//    counts (overlapping and nested terms too), ordered by where it first matches, then by file
//    order;
//  - ignore_case compares words after ASCII lowercasing (A-Z -> a-z). Unlike the reference
//    (Python str.lower), letters beyond ASCII are not case-folded: "École" does not match
//    "école";
//  - each target term is encoded with the target SentencePiece as a text of its own, without
//    </s>; an empty result is skipped, a repeated id sequence kept once (the first).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace s2s::pipeline {

struct GlossaryEntry {
  std::vector<std::string> source_words;
  std::string target;
  std::size_t line = 0;  // 1-based line of the file
};

class Glossary {
 public:
  Glossary() = default;
  // Parses the text of a glossary file; `name` (the file) starts error messages.
  Glossary(std::string_view text, const std::string& name);
  // Reads and parses FILE (InputError when it cannot be read).
  static Glossary load(const std::string& path);

  const std::vector<GlossaryEntry>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }

  // The entries whose source term occurs in `line`, in constraint order.
  std::vector<const GlossaryEntry*> match(std::string_view line, bool ignore_case) const;

 private:
  std::vector<GlossaryEntry> entries_;
};

// The constraints of one source line (target ids per matched term, see above) and the glossary
// lines whose target term was dropped because it encodes to an id in `drop_ids` (the target
// <unk>: such a term can never be produced).
struct LineConstraints {
  std::vector<std::vector<std::int32_t>> phrases;
  std::vector<std::size_t> dropped_lines;
};

using EncodeTarget = std::function<std::vector<std::int32_t>(const std::string&)>;

LineConstraints line_constraints(const Glossary& glossary, std::string_view line,
                                 bool ignore_case, const EncodeTarget& encode,
                                 const std::vector<std::int32_t>& drop_ids = {});

// The words of `text` as matching sees them (above): punctuation characters alone, the runs between.
std::vector<std::string> split_words(std::string_view text);

}  // namespace s2s::pipeline
