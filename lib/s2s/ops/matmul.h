// Batched matrix product: c[..., M, N] = alpha * a[..., M, K] · b[..., K, N] + bias[N].
//
// With transpose_b, b is [..., N, K] and its transpose is used (attention: Q · Kᵀ).
// a and b may be strided views (e.g. the visible part of a key/value cache); b may have no
// leading dims (one matrix broadcast over the batch), otherwise a and b have the same leading dims.
// Output convention for all ops: an owned output tensor is resized to the result shape (reusing
// its buffer when it fits); a view must already have the result shape.
#pragma once

#include "s2s/core/tensor.h"

namespace s2s::ops {

struct MatmulOptions {
  bool transpose_b = false;
  float alpha = 1.0f;
  const Tensor* bias = nullptr;  // f32 [N], added to every row
};

void matmul(const Tensor& a, const Tensor& b, Tensor& c, const MatmulOptions& options = {});

}  // namespace s2s::ops
