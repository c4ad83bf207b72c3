#include "s2s/batch/batch.h"

#include <algorithm>

namespace s2s::batch {

Batch make_batch(const std::vector<std::vector<std::int32_t>>& sequences, std::int32_t pad_id) {
  Batch batch;
  dim_t longest = 0;
  for (const auto& s : sequences) {
    S2S_CHECK(!s.empty(), "empty sequence in a batch");
    longest = std::max<dim_t>(longest, static_cast<dim_t>(s.size()));
  }
  const dim_t rows = static_cast<dim_t>(sequences.size());
  batch.ids.resize({rows, longest}, DataType::i32);
  std::int32_t* ids = batch.ids.data<std::int32_t>();
  std::fill(ids, ids + rows * longest, pad_id);
  for (dim_t b = 0; b < rows; ++b) {
    std::copy(sequences[b].begin(), sequences[b].end(), ids + b * longest);
    batch.lengths.push_back(static_cast<std::int32_t>(sequences[b].size()));
  }
  return batch;
}

}  // namespace s2s::batch
