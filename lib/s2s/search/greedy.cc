#include "s2s/search/greedy.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "s2s/ops/softmax.h"

namespace s2s {

dim_t max_target_length(dim_t source_length, const SearchOptions& options) {
  return std::max<dim_t>(1, static_cast<dim_t>(std::ceil(options.max_length_factor *
                                                         static_cast<float>(source_length))));
}

std::vector<Hypothesis> greedy_search(const Model& model, const EncoderOutput& encoded,
                                      const SearchOptions& options) {
  const ModelConfig& config = model.config();
  const dim_t batch = static_cast<dim_t>(encoded.lengths.size());
  std::vector<Hypothesis> results(batch);
  std::vector<dim_t> limit(batch);
  dim_t longest = 0;
  for (dim_t b = 0; b < batch; ++b) {
    limit[b] = max_target_length(encoded.lengths[b], options);
    longest = std::max(longest, limit[b]);
  }
  if (batch == 0) return results;

  DecoderState state = model.decoder().start(encoded, longest);
  std::vector<std::int32_t> rows(batch);  // state row -> batch row
  for (dim_t b = 0; b < batch; ++b) rows[b] = static_cast<std::int32_t>(b);
  std::vector<std::int32_t> previous(batch, model.decoder().start_id());
  Tensor logits, log_probs;
  const float lowest = std::numeric_limits<float>::lowest();

  while (!rows.empty()) {
    model.decoder().step(state, previous, logits);
    ops::log_softmax(logits, log_probs);
    const dim_t vocab = log_probs.dim(1);
    float* lp = log_probs.data<float>();
    std::vector<std::int32_t> alive;  // state rows that go on
    std::vector<std::int32_t> next;
    for (std::size_t r = 0; r < rows.size(); ++r) {
      float* row = lp + r * vocab;
      if (!options.allow_unk && config.unk_id >= 0) row[config.unk_id] = lowest;
      const std::int32_t best = static_cast<std::int32_t>(std::max_element(row, row + vocab) - row);
      Hypothesis& h = results[rows[r]];
      h.ids.push_back(best);
      h.token_scores.push_back(row[best]);
      h.score += row[best];
      const bool done = best == config.eos_id || static_cast<dim_t>(h.ids.size()) >= limit[rows[r]];
      if (!done) {
        alive.push_back(static_cast<std::int32_t>(r));
        next.push_back(best);
      }
    }
    if (alive.size() != rows.size()) {
      if (!alive.empty()) state.select_rows(alive);
      std::vector<std::int32_t> remaining;
      for (std::int32_t r : alive) remaining.push_back(rows[r]);
      rows = std::move(remaining);
    }
    previous = std::move(next);
  }
  return results;
}

}  // namespace s2s
