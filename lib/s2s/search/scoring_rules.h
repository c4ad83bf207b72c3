// The rules a search shares with the scorer: how a finished hypothesis is ranked (Marian;
// docs/models.md, "Marian's beam search"): (score − word_penalty·L) / L^normalize, L = target
// tokens including </s>; and how long a hypothesis may grow.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

#include "s2s/search/options.h"

namespace s2s::search {

inline float normalized_score(float score, std::size_t length, const SearchOptions& options) {
  const float l = static_cast<float>(length);
  const float penalized = score - options.word_penalty * l;
  return options.normalize == 0.0f || length == 0 ? penalized
                                                  : penalized / std::pow(l, options.normalize);
}

// The highest normalized score that any continuation of a live hypothesis (accumulated `score`,
// `length` tokens so far, at most `limit` in the end) can finish with, or +infinity where no bound
// holds (a negative word penalty or exponent rewards length without limit). Log-probabilities are
// never positive, so the score can only fall; the penalized score is then negative and dividing it
// by the longest possible L^normalize gives the largest value. Float rounding is monotone in every
// step but std::pow, hence the margin of a few ulps where pow is used.
inline float best_reachable_score(float score, std::size_t length, dim_t limit,
                                  const SearchOptions& options) {
  if (options.word_penalty < 0.0f || options.normalize < 0.0f)
    return std::numeric_limits<float>::infinity();
  const float penalized = score - options.word_penalty * static_cast<float>(length + 1);
  if (options.normalize == 0.0f) return penalized;
  const float bound = penalized / std::pow(static_cast<float>(limit), options.normalize);
  return bound - 8.0f * std::numeric_limits<float>::epsilon() * bound;  // bound <= 0
}

// ceil(max_length_factor × source length), at least 1, at most options.max_length when set.
inline dim_t max_target_length(dim_t source_length, const SearchOptions& options) {
  const dim_t by_factor = std::max<dim_t>(
      1, static_cast<dim_t>(std::ceil(options.max_length_factor * static_cast<float>(source_length))));
  return options.max_length > 0 ? std::min(by_factor, options.max_length) : by_factor;
}

}  // namespace s2s::search
