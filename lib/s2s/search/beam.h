// Batched beam search with marian-decoder's rules (model-formats.md §1.6):
//  - step 0 expands only the start state of each sentence;
//  - every step, each sentence keeps the top B_cur of (its live hypotheses × vocabulary) by
//    accumulated log-probability, <unk> suppressed unless allowed; ties go to the lower
//    (hypothesis, token) index;
//  - a hypothesis that picks </s> is finished and leaves the beam, which shrinks by one (no
//    refill); when hypotheses reach ceil(max_length_factor × source length) tokens, the live
//    ones are finished as they are;
//  - finished hypotheses are ranked by scoring_rules.h; the best (or the n-best list) is returned.
// Decoder state moves only through DecoderState::select_rows; finished sentences leave the batch.
#pragma once

#include <atomic>
#include <vector>

#include "s2s/model/model.h"
#include "s2s/search/hypothesis.h"
#include "s2s/search/options.h"

namespace s2s {

// For each row of `encoded`: its finished hypotheses, best first (all of them with n_best,
// else only the best). `stop`, when given, is checked before every decoder step: once it is
// true the search is abandoned and the result is empty (no row's result is kept).
std::vector<std::vector<Hypothesis>> beam_search(const Model& model, const EncoderOutput& encoded,
                                                 const SearchOptions& options,
                                                 const std::atomic<bool>* stop = nullptr);

}  // namespace s2s
