// Terminology constraints (issue 19 part 5): target token phrases a translation must contain,
// met by lexically constrained beam search with dynamic beam allocation (Post & Vilar 2018,
// "Fast Lexically Constrained Decoding with Dynamic Beam Allocation for Neural Machine
// Translation", section 3, as Sockeye's lexical_constraints.py implements it). The exact rules,
// and where they differ from Sockeye, are those of tools/reference/constrained_search.py's
// docstring; this file holds the per-hypothesis state and the bank allocation, beam.cc the
// selection that uses them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "s2s/core/shape.h"

namespace s2s::search {

// Where one hypothesis stands: which phrases it has completed, and the phrase it is inside.
struct ConstraintState {
  std::vector<char> met;   // met[j]: phrase j completed
  std::int32_t cur = -1;   // the phrase in progress, or -1
  std::int32_t prog = 0;   // its tokens matched so far (0 < prog < its length while cur >= 0)
  std::int32_t bank = 0;   // tokens of completed phrases + prog (Sockeye's num_met)
  bool term_ended = false; // the last token completed a phrase (whole words: see Constraints)
};

// The phrases of one sentence (target ids, no </s>, none empty). No phrases = no constraints.
class Constraints {
 public:
  Constraints() = default;
  // whole_words: each phrase must end where a word of the output ends: the token after it
  // starts a new word, is punctuation or </s>, never a word_continuations() token (the search
  // excludes those there). A phrase starts a word by itself: a target term tokenized as a text
  // of its own begins with a '▁' piece. Without it (the reference's goldens), phrases are
  // token sequences anywhere.
  explicit Constraints(std::vector<std::vector<std::int32_t>> phrases, bool whole_words = false);

  bool empty() const { return phrases_.empty(); }
  bool whole_words() const { return whole_words_; }
  const std::vector<std::vector<std::int32_t>>& phrases() const { return phrases_; }
  // C: the tokens of all phrases; banks are 0..C, and a hypothesis meets every constraint when
  // its bank is C.
  std::int32_t total() const { return total_; }

  ConstraintState start() const;
  // The state after `token`: continue the phrase in progress; a token that breaks it resets its
  // progress and may start another phrase (not Sockeye); otherwise start the first unmet phrase
  // (in list order) beginning with the token; any other token changes nothing.
  ConstraintState advance(const ConstraintState& state, std::int32_t token) const;
  // The tokens that make progress: the next token of the phrase in progress, else the first
  // tokens of the unmet phrases in list order, without repeats. Empty when all are met.
  std::vector<std::int32_t> allowed(const ConstraintState& state) const;

 private:
  std::vector<std::vector<std::int32_t>> phrases_;
  std::int32_t total_ = 0;
  bool whole_words_ = false;
};

// The ids whose piece continues the word before it (SentencePiece): a piece that neither starts
// with '▁' nor with punctuation. Punctuation: ASCII punctuation, the Latin-1 marks ¡ « » ¿, and
// the blocks General Punctuation (U+2010-U+205E), CJK Symbols and Punctuation (U+3000-U+303F)
// and the fullwidth ASCII punctuation (U+FF01-U+FF0F, U+FF1A-U+FF20, U+FF3B-U+FF40,
// U+FF5B-U+FF65), but not the hyphens - U+2010 U+2011, which join a compound ("Dokument-Datei"
// keeps the word the term replaces); as tools/reference/constrained_search.py's continues_word. Special pieces
// such as </s> start with '<' and so never continue a word; empty (unused) ids neither. Sorted.
std::vector<std::int32_t> word_continuations(const std::vector<std::string>& pieces);
bool continues_word(const std::string& piece);

// How many of k selections each bank 0..C gets, given the candidates per bank (counts, C + 1
// entries): k / (C + 1) each and the remainder to bank C; a bank short of candidates passes its
// unused slots down, and bank 0's unused slots go back up, to the lowest banks with candidates
// left (not Sockeye, which loses them). The sizes sum to k whenever the counts do.
std::vector<dim_t> bank_sizes(dim_t k, const std::vector<dim_t>& counts);

}  // namespace s2s::search
