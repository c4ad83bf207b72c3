#include "s2s/search/sampling.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "s2s/core/error.h"
#include "s2s/search/prefix.h"
#include "s2s/search/step_loop.h"

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

namespace {

// One row of log-probabilities as draw_token reads it.
struct Row {
  const float* log_probs;
  float top;          // the largest
  double temperature;

  // Tempered weight relative to the most likely token (in double): p^(1/T), unnormalised.
  double weight(std::int32_t id) const {
    return std::exp((static_cast<double>(log_probs[id]) - top) / temperature);
  }
  // Most likely first; ties to the lower id, so that a cut never depends on sort details.
  bool more_likely(std::int32_t a, std::int32_t b) const {
    return log_probs[a] != log_probs[b] ? log_probs[a] > log_probs[b] : a < b;
  }
};

// The ids not excluded (above the lowest float) into `ids`, by id; returns their largest
// log-probability.
float allowed_ids(const float* log_probs, std::int64_t vocab, std::vector<std::int32_t>& ids) {
  const float lowest = std::numeric_limits<float>::lowest();
  ids.clear();
  float top = lowest;
  for (std::int32_t v = 0; v < vocab; ++v)
    if (log_probs[v] > lowest) {
      ids.push_back(v);
      top = std::max(top, log_probs[v]);
    }
  S2S_CHECK(!ids.empty(), "sampling: every token is excluded");
  return top;
}

// The k most likely of `ids`, most likely first.
void cut_top_k(const Row& row, std::size_t k, std::vector<std::int32_t>& ids) {
  if (k >= ids.size()) return;
  const auto more_likely = [&](std::int32_t a, std::int32_t b) { return row.more_likely(a, b); };
  std::partial_sort(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(k), ids.end(),
                    more_likely);
  ids.resize(k);
}

// The smallest most-likely-first set of `ids` whose probability reaches p (at least one token),
// most likely first: taken from a heap, as it is usually a few dozen of thousands of tokens.
void cut_top_p(const Row& row, double p, std::vector<std::int32_t>& ids) {
  double total = 0.0;
  for (std::int32_t id : ids) total += row.weight(id);
  const auto less_likely = [&](std::int32_t a, std::int32_t b) { return row.more_likely(b, a); };
  std::make_heap(ids.begin(), ids.end(), less_likely);
  auto kept_end = ids.end();  // the heap shrinks from the back; taken ids go there in order
  double kept = 0.0;
  std::size_t taken = 0;
  while (kept_end != ids.begin() && (taken == 0 || kept < p * total)) {
    std::pop_heap(ids.begin(), kept_end, less_likely);
    --kept_end;
    kept += row.weight(*kept_end);
    ++taken;
  }
  // Most likely first: the taken ids sit at the back in reverse order of taking.
  std::reverse(kept_end, ids.end());
  ids.erase(ids.begin(), kept_end);
}

// The id at `u` (in [0, 1)) of the cumulative weights of `ids`.
std::int32_t draw_from(const Row& row, const std::vector<std::int32_t>& ids, double u,
                       std::vector<double>& weights) {
  weights.clear();
  double sum = 0.0;
  for (std::int32_t id : ids) weights.push_back(sum += row.weight(id));
  const double target = u * sum;
  const auto at = std::upper_bound(weights.begin(), weights.end(), target);
  return at == weights.end() ? ids.back() : ids[static_cast<std::size_t>(at - weights.begin())];
}

}  // namespace

std::int32_t draw_token(const float* log_probs, std::int64_t vocab, const SearchOptions& options,
                        double u, RowScratch& scratch) {
  const Row row{log_probs, allowed_ids(log_probs, vocab, scratch.ids),
                static_cast<double>(options.temperature)};
  const Sampling& s = options.sampling;
  if (s.kind == Sampling::Kind::topk) cut_top_k(row, static_cast<std::size_t>(s.k), scratch.ids);
  if (s.kind == Sampling::Kind::topp) cut_top_p(row, static_cast<double>(s.p), scratch.ids);
  return draw_from(row, scratch.ids, u, scratch.weights);  // full: every allowed token, by id
}

