#include "s2s/search/greedy.h"

#include "s2s/search/beam.h"

namespace s2s::search {

std::vector<Hypothesis> greedy_search(const model::Model& model,
                                      const model::EncoderOutput& encoded,
                                      const SearchOptions& options) {
  SearchOptions greedy = options;
  greedy.beam_size = 1;
  greedy.n_best = false;
  std::vector<Hypothesis> best;
  for (std::vector<Hypothesis>& list : beam_search(model, encoded, greedy))
    best.push_back(std::move(list.front()));
  return best;
}

}  // namespace s2s::search
