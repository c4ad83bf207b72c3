#include "s2s/search/beam.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "s2s/ops/topk.h"
#include "s2s/search/constraints.h"
#include "s2s/search/forbidden_ids.h"
#include "s2s/search/scoring_rules.h"
#include "s2s/search/step_loop.h"

namespace s2s::search {
namespace {

// TopKList keeps its list by insertion, O(k) per entry that gets in: fine for the usual beams,
// but at a beam of hundreds the per-row lists made a step cost seconds. Wider beams select
// instead: O(V + k log k) per row, the same list (score descending, ties to the lower id; a NaN
// counts as the lowest score).
constexpr dim_t kInsertionTopK = 64;

void best_of_row_wide(const float* lp, dim_t vocab, float score,
                      const std::vector<std::int32_t>& excluded, dim_t k, float* values,
                      std::int32_t* ids, std::vector<std::pair<float, std::int32_t>>& all) {
  const float lowest = std::numeric_limits<float>::lowest();
  all.resize(static_cast<std::size_t>(vocab));
  auto skip = excluded.begin();
  for (std::int32_t v = 0; v < vocab; ++v) {
    while (*skip < v) ++skip;  // the list ends with the vocabulary size
    const float sum = lp[v] + score;
    all[v] = {*skip == v || std::isnan(sum) ? lowest : sum, v};
  }
  const auto better = [](const std::pair<float, std::int32_t>& a,
                         const std::pair<float, std::int32_t>& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  };
  std::nth_element(all.begin(), all.begin() + (k - 1), all.end(), better);
  std::sort(all.begin(), all.begin() + k, better);
  for (dim_t i = 0; i < k; ++i) {
    values[i] = all[i].first;
    ids[i] = all[i].second;
  }
}

// The best k of  lp[v] + score  (Marian accumulates in float32 in this order) into values/ids,
// the ids in `excluded` (sorted, ended by the vocabulary size) scored as the lowest float.
void best_of_row(const float* lp, dim_t vocab, float score,
                 const std::vector<std::int32_t>& excluded, dim_t k, float* values,
                 std::int32_t* ids, RowScratch& scratch) {
  if (k > kInsertionTopK)
    return best_of_row_wide(lp, vocab, score, excluded, k, values, ids, scratch.scored);
  const float lowest = std::numeric_limits<float>::lowest();
  ops::TopKList top(values, ids, k);
  std::int32_t v = 0;
  // Runs of allowed ids between excluded ones.
  for (std::int32_t stop : excluded) {
    const std::int32_t end = std::min<std::int32_t>(stop, vocab);
    if (v < end) top.offer_run(lp + v, end - v, score, v);
    v = std::max(v, end);
    if (v < vocab && v == stop) top.offer(lowest, v++);
  }
}

// The best k of one row, as best_of_row gives them, with the columns turned into tokens.
void best_tokens_of_row(const SearchState& s, const float* lp, float score,
                        const std::vector<std::int32_t>& excluded, dim_t k, float* values,
                        std::int32_t* ids, RowScratch& scratch) {
  best_of_row(lp, s.columns.size(), score, excluded, k, values, ids, scratch);
  for (dim_t j = 0; j < k; ++j) ids[j] = s.columns.token(ids[j]);
}

// For each live row r, the best k of  log_probs[r, c] + score of r: what a top-k of the whole
// score matrix gives, in one pass over log_probs, without writing that matrix. Rows on a forced
// step (search/prefix.h) are skipped; at the first step after a prefix, </s> stays a candidate
// only if it is the best one.
void best_extensions(SearchState& s, dim_t k) {
  SearchWorkspace& ws = s.workspace;
  const std::vector<Live>& live = s.live;
  const dim_t rows = static_cast<dim_t>(live.size()), columns = ws.log_probs.dim(1);
  const std::int32_t eos = s.model.config().eos_id;
  ws.top_values.resize({rows, k});
  ws.top_indices.resize({rows, k}, DataType::i32);
  prepare_row_scratch(ws);
#pragma omp parallel for schedule(static) if (rows > 1)
  for (dim_t r = 0; r < rows; ++r) {
    if (s.stopped()) continue;  // a wide beam's rows take a while: the caller returns at once
    const Live& l = live[r];
    const SentenceBeam& beam = s.beams[l.sentence];
    const auto length = static_cast<std::size_t>(l.length);
    const std::size_t forced = beam.prefix_length();
    if (length < forced) continue;
    const float* lp = ws.log_probs.data<float>() + r * columns;
    float* row_values = ws.top_values.data<float>() + r * k;
    std::int32_t* row_ids = ws.top_indices.data<std::int32_t>() + r * k;
    RowScratch& scratch = row_scratch(ws);
    best_tokens_of_row(s, lp, l.score, beam.excluded(l, s.too_short(l), s.forbidden), k, row_values,
                       row_ids, scratch);
    if (forced > 0 && length == forced && row_ids[0] != eos &&
        std::find(row_ids, row_ids + k, eos) != row_ids + k)
      best_tokens_of_row(s, lp, l.score, s.forbidden.too_short, k, row_values, row_ids, scratch);
  }
}

// Higher score first; ties to the lower (row, token), i.e. the lower flat index.
bool better(const Candidate& a, const Candidate& b) {
  if (a.score != b.score) return a.score > b.score;
  return a.live != b.live ? a.live < b.live : a.token < b.token;
}

// The best `width` extensions of one sentence whose live rows are [first, last). Each row's own
// top-k (values/indices) holds every candidate that can win, so only those are compared.
std::vector<Candidate> select(const Tensor& values, const Tensor& indices, dim_t first,
                              dim_t last, dim_t width) {
  const dim_t k = values.dim(1);
  std::vector<Candidate> candidates;
  for (dim_t r = first; r < last; ++r)
    for (dim_t j = 0; j < k; ++j)
      candidates.push_back({values.data<float>()[r * k + j], static_cast<std::int32_t>(r),
                            indices.data<std::int32_t>()[r * k + j]});
  const dim_t keep = std::min<dim_t>(width, static_cast<dim_t>(candidates.size()));
  std::partial_sort(candidates.begin(), candidates.begin() + keep, candidates.end(), better);
  candidates.resize(keep);
  return candidates;
}

// The candidates of the constrained selection of one sentence whose live rows are
// [first, last), best first, each once: the sentence's best `width` extensions, each row's best
// token, and each row's allowed constraint tokens that are columns and not excluded.
std::vector<Candidate> constrained_candidates(const SearchState& s, const SentenceBeam& beam,
                                              dim_t first, dim_t last) {
  const Tensor &log_probs = s.workspace.log_probs, &values = s.workspace.top_values,
               &indices = s.workspace.top_indices;
  const dim_t k = values.dim(1), columns = log_probs.dim(1);
  std::vector<Candidate> candidates = select(values, indices, first, last, beam.width);  // (a)
  for (dim_t r = first; r < last; ++r) {
    const Live& l = s.live[r];
    const std::int32_t row = static_cast<std::int32_t>(r);
    candidates.push_back({values.data<float>()[r * k], row, indices.data<std::int32_t>()[r * k]});
    const std::vector<std::int32_t>& excluded = beam.excluded(l, false, s.forbidden);
    for (std::int32_t token : beam.constraints->allowed(l.constraint)) {
      const std::int32_t column = s.columns.column(token);
      if (column >= 0 && !std::binary_search(excluded.begin(), excluded.end(), column))
        candidates.push_back({log_probs.data<float>()[r * columns + column] + l.score, row, token});
    }
  }
  std::sort(candidates.begin(), candidates.end(), better);
  candidates.erase(std::unique(candidates.begin(), candidates.end(),
                               [](const Candidate& a, const Candidate& b) {
                                 return a.live == b.live && a.token == b.token;
                               }),
                   candidates.end());
  return candidates;
}

// The constrained selection of one sentence whose live rows are [first, last) (Post & Vilar's
// dynamic beam allocation; the steps of tools/reference/constrained_search.py, ONE STEP 2-5):
// the candidates (constrained_candidates) are grouped in banks by the constraint tokens met
// after them, and taken best first while their bank has a slot left. `states` receives the
// constraint state after each chosen candidate.
std::vector<Candidate> select_constrained(const SearchState& s, const SentenceBeam& beam,
                                          dim_t first, dim_t last,
                                          std::vector<ConstraintState>& states) {
  const Constraints& constraints = *beam.constraints;
  const std::vector<Candidate> candidates = constrained_candidates(s, beam, first, last);
  std::vector<ConstraintState> after;
  std::vector<dim_t> counts(constraints.total() + 1, 0);
  for (const Candidate& c : candidates) {
    after.push_back(constraints.advance(s.live[c.live].constraint, c.token));
    ++counts[after.back().bank];
  }
  std::vector<dim_t> left = bank_sizes(beam.width, counts);
  std::vector<Candidate> chosen;
  states.clear();
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    dim_t& slots = left[after[i].bank];
    if (slots == 0) continue;
    --slots;
    chosen.push_back(candidates[i]);
    states.push_back(std::move(after[i]));
  }
  return chosen;
}

// Constraints the search can take: target ids of the vocabulary other than </s>.
void check_constraints(const Constraints& constraints, const model::Model& model) {
  for (const auto& phrase : constraints.phrases())
    for (std::int32_t id : phrase)
      if (id < 0 || id >= model.config().target_vocab_size || id == model.config().eos_id)
        throw UsageError("constraint token " + std::to_string(id) + " is not a target token");
}

// The columns a hypothesis may not take right after a whole-word term: `forbidden` (ForbiddenIds'
// form) and those of the target tokens that continue a word.
std::vector<std::int32_t> with_word_continuations(const std::vector<std::int32_t>& forbidden,
                                                  const SearchState& s) {
  const text::Vocabulary& vocab = s.model.codec().target_vocab();
  std::vector<std::string> pieces;
  const dim_t ids_used = std::min<dim_t>(vocab.size(), s.model.config().target_vocab_size);
  for (dim_t id = 0; id < ids_used; ++id) pieces.push_back(vocab.piece(static_cast<int>(id)));
  std::vector<std::int32_t> ids = s.columns.columns_of(word_continuations(pieces));
  ids.insert(ids.end(), forbidden.begin(), forbidden.end());
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

// "1.6 MB", "1.0 GB" (decimal units).
std::string size_text(double bytes) {
  char text[32];
  if (bytes >= 1e9)
    std::snprintf(text, sizeof text, "%.1f GB", bytes / 1e9);
  else
    std::snprintf(text, sizeof text, "%.1f MB", bytes / 1e6);
  return text;
}

// The rows [first, first + n) of a per-sentence list (a shorter list: those it has).
template <typename T>
std::vector<T> part_of(const std::vector<T>& all, dim_t first, dim_t n) {
  const auto size = static_cast<dim_t>(all.size());
  return {all.begin() + std::min(first, size), all.begin() + std::min(first + n, size)};
}

// How many sentences of this batch to search at once: as many as keep their hypotheses within
// kBeamMemory at the batch's length limit. A batch of wide beams (32 sentences x beam 600 are
// 19,000 rows) would otherwise take seconds per step, all of it before a stop request is seen.
dim_t sentences_at_once(const model::Model& model, const model::EncoderOutput& encoded,
                        const SearchOptions& options) {
  SearchOptions probe = options;
  probe.max_length = 1;
  for (std::int32_t length : encoded.lengths)
    probe.max_length = std::max(probe.max_length, max_target_length(length, options));
  const std::size_t rows = kBeamMemory / bytes_per_hypothesis(model, probe);
  return std::max<dim_t>(1, static_cast<dim_t>(rows) / std::max<dim_t>(options.beam_size, 1));
}

// Rows [first, first + n) of a batch's encoder output: a view, padded as the whole batch.
model::EncoderOutput rows_of(const model::EncoderOutput& encoded, dim_t first, dim_t n) {
  model::EncoderOutput part;
  const DataType dtype = encoded.memory.dtype();
  const dim_t sentence_size = encoded.memory.dim(1) * encoded.memory.dim(2);
  auto* start = static_cast<char*>(const_cast<void*>(encoded.memory.raw())) +
                static_cast<std::size_t>(first * sentence_size) * dtype_size(dtype);
  part.memory = Tensor::wrap(start, {n, encoded.memory.dim(1), encoded.memory.dim(2)}, dtype);
  part.lengths = part_of(encoded.lengths, first, n);
  return part;
}

// The request for rows [first, first + n) of a batch.
SearchRequest rows_of(const SearchRequest& request, dim_t first, dim_t n) {
  SearchRequest part(request.options);
  part.stop = request.stop;
  part.guard_loops = part_of(request.guard_loops, first, n);
  part.prefixes = part_of(request.prefixes, first, n);
  part.constraints = part_of(request.constraints, first, n);
  part.seeds = part_of(request.seeds, first, n);
  return part;
}

std::vector<std::vector<Hypothesis>> beam_search_in_groups(const model::Model& model,
                                                           const model::EncoderOutput& encoded,
                                                           const SearchRequest& request,
                                                           SearchWorkspace& workspace, dim_t group) {
  const dim_t batch = static_cast<dim_t>(encoded.lengths.size());
  std::vector<std::vector<Hypothesis>> results;
  for (dim_t first = 0; first < batch; first += group) {
    const dim_t n = std::min(group, batch - first);
    auto found = beam_search(model, rows_of(encoded, first, n), rows_of(request, first, n),
                             workspace);
    if (static_cast<dim_t>(found.size()) != n) return {};  // stopped
    for (auto& sentence : found) results.push_back(std::move(sentence));
  }
  return results;
}

// Beam search's part of a step: each row's best extensions, then each sentence's selection.
class BeamSelection final : public Strategy {
 public:
  void score_rows(SearchState& s) override {
    dim_t k = 1;
    for (const SentenceBeam& beam : s.beams) k = std::max(k, beam.width);
    best_extensions(s, std::min(k, s.workspace.log_probs.dim(1)));
  }
  std::vector<Candidate> choose(const SearchState& s, std::size_t first, std::size_t last,
                                std::vector<ConstraintState>& states) override {
    const SentenceBeam& beam = s.beams[s.live[first].sentence];
    const auto from = static_cast<dim_t>(first), to = static_cast<dim_t>(last);
    return beam.constraints != nullptr
               ? select_constrained(s, beam, from, to, states)
               : select(s.workspace.top_values, s.workspace.top_indices, from, to, beam.width);
  }
};

// The sentences' constraints wired into the search (checked against the model first).
void add_constraints(SearchState& s, std::vector<std::int32_t>& after_term,
                     std::vector<std::int32_t>& after_term_too_short) {
  for (std::size_t b = 0; b < s.beams.size(); ++b) {
    SentenceBeam& beam = s.beams[b];
    beam.constraints = s.request.constraints_of(b);
    if (beam.constraints == nullptr) continue;
    check_constraints(*beam.constraints, s.model);
    s.live[b].constraint = beam.constraints->start();
    if (!beam.constraints->whole_words()) continue;
    if (after_term.empty()) {
      after_term = with_word_continuations(s.forbidden.always, s);
      after_term_too_short = with_word_continuations(s.forbidden.too_short, s);
    }
    beam.after_term = &after_term;
    beam.after_term_too_short = &after_term_too_short;
  }
}

}  // namespace

std::size_t bytes_per_hypothesis(const model::Model& model, const SearchOptions& options) {
  const auto steps = static_cast<std::size_t>(std::max<dim_t>(options.max_length, 1));
  const auto beam = static_cast<std::size_t>(std::max<dim_t>(options.beam_size, 1));
  const auto vocab = static_cast<std::size_t>(model.config().target_vocab_size);
  // Per token: the caches and the history table's entry. The logits row, and the selection's
  // top-k values and ids (8 bytes each) and candidates (12 bytes each).
  return steps * (model.decoder().cache_bytes_per_token() + sizeof(std::int32_t)) +
         vocab * sizeof(float) + beam * 20;
}

dim_t max_beam_size(const model::Model& model, const SearchOptions& options) {
  SearchOptions probe = options;
  dim_t low = 1, high = std::max<dim_t>(options.beam_size, 1);
  const auto fits = [&](dim_t beam) {
    probe.beam_size = beam;
    return static_cast<std::size_t>(beam) * bytes_per_hypothesis(model, probe) <= kBeamMemory;
  };
  while (fits(high)) high *= 2;  // then the limit is in [low, high)
  while (high - low > 1) {
    const dim_t mid = low + (high - low) / 2;
    (fits(mid) ? low : high) = mid;
  }
  return low;
}

void check_beam_size(const model::Model& model, const SearchOptions& options) {
  if (options.sampling.kind != Sampling::Kind::off && !options.n_best) return;
  const dim_t limit = max_beam_size(model, options);
  if (options.beam_size <= limit) return;
  const model::Decoder& decoder = model.decoder();
  throw UsageError(
      "--beam-size " + std::to_string(options.beam_size) + " is more than this model can take: " +
      "each hypothesis of a sentence keeps " + size_text(bytes_per_hypothesis(model, options)) +
      " (its attention keys and values, " + std::to_string(decoder.layer_count()) +
      " decoder layers x 2 x " + std::to_string(decoder.model_dim()) + " numbers per token, for " +
      "up to --max-length " + std::to_string(options.max_length) + " tokens, and its " +
      std::to_string(model.config().target_vocab_size) + " scores per step), and one sentence's " +
      "beam may take at most " + size_text(kBeamMemory) + ": the largest beam is " +
      std::to_string(limit) + " (more with a smaller --max-length)");
}

bool caught_in_loop(const std::vector<std::int32_t>& ids) {
  const std::size_t n = ids.size(), span = static_cast<std::size_t>(kLoopSpan);
  if (n < span) return false;
  std::int32_t seen[kLoopTokens];
  std::size_t distinct = 0;
  for (std::size_t i = n - span; i < n; ++i) {
    if (std::find(seen, seen + distinct, ids[i]) != seen + distinct) continue;
    if (distinct == static_cast<std::size_t>(kLoopTokens)) return false;
    seen[distinct++] = ids[i];
  }
  return true;
}

std::vector<std::vector<Hypothesis>> beam_search(const model::Model& model,
                                                 const model::EncoderOutput& encoded,
                                                 const SearchRequest& request,
                                                 SearchWorkspace& workspace) {
  const SearchOptions& options = request.options;
  if (options.beam_size < 1) throw UsageError("beam size must be at least 1");
  const dim_t batch = static_cast<dim_t>(encoded.lengths.size());
  const dim_t group = sentences_at_once(model, encoded, options);
  if (batch > group) return beam_search_in_groups(model, encoded, request, workspace, group);
  SearchState search(model, encoded, request, workspace);
  std::vector<std::int32_t> after_term, after_term_too_short;  // whole-word constraints only
  add_constraints(search, after_term, after_term_too_short);
  SearchOptions bounded = options;  // the Translator's --max-length, else this batch's limit
  if (bounded.max_length <= 0) bounded.max_length = search.longest;
  check_beam_size(model, bounded);
  if (batch == 0) return {};
  BeamSelection selection;
  return run_steps(search, selection, encoded, batch * options.beam_size);
}

std::vector<std::vector<Hypothesis>> beam_search(const model::Model& model,
                                                 const model::EncoderOutput& encoded,
                                                 const SearchRequest& request) {
  SearchWorkspace workspace;
  return beam_search(model, encoded, request, workspace);
}

}  // namespace s2s::search
