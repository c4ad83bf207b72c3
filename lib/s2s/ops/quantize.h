// int8 weight quantization of precision.h's scheme, apart from PackedMatmul so that both weight
// levels are tested on every CPU.
#pragma once

#include <cstdint>
#include <vector>

#include "s2s/core/shape.h"
#include "s2s/ops/packed_matmul.h"

namespace s2s::ops {

// The logical [K, N] weight `w` as stored (`layout`: in_out is [K, N] row-major, out_in is
// [N, K]), quantized per output channel n to `levels` (127, or 63 where int8_weight_levels()
// says so): scale[n] = max_k |W[k, n]| / levels (1 for an all-zero channel) and
// q = lrint(W / scale[n]) clamped to [-levels, levels], written to `q` in the same stored layout
// (K·N values). Returns the N scales. Reads the weight in storage order, both passes,
// over channel blocks in parallel: the obvious column loop strides through a [K, N] weight once
// per column, which made int8 loading of a Transformer-base model take seconds.
std::vector<float> quantize_weight(const float* w, WeightLayout layout, dim_t k, dim_t n,
                                   std::int8_t* q, int levels = 127);

}  // namespace s2s::ops
