// Random sampling (Marian's --output-sampling, CTranslate2's sampling_topk / sampling_topp /
// sampling_temperature), for back-translation and other data generation.
//
// Each sample is drawn token by token: the next-token log-probabilities (after the repetition
// rules, with <unk>, the model's suppressed ids and an early </s> excluded as beam search
// excludes them) are divided by the temperature, cut to the k most likely tokens (topk) or to the
// smallest set, most likely first, whose probability reaches p (topp), renormalised, and one
// token is drawn. A sample ends with </s> or at the length limit, as a beam hypothesis does; its
// token scores are the model's log-probabilities (before temperature and cuts), so they rank and
// score like a beam search's.
//
// Deterministic per sentence: the random numbers of sample j of a sentence depend only on
// seeds[b] and j (the Translator derives seeds[b] from --seed and the sentence's source ids),
// never on the batch, its neighbours, threads or workers. The log-probabilities they draw from
// do depend on the batch in their last bits (a padded batch sums in another order, and matmul
// kernels are chosen by row count), which changes a draw near a cut now and then; making every
// row's scores independent of its batch (each line alone) cost several times the time
// (docs/user-guide.md, "Sampling"). With options.n_best, options.beam_size independent samples
// per sentence, best first by normalized score; else one. `prefixes`: as beam_search's (a
// forced step draws nothing, so a sample's draws after the prefix use its stream from the start).
#pragma once

#include <cstdint>
#include <vector>

#include "s2s/model/model.h"
#include "s2s/search/hypothesis.h"
#include "s2s/search/options.h"
#include "s2s/search/request.h"
#include "s2s/search/workspace.h"

namespace s2s::search {

// `request`: request.seeds has one seed per row; its stop flag and prefixes as beam_search's;
// constraints are refused (UsageError). `workspace`: as beam_search's.
std::vector<std::vector<Hypothesis>> sample_search(const model::Model& model,
                                                   const model::EncoderOutput& encoded,
                                                   const SearchRequest& request,
                                                   SearchWorkspace& workspace);
std::vector<std::vector<Hypothesis>> sample_search(const model::Model& model,
                                                   const model::EncoderOutput& encoded,
                                                   const SearchRequest& request);

// The seed of one sentence: `seed` mixed with its source ids (splitmix64 over them).
std::uint64_t sentence_seed(std::uint64_t seed, const std::vector<std::int32_t>& source_ids);

// One draw from the cut, tempered distribution of one row of log-probabilities (`vocab` floats;
// the lowest float marks an excluded id), `u` uniform in [0, 1), with `scratch` for its lists.
// The overload without scratch (for tests) allocates its own.
std::int32_t draw_token(const float* log_probs, std::int64_t vocab, const SearchOptions& options,
                        double u, RowScratch& scratch);
std::int32_t draw_token(const float* log_probs, std::int64_t vocab, const SearchOptions& options,
                        double u);

}  // namespace s2s::search
