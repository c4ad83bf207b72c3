// exp over rows, for the softmax loops (ops::softmax, log_softmax, step_attention). glibc's expf is
// scalar without -ffast-math, and a scalar exp per entry made the softmax over a 32,000-entry
// vocabulary cost as much as the output matmul; oneDNN's softmax primitive was no faster
// (docs/performance.md, "Softmax and exponentials"). Also the row maximum (max_of) that the same
// loops and int8's quantization need, for the same reason: GCC leaves it scalar. Private to
// lib/s2s/ops.
//
// 8 lanes at a time with GCC/Clang vector extensions (a ymm register with AVX2 or AVX-512, two
// xmm on baseline x86-64; callers are compiled per ISA, S2S_DISPATCHED in ops/detail.h). 16-lane
// vectors were spilled through the stack by GCC in the AVX2 variants. Sums still run over 16 lanes, as two 8-lane halves, so that
// results are the same bits as with the 16-lane code they replace.
// exp(x): x = n·ln2 + r with |r| <= ln2/2 (ln2 in two parts, so r is exact to float precision),
// Cephes' polynomial for e^r, times 2^n built from exponent bits: within 1.4 ulp of std::exp on
// [-87, 88] (measured on a 0.0007 grid). Below -87.3 the result is 0 (the true value is a
// subnormal or 0; softmax terms that small change no float sum). Inputs must be <= 88: softmax
// passes x - max <= 0.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "s2s/core/tensor.h"

// 32-byte vectors by value: GCC warns (at the end of the including file, so the warning stays
// off from here on) that their ABI depends on AVX; these functions are always inlined, so no
// call ever passes one.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace s2s::ops::detail {

using f32x8 = float __attribute__((vector_size(32)));
using i32x8 = std::int32_t __attribute__((vector_size(32)));

#define S2S_INLINE inline __attribute__((always_inline))

S2S_INLINE f32x8 exp8(f32x8 x) {
  const i32x8 representable = x > -87.3f;  // all ones where 2^n is a normal float
  // Clamp first (with bit masks: vector ?: is not portable between GCC and Clang), so that n
  // and the exponent arithmetic below stay in range for any input.
  const f32x8 lowest = f32x8{} - 87.3f;
  x = (f32x8)(((i32x8)x & representable) | ((i32x8)lowest & ~representable));
  // Round to nearest by adding and removing 1.5·2^23.
  const f32x8 n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  const f32x8 r = (x - n * 0.693359375f) + n * 2.12194440e-4f;
  f32x8 p = r * 1.9875691500e-4f + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  const i32x8 bits = (__builtin_convertvector(n, i32x8) + 127) << 23;  // n + 127 in [1, 254]
  // A cast between vector types of one size reinterprets the bits.
  return (f32x8)((i32x8)(p * (f32x8)bits) & representable);
}

// exp(x[i] - max) for i < n, into y when y is not null (y may be x); returns their sum, in
// double: blocks of 256 terms are summed in float lanes, the blocks in double.
S2S_INLINE double exp_shifted(const float* x, float max, dim_t n, float* y) {
  double sum = 0.0;
  dim_t i = 0;
  while (i + 16 <= n) {
    f32x8 low = {}, high = {};  // lanes 0-7 and 8-15 of each 16 entries
    for (int v = 0; v < 16 && i + 16 <= n; ++v, i += 16) {
      f32x8 in_low, in_high;
      std::memcpy(&in_low, x + i, sizeof in_low);
      std::memcpy(&in_high, x + i + 8, sizeof in_high);
      const f32x8 e_low = exp8(in_low - max), e_high = exp8(in_high - max);
      if (y) {
        std::memcpy(y + i, &e_low, sizeof e_low);
        std::memcpy(y + i + 8, &e_high, sizeof e_high);
      }
      low += e_low;
      high += e_high;
    }
    for (int lane = 0; lane < 8; ++lane) sum += low[lane];
    for (int lane = 0; lane < 8; ++lane) sum += high[lane];
  }
  while (i < n) {  // the last n - i < 16 entries; padding lanes give exp(-1e30) = 0
    f32x8 in;
    for (int lane = 0; lane < 8; ++lane) in[lane] = i + lane < n ? x[i + lane] : -1e30f;
    const f32x8 e = exp8(in - max);
    for (int lane = 0; lane < 8 && i + lane < n; ++lane) {
      if (y) y[i + lane] = e[lane];
      sum += e[lane];
    }
    i += 8;
  }
  return sum;
}

// The result of `max = std::max(max, x[i])` (of |x[i]| with `absolute`) for i in order from
// max = start, 32 entries at a time: NaNs are passed over as that loop passes them, and the max
// of numbers does not depend on the order. GCC leaves that loop scalar (one entry per cycle),
// with or without `omp simd reduction(max)`, a visible share of a small model's beam search
// (docs/performance.md, "Softmax and exponentials").
// std::max(m, v) lane by lane. A function of its own, always inlined: a lambda here was a real
// call in Debug builds, compiled for the baseline target and so passing the vectors another way
// than the AVX clone calling it did (garbage maxima under the sanitizer build).
S2S_INLINE f32x8 max8(f32x8 m, f32x8 v) {
  const i32x8 above = v > m;
  return (f32x8)(((i32x8)v & above) | ((i32x8)m & ~above));
}

S2S_INLINE float max_of(const float* x, dim_t n, float start, bool absolute) {
  const i32x8 magnitude = i32x8{} + 0x7fffffff;
  f32x8 m[4];
  for (f32x8& lanes : m) lanes = f32x8{} + start;
  dim_t i = 0;
  for (; i + 32 <= n; i += 32)
    for (int a = 0; a < 4; ++a) {
      f32x8 v;
      std::memcpy(&v, x + i + 8 * a, sizeof v);
      if (absolute) v = (f32x8)((i32x8)v & magnitude);
      m[a] = max8(m[a], v);
    }
  float max = start;
  for (const f32x8& lanes : m)
    for (int lane = 0; lane < 8; ++lane) max = std::max(max, lanes[lane]);
  for (; i < n; ++i) max = std::max(max, absolute ? std::fabs(x[i]) : x[i]);
  return max;
}

#undef S2S_INLINE

}  // namespace s2s::ops::detail
