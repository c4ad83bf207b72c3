#include "s2s/search/beam.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "s2s/core/threads.h"
#include "s2s/ops/softmax.h"
#include "s2s/ops/topk.h"
#include "s2s/search/constraints.h"
#include "s2s/search/forbidden_ids.h"
#include "s2s/search/prefix.h"
#include "s2s/search/repetition.h"
#include "s2s/search/scoring_rules.h"

namespace s2s::search {
namespace {

// A live hypothesis: one row of the decoder state.
struct Live {
  std::int32_t sentence;
  Hypothesis hypothesis;
  ConstraintState constraint;  // for a sentence with constraints (search/constraints.h)
};

// A possible extension: state row `row` followed by `token`, with its accumulated score.
struct Candidate {
  float score;
  std::int32_t row;
  std::int32_t token;
};

struct SentenceBeam {
  dim_t width;  // B_cur: shrinks by one for every hypothesis that finishes with </s>
  dim_t limit;  // maximum target length in tokens
  bool guard_loops = false;
  const std::vector<std::int32_t>* prefix = nullptr;  // forced start (search/prefix.h), or none
  const Constraints* constraints = nullptr;           // terminology constraints, or none
  std::vector<Hypothesis> finished;  // with constraints: only the ones that meet them all

  // Whole-word constraints: the ids excluded after a term, forbidden's plus the tokens that
  // would continue the term's last word (search/constraints.h); null without.
  const std::vector<std::int32_t>* after_term = nullptr;
  const std::vector<std::int32_t>* after_term_too_short = nullptr;

