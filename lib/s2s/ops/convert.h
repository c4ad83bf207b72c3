// convert: y = x in another element type. float32 -> bfloat16 rounds to nearest even (NaN stays
// NaN, core/bfloat16.h); bfloat16 -> float32 is exact; the same type is a copy. Only float32 and
// bfloat16 are taken. x and y have the same shape and may be strided views as long as their last
// axis is contiguous: the decoder writes a column slice of its fused projection into a cache slab
// this way. An owned or empty y is resized to x's shape; a view must have it and type `to`.
#pragma once

#include "s2s/core/tensor.h"

namespace s2s::ops {

void convert(const Tensor& x, DataType to, Tensor& y);

}  // namespace s2s::ops
