#include "s2s/search/sampling.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "s2s/core/error.h"
#include "s2s/core/threads.h"
#include "s2s/ops/softmax.h"
#include "s2s/search/forbidden_ids.h"
#include "s2s/search/prefix.h"
#include "s2s/search/repetition.h"
#include "s2s/search/scoring_rules.h"

namespace s2s::search {
namespace {

// splitmix64 (Steele, Lea and Flood 2014): a tiny, well-mixed generator whose stream depends on
// nothing but its state, on every platform (std::uniform_real_distribution does not promise that).
std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Uniform in [0, 1) with 53 random bits.
double uniform(std::uint64_t& state) {
  return static_cast<double>(splitmix64(state) >> 11) * 0x1.0p-53;
}

// One sample in progress: its sentence, its generator, what it has generated.
struct Sample {
  std::int32_t sentence;
  std::uint64_t rng;
  Hypothesis hypothesis;
};

}  // namespace

std::uint64_t sentence_seed(std::uint64_t seed, const std::vector<std::int32_t>& source_ids) {
  std::uint64_t state = seed;
  std::uint64_t mixed = splitmix64(state);
  for (std::int32_t id : source_ids) {
    state ^= static_cast<std::uint32_t>(id);
    mixed ^= splitmix64(state);
  }
  return mixed;
}

std::int32_t draw_token(const float* log_probs, std::int64_t vocab, const SearchOptions& options,
                        double u) {
  const float lowest = std::numeric_limits<float>::lowest();
  thread_local std::vector<std::int32_t> ids;
  thread_local std::vector<double> weights;
  ids.clear();
  float top = lowest;
  for (std::int32_t v = 0; v < vocab; ++v)
    if (log_probs[v] > lowest) {
      ids.push_back(v);
      top = std::max(top, log_probs[v]);
    }
  S2S_CHECK(!ids.empty(), "sampling: every token is excluded");
  // Tempered weights relative to the most likely token (in double): p^(1/T), unnormalised.
  const auto weight = [&](std::int32_t id) {
    return std::exp((static_cast<double>(log_probs[id]) - top) / options.temperature);
  };
  // Most likely first; ties to the lower id, so that a cut never depends on sort details.
  const auto more_likely = [&](std::int32_t a, std::int32_t b) {
    return log_probs[a] != log_probs[b] ? log_probs[a] > log_probs[b] : a < b;
  };
  const Sampling& s = options.sampling;
  if (s.kind == Sampling::Kind::topk && static_cast<std::size_t>(s.k) < ids.size()) {
    std::partial_sort(ids.begin(), ids.begin() + s.k, ids.end(), more_likely);
    ids.resize(static_cast<std::size_t>(s.k));
  } else if (s.kind == Sampling::Kind::topp) {
    // The smallest most-likely-first set whose probability reaches p (at least one token): taken
    // from a heap, as it is usually a few dozen of thousands of tokens.
    double total = 0.0;
    for (std::int32_t id : ids) total += weight(id);
    const auto less_likely = [&](std::int32_t a, std::int32_t b) { return more_likely(b, a); };
    std::make_heap(ids.begin(), ids.end(), less_likely);
    auto kept_end = ids.end();  // the heap shrinks from the back; taken ids go there in order
    double kept = 0.0;
    std::size_t taken = 0;
    while (kept_end != ids.begin() && (taken == 0 || kept < s.p * total)) {
      std::pop_heap(ids.begin(), kept_end, less_likely);
      --kept_end;
      kept += weight(*kept_end);
      ++taken;
    }
    // Most likely first: the taken ids sit at the back in reverse order of taking.
    std::reverse(kept_end, ids.end());
    ids.erase(ids.begin(), kept_end);
  }
  // full: every allowed token, by id.
  weights.clear();
  double sum = 0.0;
  for (std::int32_t id : ids) weights.push_back(sum += weight(id));
  const double target = u * sum;
  const auto at = std::upper_bound(weights.begin(), weights.end(), target);
  return at == weights.end() ? ids.back() : ids[static_cast<std::size_t>(at - weights.begin())];
}

std::vector<std::vector<Hypothesis>> sample_search(const model::Model& model,
                                                   const model::EncoderOutput& encoded,
                                                   const SearchOptions& options,
                                                   const std::vector<std::uint64_t>& seeds,
                                                   const std::atomic<bool>* stop,
                                                   const Prefixes* prefixes) {
  if (!(options.temperature > 0.0f)) throw UsageError("temperature must be more than 0");
  const dim_t batch = static_cast<dim_t>(encoded.lengths.size());
  S2S_CHECK(static_cast<dim_t>(seeds.size()) == batch, "one seed per sentence");
  const dim_t per_sentence = options.n_best ? std::max<dim_t>(options.beam_size, 1) : 1;
  std::vector<std::vector<Hypothesis>> results(batch);
  if (batch == 0) return results;

  std::vector<dim_t> limit(batch);
  dim_t longest = 0;
  std::vector<Sample> live;
  std::vector<std::int32_t> row;  // the state row each live sample reads this step
  for (dim_t b = 0; b < batch; ++b) {
    limit[b] = max_target_length(encoded.lengths[b], options);
    longest = std::max(longest, limit[b]);
    for (dim_t j = 0; j < per_sentence; ++j) {
      std::uint64_t rng = seeds[b] ^ (0xD1B54A32D192ED03ull * static_cast<std::uint64_t>(j + 1));
      live.push_back({static_cast<std::int32_t>(b), rng, Hypothesis{}});
      row.push_back(static_cast<std::int32_t>(b));  // step 0: the sentence's start state
    }
  }
  const std::int32_t eos = model.config().eos_id;
  thread_local model::DecoderState state;
  thread_local Tensor log_probs;
  model.decoder().start(encoded, longest, state, batch * per_sentence);
  if (options.alignment) model.decoder().keep_alignment(state);
  std::vector<std::int32_t> previous(batch, model.decoder().start_id());
  const ForbiddenIds forbidden(model, options, model.config().target_vocab_size);
  while (!live.empty()) {
    if (stop != nullptr && stop->load(std::memory_order_relaxed)) return {};
    share_cores();
    model.decoder().step(state, previous, log_probs);  // logits, then
    const dim_t vocab = log_probs.dim(1);
    // A state row's hypothesis: the first sample reading it (one per row after step 0, where
    // the samples of a sentence share its start state and have generated nothing).
    std::vector<const Hypothesis*> of_row(static_cast<std::size_t>(log_probs.dim(0)), nullptr);
    for (std::size_t i = 0; i < live.size(); ++i)
      if (!of_row[row[i]]) of_row[row[i]] = &live[i].hypothesis;
    if (uses_repetition_rules(options))
      for (std::size_t r = 0; r < of_row.size(); ++r)
        apply_repetition_rules(of_row[r]->ids, options, log_probs.data<float>() + r * vocab, vocab);
    ops::log_softmax(log_probs, log_probs);
    for (std::size_t r = 0; r < of_row.size(); ++r) {
      const bool too_short = static_cast<dim_t>(of_row[r]->ids.size()) < options.min_length;
      float* lp = log_probs.data<float>() + r * vocab;
      for (std::int32_t id : too_short ? forbidden.too_short : forbidden.always)
        if (id < vocab) lp[id] = std::numeric_limits<float>::lowest();  // the last is vocab
    }

    // Each sample draws with its own generator, so the draws may run on any thread. (Through a
    // plain pointer: inside the parallel region `log_probs` would name each worker thread's own
    // thread_local tensor.)
    std::vector<std::int32_t> drawn(live.size());
    const std::int64_t count = static_cast<std::int64_t>(live.size());
    const float* all_rows = log_probs.data<float>();
    // A forced step (search/prefix.h) takes the prefix's token and draws nothing.
    std::vector<char> forced(live.size());
    for (std::size_t i = 0; i < live.size(); ++i) {
      const std::int32_t id = forced_token(prefix_of(prefixes, live[i].sentence),
                                           live[i].hypothesis.ids.size());
      forced[i] = id >= 0;
      drawn[i] = id;
    }
#pragma omp parallel for schedule(static) if (count > 1)
    for (std::int64_t i = 0; i < count; ++i)
      if (!forced[i])
        drawn[i] = draw_token(all_rows + row[i] * vocab, vocab, options, uniform(live[i].rng));

    std::vector<Sample> next;
    std::vector<std::int32_t> rows;
    previous.clear();
    for (std::size_t i = 0; i < live.size(); ++i) {
      Sample& sample = live[i];
      const float* lp = log_probs.data<float>() + row[i] * vocab;
      const std::int32_t token = drawn[i];
      const float token_score = forced[i] ? 0.0f : lp[token];
      Hypothesis& h = sample.hypothesis;
      h.ids.push_back(token);
      h.token_scores.push_back(token_score);
      h.score += token_score;
      if (options.alignment) {
        const float* a = state.alignment_row(row[i]);
        h.alignment.insert(h.alignment.end(), a, a + state.source_length(row[i]));
      }
      const bool ends = (token == eos && !forced[i]) ||
                        static_cast<dim_t>(h.ids.size()) >= limit[sample.sentence];
      const bool heard_stop =
          options.on_token != nullptr &&
          !(*options.on_token)(static_cast<std::size_t>(sample.sentence), token, token_score, ends);
      if (ends || heard_stop) {
        h.normalized_score = normalized_score(h.score, h.ids.size(), options);
        results[sample.sentence].push_back(std::move(h));
      } else {
        rows.push_back(row[i]);
        previous.push_back(token);
        next.push_back(std::move(sample));
      }
    }
    live = std::move(next);
    row.resize(live.size());
    std::iota(row.begin(), row.end(), 0);
    if (!live.empty()) state.select_rows(rows);
  }
  for (std::vector<Hypothesis>& list : results)
    std::stable_sort(list.begin(), list.end(), [](const Hypothesis& a, const Hypothesis& b) {
      return a.normalized_score > b.normalized_score;
    });
  return results;
}

}  // namespace s2s::search
