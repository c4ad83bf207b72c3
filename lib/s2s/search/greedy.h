// Greedy search: at every step each row takes its most probable next token (log-softmax
// argmax, <unk> suppressed unless allowed). Rows that finish (</s> or their length limit) leave
// the batch through DecoderState::select_rows, so a sentence's result never depends on others.
#pragma once

#include <vector>

#include "s2s/model/model.h"
#include "s2s/search/hypothesis.h"
#include "s2s/search/options.h"

namespace s2s {

// One hypothesis per row of `encoded`, in row order.
std::vector<Hypothesis> greedy_search(const Model& model, const EncoderOutput& encoded,
                                      const SearchOptions& options);

// The maximum number of target tokens for a source of this length (incl. </s>).
dim_t max_target_length(dim_t source_length, const SearchOptions& options);

}  // namespace s2s
