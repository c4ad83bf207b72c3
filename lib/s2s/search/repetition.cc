#include "s2s/search/repetition.h"

#include <algorithm>
#include <limits>

namespace s2s::search {

void apply_repetition_rules(const std::vector<std::int32_t>& ids, const SearchOptions& options,
                            float* logits, std::int64_t vocab) {
  const auto in_vocab = [vocab](std::int32_t id) { return id >= 0 && id < vocab; };
  if (options.repetition_penalty != 1.0f) {
    std::vector<std::int32_t> seen(ids);  // each distinct id once: a repeat must not penalize twice
    std::sort(seen.begin(), seen.end());
    seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
    const float penalty = options.repetition_penalty;
    for (std::int32_t id : seen) {
      if (!in_vocab(id)) continue;
      float& x = logits[id];
      x = x < 0.0f ? x * penalty : x / penalty;
    }
  }
  const std::size_t n = static_cast<std::size_t>(std::max<dim_t>(options.no_repeat_ngram, 0));
  if (n == 0 || ids.size() < n) return;
  // The last n-1 ids; each earlier place they occur with a token after it bans that token.
  const auto tail = ids.end() - static_cast<std::ptrdiff_t>(n - 1);
  for (std::size_t start = 0; start + n <= ids.size(); ++start) {
    const auto at = ids.begin() + static_cast<std::ptrdiff_t>(start);
    if (!std::equal(tail, ids.end(), at)) continue;
    const std::int32_t next = *(at + static_cast<std::ptrdiff_t>(n - 1));
    if (in_vocab(next)) logits[next] = std::numeric_limits<float>::lowest();
  }
}

}  // namespace s2s::search
