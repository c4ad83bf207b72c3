// How a finished hypothesis is ranked (Marian, model-formats.md §1.6 step 6), shared by greedy
// and beam search and the scorer: (score − word_penalty·L) / L^normalize, L = target tokens
// including </s>.
#pragma once

#include <cmath>

#include "s2s/search/options.h"

namespace s2s {

inline float normalized_score(float score, std::size_t length, const SearchOptions& options) {
  const float l = static_cast<float>(length);
  const float penalized = score - options.word_penalty * l;
  return options.normalize == 0.0f || length == 0 ? penalized
                                                  : penalized / std::pow(l, options.normalize);
}

}  // namespace s2s
