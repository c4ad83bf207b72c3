#include "s2s/layers/mask.h"

namespace s2s::layers {

void padding_counts(const std::vector<std::int32_t>& key_lengths, dim_t heads, dim_t queries,
                    Tensor& counts) {
  const dim_t batch = static_cast<dim_t>(key_lengths.size());
  counts.resize({batch, heads, queries}, DataType::i32);
  std::int32_t* c = counts.data<std::int32_t>();
  for (dim_t b = 0; b < batch; ++b)
    for (dim_t i = 0; i < heads * queries; ++i) *c++ = key_lengths[b];
}

void causal_counts(dim_t batch, dim_t heads, dim_t queries, Tensor& counts) {
  counts.resize({batch, heads, queries}, DataType::i32);
  std::int32_t* c = counts.data<std::int32_t>();
  for (dim_t bh = 0; bh < batch * heads; ++bh)
    for (dim_t t = 0; t < queries; ++t) *c++ = static_cast<std::int32_t>(t + 1);
}

}  // namespace s2s::layers
