// exp over rows, for the softmax loops (ops::softmax, log_softmax, step_attention). glibc's expf
// is scalar without -ffast-math, and a scalar exp per entry made the softmax over a 32,000-entry
// vocabulary cost as much as the output matmul; oneDNN's softmax primitive was no faster
// (bench/NOTES.md). Private to lib/s2s/ops.
//
// 16 lanes at a time with GCC/Clang vector extensions, so a caller compiled for AVX-512 gets zmm
// code and one compiled for baseline x86-64 gets SSE (callers use target_clones).
// exp(x): x = n·ln2 + r with |r| <= ln2/2 (ln2 in two parts, so r is exact to float precision),
// Cephes' polynomial for e^r, times 2^n built from exponent bits: within 1.4 ulp of std::exp on
// [-87, 88] (measured on a 0.0007 grid). Below -87.3 the result is 0 (the true value is a
// subnormal or 0; softmax terms that small change no float sum). Inputs must be <= 88: softmax
// passes x - max <= 0.
#pragma once

#include <cstdint>
#include <cstring>

#include "s2s/core/tensor.h"

// 64-byte vectors by value: GCC warns (at the end of the including file, so the warning stays
// off from here on) that their ABI depends on AVX-512; these functions are always inlined, so
// no call ever passes one.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace s2s::ops::detail {

using f32x16 = float __attribute__((vector_size(64)));
using i32x16 = std::int32_t __attribute__((vector_size(64)));

#define S2S_INLINE inline __attribute__((always_inline))

S2S_INLINE f32x16 exp16(f32x16 x) {
  const i32x16 representable = x > -87.3f;  // all ones where 2^n is a normal float
  // Clamp first (with bit masks: vector ?: is not portable between GCC and Clang), so that n
  // and the exponent arithmetic below stay in range for any input.
  const f32x16 lowest = f32x16{} - 87.3f;
  x = (f32x16)(((i32x16)x & representable) | ((i32x16)lowest & ~representable));
  // Round to nearest by adding and removing 1.5·2^23.
  const f32x16 n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  const f32x16 r = (x - n * 0.693359375f) + n * 2.12194440e-4f;
  f32x16 p = r * 1.9875691500e-4f + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  const i32x16 bits = (__builtin_convertvector(n, i32x16) + 127) << 23;  // n + 127 in [1, 254]
  // A cast between vector types of one size reinterprets the bits.
  return (f32x16)((i32x16)(p * (f32x16)bits) & representable);
}

// exp(x[i] - max) for i < n, into y when y is not null (y may be x); returns their sum, in
// double: blocks of 256 terms are summed in float lanes, the blocks in double.
S2S_INLINE double exp_shifted(const float* x, float max, dim_t n, float* y) {
  double sum = 0.0;
  dim_t i = 0;
  while (i + 16 <= n) {
    f32x16 block = {};
    for (int v = 0; v < 16 && i + 16 <= n; ++v, i += 16) {
      f32x16 in;
      std::memcpy(&in, x + i, sizeof in);
      const f32x16 e = exp16(in - max);
      if (y) std::memcpy(y + i, &e, sizeof e);
      block += e;
    }
    for (int lane = 0; lane < 16; ++lane) sum += block[lane];
  }
  if (i < n) {  // the last n - i < 16 entries; padding lanes give exp(-1e30) = 0
    f32x16 in;
    for (int lane = 0; lane < 16; ++lane) in[lane] = i + lane < n ? x[i + lane] : -1e30f;
    const f32x16 e = exp16(in - max);
    for (int lane = 0; i + lane < n; ++lane) {
      if (y) y[i + lane] = e[lane];
      sum += e[lane];
    }
  }
  return sum;
}

#undef S2S_INLINE

}  // namespace s2s::ops::detail
