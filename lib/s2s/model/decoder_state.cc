#include "s2s/model/decoder_state.h"

#include <algorithm>

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

}  // namespace

void DecoderState::select_rows(const std::vector<std::int32_t>& rows) {
  const dim_t n = static_cast<dim_t>(rows.size());
  for (std::int32_t r : rows)
    S2S_CHECK(r >= 0 && r < batch_size(), "row ", r, " outside a batch of ", batch_size());
  Tensor row_ids = Tensor::wrap(const_cast<std::int32_t*>(rows.data()), {n}, DataType::i32);
  for (LayerCache& layer : layers_) {
    gather_into(layer.self_keys, row_ids, spare_);
    gather_into(layer.self_values, row_ids, spare_);
    gather_into(layer.cross_keys, row_ids, spare_);
    gather_into(layer.cross_values, row_ids, spare_);
  }
  std::vector<std::int32_t> lengths(n);
  for (dim_t i = 0; i < n; ++i) lengths[i] = source_lengths_[rows[i]];
  source_lengths_ = std::move(lengths);
  const dim_t heads = cross_visible_.dim(1);
  layers::padding_counts(source_lengths_, heads, 1, cross_visible_);
}

}  // namespace s2s
