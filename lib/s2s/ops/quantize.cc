#include "s2s/ops/quantize.h"

#include <algorithm>
#include <cmath>

namespace s2s::ops {

namespace {

// Channels per parallel block of an in_out weight: 64 floats are one 256-byte stretch of each
// row, so both passes walk the rows in whole cache lines.
constexpr dim_t kBlock = 64;

// lrint(clamp(value / scale, ±levels)), rounding to nearest even as lrintf does, by adding and
// removing 1.5·2^23 (exact for |v| <= 2^22), so that the loops below vectorise.
inline std::int8_t quantize_one(float value, float scale, float levels) {
  const float v = std::min(std::max(value / scale, -levels), levels);
  return static_cast<std::int8_t>(static_cast<std::int32_t>((v + 12582912.0f) - 12582912.0f));
}

float scale_of(float amax, float levels) { return amax > 0.0f ? amax / levels : 1.0f; }

}  // namespace

std::vector<float> quantize_weight(const float* w, WeightLayout layout, dim_t k, dim_t n,
                                   std::int8_t* q, int levels) {
  std::vector<float> scales(static_cast<std::size_t>(n));
  const float top = static_cast<float>(levels);
  if (layout == WeightLayout::out_in) {
    // Channel c is stored row c: contiguous.
#pragma omp parallel for schedule(static)
    for (dim_t c = 0; c < n; ++c) {
      const float* row = w + c * k;
      float amax = 0.0f;
      for (dim_t r = 0; r < k; ++r) amax = std::max(amax, std::fabs(row[r]));
      const float scale = scale_of(amax, top);
      scales[static_cast<std::size_t>(c)] = scale;
#pragma omp simd
      for (dim_t r = 0; r < k; ++r) q[c * k + r] = quantize_one(row[r], scale, top);
    }
    return scales;
  }
  const dim_t blocks = (n + kBlock - 1) / kBlock;
#pragma omp parallel for schedule(static)
  for (dim_t b = 0; b < blocks; ++b) {
    const dim_t begin = b * kBlock, end = std::min(n, begin + kBlock);
    float amax[kBlock] = {};
    for (dim_t r = 0; r < k; ++r)
      for (dim_t c = begin; c < end; ++c)
        amax[c - begin] = std::max(amax[c - begin], std::fabs(w[r * n + c]));
    for (dim_t c = begin; c < end; ++c) scales[static_cast<std::size_t>(c)] = scale_of(amax[c - begin], top);
    for (dim_t r = 0; r < k; ++r) {
      const float* block_scales = scales.data() + begin;
#pragma omp simd
      for (dim_t c = begin; c < end; ++c)
        q[r * n + c] = quantize_one(w[r * n + c], block_scales[c - begin], top);
    }
  }
  return scales;
}

}  // namespace s2s::ops