  std::size_t prefix_length() const { return prefix == nullptr ? 0 : prefix->size(); }
  // The ids live hypothesis `l` may not take next.
  const std::vector<std::int32_t>& excluded(const Live& l, bool too_short,
                                            const ForbiddenIds& forbidden) const {
    if (after_term != nullptr && l.constraint.term_ended)
      return too_short ? *after_term_too_short : *after_term;
    return too_short ? forbidden.too_short : forbidden.always;
  }
  // </s> is blocked until every constraint is met (Sockeye's is_valid).
  bool owes_constraints(const Live& l) const {
    return constraints != nullptr && l.constraint.bank < constraints->total();
  }
};

bool stopped(const std::atomic<bool>* stop) {
  return stop != nullptr && stop->load(std::memory_order_relaxed);
}

// TopKList keeps its list by insertion, O(k) per entry that gets in: fine for the usual beams,
// but at a beam of hundreds the per-row lists made a step cost seconds. Wider beams select
// instead: O(V + k log k) per row, the same list (score descending, ties to the lower id; a NaN
// counts as the lowest score).
constexpr dim_t kInsertionTopK = 64;

void best_of_row_wide(const float* lp, dim_t vocab, float score,
                      const std::vector<std::int32_t>& excluded, dim_t k, float* values,
                      std::int32_t* ids) {
  const float lowest = std::numeric_limits<float>::lowest();
  thread_local std::vector<std::pair<float, std::int32_t>> all;
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
                 std::int32_t* ids) {
  if (k > kInsertionTopK) return best_of_row_wide(lp, vocab, score, excluded, k, values, ids);
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

// For each live row r, the best k of  log_probs[r, v] + score of r: what a top-k of the whole
// score matrix gives, in one pass over log_probs, without writing that matrix. Rows on a forced
// step (search/prefix.h) are skipped; at the first step after a prefix, </s> stays a candidate
// only if it is the best one.
void best_extensions(const std::vector<Live>& live, const std::vector<SentenceBeam>& beams,
                     const SearchOptions& options, const ForbiddenIds& forbidden,
                     const Tensor& log_probs, dim_t k, std::int32_t eos, Tensor& values,
                     Tensor& indices, const std::atomic<bool>* stop) {
  const dim_t rows = static_cast<dim_t>(live.size()), vocab = log_probs.dim(1);
  values.resize({rows, k});
  indices.resize({rows, k}, DataType::i32);
#pragma omp parallel for schedule(static) if (rows > 1)
  for (dim_t r = 0; r < rows; ++r) {
    if (stopped(stop)) continue;  // a wide beam's rows take a while: the caller returns at once
    const Hypothesis& h = live[r].hypothesis;
    const std::size_t forced = beams[live[r].sentence].prefix_length();
    if (h.ids.size() < forced) continue;
    const bool too_short = static_cast<dim_t>(h.ids.size()) < options.min_length ||
                           beams[live[r].sentence].owes_constraints(live[r]);
    const float* lp = log_probs.data<float>() + r * vocab;
    float* row_values = values.data<float>() + r * k;
    std::int32_t* row_ids = indices.data<std::int32_t>() + r * k;
    best_of_row(lp, vocab, h.score, beams[live[r].sentence].excluded(live[r], too_short, forbidden),
                k, row_values, row_ids);
    if (forced > 0 && h.ids.size() == forced && row_ids[0] != eos &&
        std::find(row_ids, row_ids + k, eos) != row_ids + k)
      best_of_row(lp, vocab, h.score, forbidden.too_short, k, row_values, row_ids);
  }
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
  // Higher score first; ties to the lower (row, token), i.e. the lower flat index.
  const auto better = [](const Candidate& a, const Candidate& b) {
    if (a.score != b.score) return a.score > b.score;
    return a.row != b.row ? a.row < b.row : a.token < b.token;
  };
  const dim_t keep = std::min<dim_t>(width, static_cast<dim_t>(candidates.size()));
  std::partial_sort(candidates.begin(), candidates.begin() + keep, candidates.end(), better);
  candidates.resize(keep);
  return candidates;
}

// The constrained selection of one sentence whose live rows are [first, last) (Post & Vilar's
// dynamic beam allocation; the steps of tools/reference/constrained_search.py, ONE STEP 2-5):
// the candidates are the sentence's best `width` extensions, each row's best token, and each
// row's allowed constraint tokens that are not excluded; they are grouped in banks by the
// constraint tokens met after them, and taken best first while their bank has a slot left.
// `states` receives the constraint state after each chosen candidate.
std::vector<Candidate> select_constrained(const std::vector<Live>& live,
                                          const SentenceBeam& beam, const ForbiddenIds& forbidden,
                                          const Tensor& log_probs, const Tensor& values,
                                          const Tensor& indices, dim_t first, dim_t last,
                                          std::vector<ConstraintState>& states) {
  const Constraints& constraints = *beam.constraints;
  const dim_t k = values.dim(1), vocab = log_probs.dim(1);
  std::vector<Candidate> candidates = select(values, indices, first, last, beam.width);  // (a)
  for (dim_t r = first; r < last; ++r) {
    const std::int32_t row = static_cast<std::int32_t>(r);
    candidates.push_back({values.data<float>()[r * k], row, indices.data<std::int32_t>()[r * k]});
    const std::vector<std::int32_t>& excluded = beam.excluded(live[r], false, forbidden);
    for (std::int32_t token : constraints.allowed(live[r].constraint))
      if (!std::binary_search(excluded.begin(), excluded.end(), token))
        candidates.push_back(
            {log_probs.data<float>()[r * vocab + token] + live[r].hypothesis.score, row, token});
  }
  const auto better = [](const Candidate& a, const Candidate& b) {
    if (a.score != b.score) return a.score > b.score;
    return a.row != b.row ? a.row < b.row : a.token < b.token;
  };
  std::sort(candidates.begin(), candidates.end(), better);
  candidates.erase(std::unique(candidates.begin(), candidates.end(),
                               [](const Candidate& a, const Candidate& b) {
                                 return a.row == b.row && a.token == b.token;
                               }),
                   candidates.end());
  std::vector<ConstraintState> after;
  std::vector<dim_t> counts(constraints.total() + 1, 0);
  for (const Candidate& c : candidates) {
    after.push_back(constraints.advance(live[c.row].constraint, c.token));
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

// With constraints, a hypothesis that does not meet them all is dropped: it is never output.
void finish(SentenceBeam& beam, Hypothesis hypothesis, const SearchOptions& options,
            const ConstraintState* constraint = nullptr) {
  if (beam.constraints != nullptr && constraint->bank < beam.constraints->total()) return;
  hypothesis.normalized_score = normalized_score(hypothesis.score, hypothesis.ids.size(), options);
  beam.finished.push_back(std::move(hypothesis));
}

// Whether the sentence's 1-best can no longer change: a finished hypothesis scores at least as
// high as any continuation of its live ones, next[first..] (scoring_rules.h). Then decoding them
// further cannot change the output, only cost steps: Marian decodes on until every hypothesis of
// the beam has finished, which with --normalize 0 (and CTranslate2's stop when the best candidate
// ends) often means a batch's last steps run for hypotheses that have already lost. Ties keep the
// earlier finished hypothesis (ranked), so stopping on a tie changes nothing either. The n-best
// list needs every finished hypothesis: decoded to the end as Marian does.
bool settled(const SentenceBeam& beam, const std::vector<Live>& next, std::size_t first,
             const SearchOptions& options) {
  if (options.n_best || beam.finished.empty() || first == next.size()) return false;
  float best = beam.finished.front().normalized_score;
  for (const Hypothesis& h : beam.finished) best = std::max(best, h.normalized_score);
  for (std::size_t i = first; i < next.size(); ++i) {
    const Hypothesis& h = next[i].hypothesis;
    if (best_reachable_score(h.score, h.ids.size(), beam.limit, options) > best) return false;
  }
  return true;
}

// Best first by normalized score; equal scores keep the order in which they finished.
std::vector<Hypothesis> ranked(std::vector<Hypothesis> finished, bool n_best) {
  std::stable_sort(finished.begin(), finished.end(), [](const Hypothesis& a, const Hypothesis& b) {
    return a.normalized_score > b.normalized_score;
  });
  if (!n_best && finished.size() > 1) finished.resize(1);
  return finished;
}

// Constraints the search can take: target ids of the vocabulary other than </s>.
void check_constraints(const Constraints& constraints, const model::Model& model) {
  for (const auto& phrase : constraints.phrases())
    for (std::int32_t id : phrase)
      if (id < 0 || id >= model.config().target_vocab_size || id == model.config().eos_id)
        throw UsageError("constraint token " + std::to_string(id) + " is not a target token");
}

// The ids a hypothesis may not take right after a whole-word term: `forbidden` (sorted, ended
// by the vocabulary size) and the target tokens that continue a word.
std::vector<std::int32_t> with_word_continuations(const std::vector<std::int32_t>& forbidden,
                                                  const model::Model& model) {
  const text::Vocabulary& vocab = model.codec().target_vocab();
  std::vector<std::string> pieces;
  const dim_t ids_used = std::min<dim_t>(vocab.size(), model.config().target_vocab_size);
  for (dim_t id = 0; id < ids_used; ++id) pieces.push_back(vocab.piece(static_cast<int>(id)));
  std::vector<std::int32_t> ids = word_continuations(pieces);
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

std::vector<std::vector<Hypothesis>> beam_search_in_groups(
    const model::Model& model, const model::EncoderOutput& encoded, const SearchOptions& options,
    dim_t group, const std::atomic<bool>* stop, const std::vector<char>* guard_loops,
    const Prefixes* prefixes, const std::vector<Constraints>* constraints) {
  const dim_t batch = static_cast<dim_t>(encoded.lengths.size());
  const dim_t sentence_size = encoded.memory.dim(1) * encoded.memory.dim(2);
  std::vector<std::vector<Hypothesis>> results;
  for (dim_t first = 0; first < batch; first += group) {
    const dim_t n = std::min(group, batch - first);
    model::EncoderOutput part;  // a view of the group's rows, padded as the whole batch
    const DataType dtype = encoded.memory.dtype();
    auto* start = static_cast<char*>(const_cast<void*>(encoded.memory.raw())) +
                  static_cast<std::size_t>(first * sentence_size) * dtype_size(dtype);
    part.memory = Tensor::wrap(start, {n, encoded.memory.dim(1), encoded.memory.dim(2)}, dtype);
    part.lengths = part_of(encoded.lengths, first, n);
    const std::vector<char> guards = guard_loops ? part_of(*guard_loops, first, n) : std::vector<char>();
    const Prefixes forced = prefixes ? part_of(*prefixes, first, n) : Prefixes();
    const std::vector<Constraints> terms =
        constraints ? part_of(*constraints, first, n) : std::vector<Constraints>();
    auto found = beam_search(model, part, options, stop, guard_loops ? &guards : nullptr,
                             prefixes ? &forced : nullptr, constraints ? &terms : nullptr);
    if (static_cast<dim_t>(found.size()) != n) return {};  // stopped
    for (auto& sentence : found) results.push_back(std::move(sentence));
  }
  return results;
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
                                                 const SearchOptions& options,
                                                 const std::atomic<bool>* stop,
                                                 const std::vector<char>* guard_loops,
                                                 const Prefixes* prefixes,
                                                 const std::vector<Constraints>* constraints) {
  if (options.beam_size < 1) throw UsageError("beam size must be at least 1");
  const dim_t batch = static_cast<dim_t>(encoded.lengths.size());
  const dim_t group = sentences_at_once(model, encoded, options);
  if (batch > group)
    return beam_search_in_groups(model, encoded, options, group, stop, guard_loops, prefixes,
                                 constraints);
  std::vector<SentenceBeam> beams(batch);
  const ForbiddenIds forbidden(model, options, model.config().target_vocab_size);
  std::vector<std::int32_t> after_term, after_term_too_short;  // whole-word constraints only
  dim_t longest = 0;
  std::vector<Live> live;
  for (dim_t b = 0; b < batch; ++b) {
    beams[b].width = options.beam_size;
    beams[b].limit = max_target_length(encoded.lengths[b], options);
    beams[b].guard_loops = guard_loops != nullptr && (*guard_loops)[b] != 0;
    beams[b].prefix = prefix_of(prefixes, static_cast<std::size_t>(b));
    live.push_back({static_cast<std::int32_t>(b), Hypothesis{}, {}});  // the start state
    if (constraints != nullptr && static_cast<std::size_t>(b) < constraints->size() &&
        !(*constraints)[b].empty()) {
      beams[b].constraints = &(*constraints)[b];
      check_constraints(*beams[b].constraints, model);
      live.back().constraint = beams[b].constraints->start();
      if (beams[b].constraints->whole_words()) {
        if (after_term.empty()) {
          after_term = with_word_continuations(forbidden.always, model);
          after_term_too_short = with_word_continuations(forbidden.too_short, model);
        }
        beams[b].after_term = &after_term;
        beams[b].after_term_too_short = &after_term_too_short;
      }
    }
    longest = std::max(longest, beams[b].limit);
  }
  SearchOptions bounded = options;  // the Translator's --max-length, else this batch's limit
  if (bounded.max_length <= 0) bounded.max_length = longest;
  check_beam_size(model, bounded);
  std::vector<std::vector<Hypothesis>> results(batch);
  if (batch == 0) return results;

  const std::int32_t eos = model.config().eos_id;
  // One state per thread, kept across batches: its caches are allocated once, not per batch.
  thread_local model::DecoderState state;
  model.decoder().start(encoded, longest, state, batch * options.beam_size);
  if (options.alignment) model.decoder().keep_alignment(state);
  std::vector<std::int32_t> previous(batch, model.decoder().start_id());
  // Kept across batches as the state is: [rows, V] logits are tens of MB, faulted in afresh
  // for every batch if allocated per call. The log-softmax runs in place (the logits are not
  // needed afterwards), so only one such matrix exists.
  thread_local Tensor log_probs, top_values, top_indices;
  thread_local std::vector<float> row_max;
  std::vector<ConstraintState> states;  // after each constrained selection's candidates
  while (!live.empty()) {
    if (stopped(stop)) return {};
    share_cores();  // fewer threads while other processes take cores (core/threads.h)
    // The rows' largest logits come with them, unless the repetition rules change the logits.
    const bool repetition_rules = uses_repetition_rules(options);
    row_max.resize(static_cast<std::size_t>(state.batch_size()));
    model.decoder().step(state, previous, log_probs, repetition_rules ? nullptr : row_max.data());
    if (stopped(stop)) return {};
    if (repetition_rules)  // logits, then
      for (std::size_t r = 0; r < live.size(); ++r)
        apply_repetition_rules(live[r].hypothesis.ids, options,
                               log_probs.data<float>() + r * log_probs.dim(1), log_probs.dim(1));
    ops::log_softmax(log_probs, log_probs, repetition_rules ? nullptr : row_max.data());
    dim_t k = 1;
    for (const SentenceBeam& beam : beams) k = std::max(k, beam.width);
    best_extensions(live, beams, options, forbidden, log_probs, std::min(k, log_probs.dim(1)),
                    eos, top_values, top_indices, stop);
    if (stopped(stop)) return {};

    std::vector<Live> next;
    std::vector<std::int32_t> rows;  // parent state row of each next live hypothesis
    previous.clear();
    for (std::size_t first = 0; first < live.size();) {
      std::size_t last = first;
      const std::int32_t sentence = live[first].sentence;
      while (last < live.size() && live[last].sentence == sentence) ++last;
      SentenceBeam& beam = beams[sentence];
      const std::size_t first_next = next.size();
      // On a forced step the sentence has one live hypothesis and takes the prefix's token,
      // scored 0 (search/prefix.h).
      const std::int32_t forced_id =
          forced_token(beam.prefix, live[first].hypothesis.ids.size());
      const bool forced = forced_id >= 0;
      const std::vector<Candidate> chosen =
          forced ? std::vector<Candidate>{{0.0f, static_cast<std::int32_t>(first), forced_id}}
          : beam.constraints != nullptr
              ? select_constrained(live, beam, forbidden, log_probs, top_values, top_indices,
                                   first, last, states)
              : select(top_values, top_indices, first, last, beam.width);
      for (std::size_t i = 0; i < chosen.size(); ++i) {
        const Candidate& c = chosen[i];
        // A forced token (a prefix: NLLB's target-language token) leaves the constraints as
        // they were.
        ConstraintState constraint = beam.constraints == nullptr ? ConstraintState{}
                                     : forced ? live[c.row].constraint
                                              : std::move(states[i]);
        Hypothesis h = live[c.row].hypothesis;
        h.ids.push_back(c.token);
        h.token_scores.push_back(
            forced ? 0.0f : log_probs.data<float>()[c.row * log_probs.dim(1) + c.token]);
        h.score = c.score;
        if (options.alignment) {
          const float* row = state.alignment_row(c.row);
          h.alignment.insert(h.alignment.end(), row, row + state.source_length(c.row));
        }
        const bool ends =
            (c.token == eos && !forced) || static_cast<dim_t>(h.ids.size()) >= beam.limit;
        const bool heard_stop = options.on_token != nullptr &&
                                !(*options.on_token)(static_cast<std::size_t>(sentence), c.token,
                                                     h.token_scores.back(), ends);
        if (c.token == eos && !forced) {
          finish(beam, std::move(h), options, &constraint);
          --beam.width;
        } else if (static_cast<dim_t>(h.ids.size()) >= beam.limit || heard_stop) {
          finish(beam, std::move(h), options, &constraint);  // cut at the length limit, no </s>
        } else if (beam.guard_loops && !forced && caught_in_loop(h.ids)) {
          h.cut_in_loop = true;  // finished as if with </s>: the beam shrinks, no refill
          finish(beam, std::move(h), options, &constraint);
          --beam.width;
        } else {
          next.push_back({sentence, std::move(h), std::move(constraint)});
          rows.push_back(c.row);
          previous.push_back(c.token);
        }
      }
      if (settled(beam, next, first_next, options)) {  // its live hypotheses can only lose
        next.resize(first_next);
        rows.resize(first_next);
        previous.resize(first_next);
      }
      first = last;
    }
    live = std::move(next);
    if (!live.empty()) state.select_rows(rows);
  }
  for (dim_t b = 0; b < batch; ++b) results[b] = ranked(std::move(beams[b].finished), options.n_best);
  return results;
}

}  // namespace s2s::search
