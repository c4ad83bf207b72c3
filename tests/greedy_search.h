// Greedy search for the parity tests: beam search with a beam of one (search/beam.h), the path
// the Translator takes for --beam-size 1, one best hypothesis per row.
#pragma once

#include <vector>

#include "s2s/model/model.h"
#include "s2s/search/beam.h"

namespace s2s::test {

// One hypothesis per row of `encoded`, in row order; options.beam_size and n_best are ignored.
inline std::vector<search::Hypothesis> greedy_search(const model::Model& model,
                                                     const model::EncoderOutput& encoded,
                                                     const search::SearchOptions& options) {
  search::SearchOptions greedy = options;
  greedy.beam_size = 1;
  greedy.n_best = false;
  std::vector<search::Hypothesis> best;
  for (std::vector<search::Hypothesis>& list : search::beam_search(model, encoded, greedy))
    best.push_back(std::move(list.front()));
  return best;
}

}  // namespace s2s::test
