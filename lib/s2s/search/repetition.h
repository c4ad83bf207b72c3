// CTranslate2's repetition rules (its decoding_utils.cc: RepetitionPenalty, NoRepeatNgram;
// options repetition_penalty and no_repeat_ngram_size), applied as CTranslate2 applies them: to
// the raw logits of the next token, before the log-softmax, given the tokens a hypothesis has
// generated (not its start state):
//  - repetition penalty R (the CTRL paper's rule, Keskar et al. 2019): each distinct token
//    already generated has its logit multiplied by R when it is negative, divided by R otherwise;
//  - no repeat n-gram N: once at least N tokens are generated, every token that would complete
//    an N-gram already present (the last N-1 tokens followed by it earlier) gets the lowest
//    float as its logit (disabled).
// Both are off by default (R = 1, N = 0), so that Marian parity holds.
#pragma once

#include <cstdint>
#include <vector>

#include "s2s/search/options.h"

namespace s2s::search {

// True when the options ask for either rule.
inline bool uses_repetition_rules(const SearchOptions& options) {
  return options.repetition_penalty != 1.0f || options.no_repeat_ngram > 0;
}

// Applies the rules to one row of logits (`vocab` floats) of a hypothesis with these ids.
void apply_repetition_rules(const std::vector<std::int32_t>& ids, const SearchOptions& options,
                            float* logits, std::int64_t vocab);

}  // namespace s2s::search
