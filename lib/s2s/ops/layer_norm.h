// Layer normalisation over the last axis:
//   y = scale ⊙ (x − mean) / sqrt(var + epsilon) + bias,  var biased (divided by D), eps inside sqrt.
// x: f32 [..., D] contiguous; scale, bias: f32 [D]. y may be the same tensor as x.
#pragma once

#include "s2s/core/tensor.h"

namespace s2s::ops {

void layer_norm(const Tensor& x, const Tensor& scale, const Tensor& bias, float epsilon, Tensor& y);

}  // namespace s2s::ops
