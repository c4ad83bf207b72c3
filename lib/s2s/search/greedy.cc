#include "s2s/search/greedy.h"

#include <algorithm>
#include <cmath>

#include "s2s/search/beam.h"

namespace s2s {

dim_t max_target_length(dim_t source_length, const SearchOptions& options) {
  return std::max<dim_t>(1, static_cast<dim_t>(std::ceil(options.max_length_factor *
                                                         static_cast<float>(source_length))));
}

std::vector<Hypothesis> greedy_search(const Model& model, const EncoderOutput& encoded,
                                      const SearchOptions& options) {
  SearchOptions greedy = options;
  greedy.beam_size = 1;
  greedy.n_best = false;
  std::vector<Hypothesis> best;
  for (std::vector<Hypothesis>& list : beam_search(model, encoded, greedy))
    best.push_back(std::move(list.front()));
  return best;
}

}  // namespace s2s
