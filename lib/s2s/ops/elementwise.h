// Element-wise ops: activations and a broadcasting add.
#pragma once

#include "s2s/core/tensor.h"

namespace s2s::ops {

enum class Activation {
  identity,
  relu,   // max(0, x)
  swish,  // x · sigmoid(x)  (also called silu)
  gelu,   // x · Φ(x), the exact erf form: 0.5 · x · (1 + erf(x / sqrt(2)))
};

// y = act(x); x, y f32 contiguous, same shape; y may be the same tensor as x.
void activation(Activation act, const Tensor& x, Tensor& y);

// c = a_scale · a + b. a, c: f32 [...] contiguous. b: f32 with the same shape as a, or with a
// shape equal to a suffix of a's shape (broadcast over a's leading dims: a bias row [D] over
// [B, T, D], positions [T, D] over [B, T, D]). c may be the same tensor as a or b.
void add(const Tensor& a, const Tensor& b, Tensor& c, float a_scale = 1.0f);

}  // namespace s2s::ops
