#include "s2s/model/decoder_state.h"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace s2s {
namespace {

// Self-attention cache [B, H, C, Dh] -> [rows.size(), H, capacity, Dh], copying only positions
// 0..filled-1 of each row and head (attention never reads the others).
void copy_filled(Tensor& tensor, const std::vector<std::int32_t>& rows, dim_t filled,
                 dim_t capacity, Tensor& spare) {
  const dim_t heads = tensor.dim(1), old_capacity = tensor.dim(2), head_dim = tensor.dim(3);
  spare.resize({static_cast<dim_t>(rows.size()), heads, capacity, head_dim}, tensor.dtype());
  const float* from = tensor.data<float>();
  float* to = spare.data<float>();
  const std::size_t bytes = static_cast<std::size_t>(filled * head_dim) * sizeof(float);
  const dim_t pairs = static_cast<dim_t>(rows.size()) * heads;
  // Both threads copy: one core alone does not saturate the memory bus, and the other would
  // only spin at the next barrier meanwhile.
#pragma omp parallel for schedule(static) if (pairs * filled * head_dim > 100000)
  for (dim_t pair = 0; pair < pairs; ++pair) {
    const dim_t i = pair / heads, h = pair % heads;
    std::memcpy(to + pair * capacity * head_dim,
                from + (rows[i] * heads + h) * old_capacity * head_dim, bytes);
  }
  std::swap(tensor, spare);
}

}  // namespace

void DecoderState::reserve_next_step() {
  if (step_ < capacity_) return;
  const dim_t capacity = std::min(limit_, 2 * capacity_);
  std::vector<std::int32_t> rows(static_cast<std::size_t>(batch_size()));
  std::iota(rows.begin(), rows.end(), 0);
  for (LayerCache& layer : layers_) {
    copy_filled(layer.self_keys, rows, step_, capacity, spare_);
    copy_filled(layer.self_values, rows, step_, capacity, spare_);
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
    copy_filled(layer.self_keys, rows, step_, capacity_, spare_);
    copy_filled(layer.self_values, rows, step_, capacity_, spare_);
  }
  spare_origin_.resize(static_cast<std::size_t>(n));
  spare_lengths_.resize(static_cast<std::size_t>(n));
  for (dim_t i = 0; i < n; ++i) {
    spare_origin_[i] = origin_[rows[i]];
    spare_lengths_[i] = source_lengths_[rows[i]];
  }
  std::swap(origin_, spare_origin_);
  std::swap(source_lengths_, spare_lengths_);
}

}  // namespace s2s