std::int32_t draw_token(const float* log_probs, std::int64_t vocab, const SearchOptions& options,
                        double u) {
  RowScratch scratch;
  return draw_token(log_probs, vocab, options, u, scratch);
}

namespace {

// Sampling's part of a step: each live sample draws its next token from its row.
class Draws final : public Strategy {
 public:
  void score_rows(SearchState& s) override {
    exclude_forbidden(s);
    draw(s);
  }
  std::vector<Candidate> choose(const SearchState& s, std::size_t first, std::size_t last,
                                std::vector<ConstraintState>&) override {
    const Tensor& log_probs = s.workspace.log_probs;
    std::vector<Candidate> chosen;
    for (std::size_t i = first; i < last; ++i) {
      const float token_score = log_probs.data<float>()[s.live[i].row * log_probs.dim(1) + drawn_[i]];
      chosen.push_back({s.live[i].score + token_score, static_cast<std::int32_t>(i),
                        s.columns.token(drawn_[i])});
    }
    return chosen;
  }

 private:
  // The columns no sample may draw get the lowest log-probability in every row (ForbiddenIds).
  static void exclude_forbidden(SearchState& s) {
    Tensor& log_probs = s.workspace.log_probs;
    const dim_t columns = log_probs.dim(1);
    for (const Live& l : s.live) {
      float* lp = log_probs.data<float>() + l.row * columns;
      for (std::int32_t c : s.too_short(l) ? s.forbidden.too_short : s.forbidden.always)
        if (c < columns) lp[c] = std::numeric_limits<float>::lowest();  // the last is `columns`
    }
  }
  // Each sample draws a column with its own generator, so the draws may run on any thread. A
  // forced step (search/prefix.h) takes the prefix's token and draws nothing.
  void draw(SearchState& s) {
    SearchWorkspace& ws = s.workspace;
    const dim_t columns = ws.log_probs.dim(1);
    const float* all_rows = ws.log_probs.data<float>();
    const auto count = static_cast<std::int64_t>(s.live.size());
    drawn_.assign(s.live.size(), -1);
    prepare_row_scratch(ws);
#pragma omp parallel for schedule(static) if (count > 1)
    for (std::int64_t i = 0; i < count; ++i) {
      Live& l = s.live[i];
      if (forced_token(s.beams[l.sentence].prefix, static_cast<std::size_t>(l.length)) >= 0)
        continue;
      drawn_[i] = draw_token(all_rows + l.row * columns, columns, s.options(), uniform(l.rng),
                             row_scratch(ws));
    }
  }

  std::vector<std::int32_t> drawn_;  // each live sample's column this step
};

}  // namespace

std::vector<std::vector<Hypothesis>> sample_search(const model::Model& model,
                                                   const model::EncoderOutput& encoded,
                                                   const SearchRequest& request,
                                                   SearchWorkspace& workspace) {
  const SearchOptions& options = request.options;
  if (!(options.temperature > 0.0f)) throw UsageError("temperature must be more than 0");
  if (!request.constraints.empty()) throw UsageError("terminology constraints need beam search");
  const dim_t batch = static_cast<dim_t>(encoded.lengths.size());
  S2S_CHECK(static_cast<dim_t>(request.seeds.size()) == batch, "one seed per sentence");
  if (batch == 0) return {};
  SearchState search(model, encoded, request, workspace);
  // n samples of a sentence, each with its own stream, all reading its start state at step 0.
  const dim_t per_sentence = options.n_best ? std::max<dim_t>(options.beam_size, 1) : 1;
  std::vector<Live> samples;
  for (const Live& start : search.live)
    for (dim_t j = 0; j < per_sentence; ++j) {
      samples.push_back(start);
      samples.back().rng = request.seeds[start.sentence] ^
                           (0xD1B54A32D192ED03ull * static_cast<std::uint64_t>(j + 1));
    }
  search.live = std::move(samples);
  Draws draws;
  return run_steps(search, draws, encoded, batch * per_sentence);
}

std::vector<std::vector<Hypothesis>> sample_search(const model::Model& model,
                                                   const model::EncoderOutput& encoded,
                                                   const SearchRequest& request) {
  SearchWorkspace workspace;
  return sample_search(model, encoded, request, workspace);
}

}  // namespace s2s::search
