// The k largest entries of each row, sorted by decreasing value; equal values keep the lower index
// first. x: f32 [R, N] contiguous, 0 <= k <= N. values: f32 [R, k], indices: int32 [R, k].
#pragma once

#include "s2s/core/tensor.h"

namespace s2s::ops {

void topk(const Tensor& x, dim_t k, Tensor& values, Tensor& indices);

namespace ref {
void topk(const Tensor& x, dim_t k, Tensor& values, Tensor& indices);
}

}  // namespace s2s::ops
