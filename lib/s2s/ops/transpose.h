// Splitting and merging attention heads.
//   split_heads: x [B, T, H·Dh] -> y [B, H, T, Dh]   (head h takes columns [h·Dh, (h+1)·Dh))
//   merge_heads: x [B, H, T, Dh] -> y [B, T, H·Dh]   (the inverse)
// Inputs may be strided views; y may be a strided view too (e.g. the slot of a key/value cache
// being written at one step), otherwise owned outputs are resized.
#pragma once

#include "s2s/core/tensor.h"

namespace s2s::ops {

void split_heads(const Tensor& x, dim_t heads, Tensor& y);
void merge_heads(const Tensor& x, Tensor& y);

}  // namespace s2s::ops
