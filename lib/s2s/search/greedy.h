// Greedy search is beam search with a beam of one (search/beam.h): one code path for both.
#pragma once

#include <vector>

#include "s2s/model/model.h"
#include "s2s/search/hypothesis.h"
#include "s2s/search/options.h"

namespace s2s::search {

// One hypothesis per row of `encoded`, in row order; options.beam_size and n_best are ignored.
std::vector<Hypothesis> greedy_search(const model::Model& model,
                                      const model::EncoderOutput& encoded,
                                      const SearchOptions& options);

}  // namespace s2s::search
