#include "s2s/model/decoder_state.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "s2s/layers/mask.h"
#include "s2s/ops/gather.h"

namespace s2s {
namespace {

// tensor [B, ...] -> [rows.size(), ...] taking the listed rows, through `spare` (no allocation
// when the buffers are already large enough).
void gather_into(Tensor& tensor, const Tensor& rows, Tensor& spare) {
  Shape shape = tensor.shape();
  const dim_t row_size = tensor.numel() / std::max<dim_t>(shape[0], 1);
  shape[0] = rows.numel();
  Tensor table = tensor.reshaped({tensor.dim(0), row_size});
  spare.resize(shape, tensor.dtype());
  Tensor out = spare.reshaped({rows.numel(), row_size});
  ops::gather_rows(table, rows, out);
  std::swap(tensor, spare);
}

// Self-attention cache [B, H, C, Dh] -> [rows.size(), H, capacity, Dh], copying only positions
// 0..filled-1 of each row and head (attention never reads the others).
void copy_filled(Tensor& tensor, const std::vector<std::int32_t>& rows, dim_t filled,
                 dim_t capacity, Tensor& spare) {
  const dim_t heads = tensor.dim(1), old_capacity = tensor.dim(2), head_dim = tensor.dim(3);
  spare.resize({static_cast<dim_t>(rows.size()), heads, capacity, head_dim}, tensor.dtype());
  const float* from = tensor.data<float>();
  float* to = spare.data<float>();
  const std::size_t bytes = static_cast<std::size_t>(filled * head_dim) * sizeof(float);
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (dim_t h = 0; h < heads; ++h)
      std::memcpy(to + (static_cast<dim_t>(i) * heads + h) * capacity * head_dim,
                  from + (rows[i] * heads + h) * old_capacity * head_dim, bytes);
  std::swap(tensor, spare);
}

}  // namespace

void DecoderState::reserve_next_step() {
  if (step_ < capacity_) return;
  const dim_t capacity = std::min(limit_, 2 * capacity_);
  std::vector<std::int32_t> rows(static_cast<std::size_t>(batch_size()));
  std::iota(rows.begin(), rows.end(), 0);
  for (LayerCache& layer : layers_) {
    copy_filled(layer.self_keys, rows, step_, capacity, spare_self_);
    copy_filled(layer.self_values, rows, step_, capacity, spare_self_);
  }
  capacity_ = capacity;
}

void DecoderState::select_rows(const std::vector<std::int32_t>& rows) {
  const dim_t n = static_cast<dim_t>(rows.size());
  for (std::int32_t r : rows)
    S2S_CHECK(r >= 0 && r < batch_size(), "row ", r, " outside a batch of ", batch_size());
  bool identity = n == batch_size();
  for (dim_t i = 0; identity && i < n; ++i) identity = rows[i] == i;
  if (identity) return;  // greedy search at most steps: every row continues
  for (LayerCache& layer : layers_) {
    copy_filled(layer.self_keys, rows, step_, capacity_, spare_self_);
    copy_filled(layer.self_values, rows, step_, capacity_, spare_self_);
  }
  std::vector<std::int32_t> origin(n);
  for (dim_t i = 0; i < n; ++i) origin[i] = origin_[rows[i]];
  if (origin == origin_) return;  // same sentence in every row: cross-attention inputs unchanged
  origin_ = std::move(origin);
  Tensor row_ids = Tensor::wrap(const_cast<std::int32_t*>(rows.data()), {n}, DataType::i32);
  for (LayerCache& layer : layers_) {
    gather_into(layer.cross_keys, row_ids, spare_cross_);
    gather_into(layer.cross_values, row_ids, spare_cross_);
  }
  std::vector<std::int32_t> lengths(n);
  for (dim_t i = 0; i < n; ++i) lengths[i] = source_lengths_[rows[i]];
  source_lengths_ = std::move(lengths);
  const dim_t heads = cross_visible_.dim(1);
  layers::padding_counts(source_lengths_, heads, 1, cross_visible_);
}

}  // namespace s2s
