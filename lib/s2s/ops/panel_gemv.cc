// panel_gemv: one row times a float32 weight in oneDNN's BA16a64b layout (detail.h).
//
// PackedMatmul keeps float32 weights in this layout where oneDNN has brgemm (AVX-512), whose
// fixed-row kernels beat its runtime-row gemm from 2 rows up (the output layer at 32 rows: 13.1
// -> 10.4 ms, bench/NOTES.md) but not at one row: 3.4 ms against gemm's 1.75 ms for the base
// model's 512 x 32000 output layer, which is a single sentence's greedy step. One row is a pure
// stream over the weights, and in this layout each panel of 64 columns is one contiguous
// [K, 64] block: here each panel is read once, front to back, by one thread.
#include <immintrin.h>

#include <algorithm>

#include "s2s/ops/detail.h"

namespace s2s::ops::detail {
namespace {

constexpr dim_t kAheadRows = 16;

// Columns [64·p, 64·p + 64) of x·W: 4 vectors of 16 sums, each over k in order (one fused
// multiply-add per k and vector), so the result does not depend on the thread count.
__attribute__((target("avx512f"))) void panel_product(const float* x, const float* panel,
                                                       dim_t k, float* out) {
  __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps();
  __m512 a2 = _mm512_setzero_ps(), a3 = _mm512_setzero_ps();
  for (dim_t i = 0; i < k; ++i) {
    const float* w = panel + i * kPanelColumns;
    const __m512 xi = _mm512_set1_ps(x[i]);
    a0 = _mm512_fmadd_ps(xi, _mm512_loadu_ps(w), a0);
    a1 = _mm512_fmadd_ps(xi, _mm512_loadu_ps(w + 16), a1);
    a2 = _mm512_fmadd_ps(xi, _mm512_loadu_ps(w + 32), a2);
    a3 = _mm512_fmadd_ps(xi, _mm512_loadu_ps(w + 48), a3);
  }
  _mm512_storeu_ps(out, a0);
  _mm512_storeu_ps(out + 16, a1);
  _mm512_storeu_ps(out + 32, a2);
  _mm512_storeu_ps(out + 48, a3);
}

}  // namespace

void panel_gemv(const float* x, const float* weights, dim_t k, dim_t n, const float* bias,
                float* y) {
  const dim_t padded_k = (k + kPanelDepth - 1) / kPanelDepth * kPanelDepth;
  const dim_t panels = (n + kPanelColumns - 1) / kPanelColumns;
  // Below ~100k multiply-adds a parallel region costs more than it saves.
#pragma omp parallel for schedule(static) if (panels > 1 && k * n >= 4 * kParallelElements)
  for (dim_t p = 0; p < panels; ++p) {
    float sums[kPanelColumns];
    panel_product(x, weights + p * padded_k * kPanelColumns, k, sums);
    const dim_t first = p * kPanelColumns;
    const dim_t width = std::min(kPanelColumns, n - first);
    for (dim_t c = 0; c < width; ++c)
      y[first + c] = bias ? sums[c] + bias[first + c] : sums[c];
  }
}

}  // namespace s2s::ops::detail
