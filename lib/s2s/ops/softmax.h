// Softmax over the last axis, with an optional visible-key count per row.
//
// x: f32 [..., N], contiguous; rows = numel / N. visible: int32 [rows] (any shape with that many
// elements) or nullptr. Row r only sees its first visible[r] entries: those get the softmax over
// them, the rest get exactly 0. A count of 0 gives an all-zero row (never NaN); counts above N
// are treated as N. y may be the same tensor as x (in place).
// This is how both padding and causal masks are applied (docs/architecture.md, "Masks and caches").
#pragma once

#include "s2s/core/tensor.h"

namespace s2s::ops {

void softmax(const Tensor& x, Tensor& y, const Tensor* visible = nullptr);
// log(softmax(x)) over the last axis, no mask (the output layer; a decoder step has it done by
// the output layer's product instead, ops::Epilogue::log_softmax, with the same bits).
void log_softmax(const Tensor& x, Tensor& y);

}  // namespace s2s::ops
