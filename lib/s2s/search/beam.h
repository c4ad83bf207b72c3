// Batched beam search with marian-decoder's rules (docs/models.md, "Marian's beam search"):
//  - step 0 expands only the start state of each sentence;
//  - every step, each sentence keeps the top B_cur of (its live hypotheses × vocabulary) by
//    accumulated log-probability, <unk> suppressed unless allowed; ties go to the lower
//    (hypothesis, token) index;
//  - a hypothesis that picks </s> is finished and leaves the beam, which shrinks by one (no
//    refill); when hypotheses reach ceil(max_length_factor × source length) tokens, the live
//    ones are finished as they are;
//  - finished hypotheses are ranked by scoring_rules.h; the best (or the n-best list) is returned.
// Without n-best, a sentence leaves the batch as soon as its best finished hypothesis scores at
// least what any continuation of its live ones could (best_reachable_score): Marian's result,
// exactly, in fewer steps (docs/performance.md, "Beam search stops early").
// Beyond Marian, for rows the caller marks (the pieces of a line too long for the model, never
// a normal sentence): a hypothesis caught in a loop, whose last kLoopSpan tokens use at most
// kLoopTokens different tokens, is finished as it is (Hypothesis::cut_in_loop). Junk such as
// 100,000 copies of one letter otherwise costs a full-length decode per piece. The rule covers
// exact loops (a repeated n-gram of at most 8 tokens) and the near-loops that copies of random
// digits fall into ("8383783838..."); 64 tokens of real text use far more than 8 tokens.
// Decoder state moves only through DecoderState::select_rows; finished sentences leave the batch.
#pragma once

#include <cstdint>
#include <vector>

#include "s2s/model/model.h"
#include "s2s/search/constraints.h"
#include "s2s/search/hypothesis.h"
#include "s2s/search/options.h"
#include "s2s/search/request.h"
#include "s2s/search/workspace.h"

namespace s2s::search {

inline constexpr dim_t kLoopSpan = 64;
inline constexpr dim_t kLoopTokens = 8;

// Most bytes the hypotheses of one sentence may take (check_beam_size).
inline constexpr std::size_t kBeamMemory = 1000000000;  // 1 GB

// Bytes one hypothesis of a sentence may take: its key/value caches for options.max_length
// tokens (Decoder::cache_bytes_per_token), its row of logits, and its share of the selection,
// which compares up to beam-size candidates per hypothesis.
std::size_t bytes_per_hypothesis(const model::Model& model, const SearchOptions& options);
// The largest beam whose hypotheses fit in kBeamMemory for one sentence, for this model and
// options.max_length (> 0).
dim_t max_beam_size(const model::Model& model, const SearchOptions& options);
// UsageError, saying the limit and why, when options.beam_size rows per sentence exceed
// max_beam_size (sampling without n-best runs one row per sentence whatever the beam size).
// A beam past the limit would take gigabytes and steps of seconds, during which a stop request
// (Ctrl-C) waits.
void check_beam_size(const model::Model& model, const SearchOptions& options);

// True when the last kLoopSpan ids hold at most kLoopTokens different ids.
bool caught_in_loop(const std::vector<std::int32_t>& ids);

// For each row of `encoded`: its finished hypotheses, best first (all of them with n_best,
// else only the best), searched as `request` asks (search/request.h): its stop flag, loop guards,
// prefixes and constraints (request.seeds are not used).
// A row with constraints uses the constrained selection (dynamic beam allocation) and </s> only
// once every constraint is met; its result holds only the finished hypotheses that meet them
// all, and is EMPTY when none does within the length limit: the caller then falls back to the
// unconstrained search. A row's prefix is forced before its constraints apply and does not
// count toward them (it is NLLB-200's target-language token; translate refuses --glossary with
// user prefixes).
// A batch whose hypotheses would take more than kBeamMemory at its length limit is searched a
// group of sentences at a time (each group padded as the batch), which bounds a step's time.
// `workspace` holds the buffers (search/workspace.h); the overload without one allocates its own.
std::vector<std::vector<Hypothesis>> beam_search(const model::Model& model,
                                                 const model::EncoderOutput& encoded,
                                                 const SearchRequest& request,
                                                 SearchWorkspace& workspace);
std::vector<std::vector<Hypothesis>> beam_search(const model::Model& model,
                                                 const model::EncoderOutput& encoded,
                                                 const SearchRequest& request);

}  // namespace s2s::search
