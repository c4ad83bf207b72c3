#include "s2s/batch/batcher.h"

#include <algorithm>
#include <numeric>

#include "s2s/core/error.h"

namespace s2s::batch {

std::vector<std::vector<std::size_t>> make_batches(const std::vector<std::size_t>& lengths,
                                                   const BatchLimits& limits) {
  if (limits.sentences < 1) throw UsageError("batch size must be at least 1");
  if (limits.tokens < 0) throw UsageError("batch tokens must not be negative");
  std::vector<std::size_t> order(lengths.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return lengths[a] < lengths[b]; });

  std::vector<std::vector<std::size_t>> batches;
  std::vector<std::size_t> current;
  std::size_t longest = 0;
  for (std::size_t i : order) {
    // Sorted ascending, so adding i makes lengths[i] the batch's longest sentence.
    const std::size_t rows = current.size() + 1;
    const bool too_many = static_cast<dim_t>(rows) > limits.sentences;
    const bool too_long = limits.tokens > 0 &&
                          static_cast<dim_t>(rows * std::max(longest, lengths[i])) > limits.tokens;
    if (!current.empty() && (too_many || too_long)) {
      batches.push_back(std::move(current));
      current.clear();
      longest = 0;
    }
    current.push_back(i);
    longest = std::max(longest, lengths[i]);
  }
  if (!current.empty()) batches.push_back(std::move(current));
  return batches;
}

}  // namespace s2s::batch
