// panel_gemv: a few rows times a float32 weight in oneDNN's BA16a64b layout (detail.h).
//
// PackedMatmul keeps float32 weights in this layout where oneDNN has brgemm (AVX-512), whose
// fixed-row kernels beat its runtime-row gemm from a few rows up but not at one row, which is a
// single sentence's greedy step (docs/performance.md, "Products with fixed row counts"). A few
// rows are a
// stream over the weights, and in this layout each panel of 64 columns is one contiguous [K, 64]
// block: here each panel is read front to back by one thread, for up to kPanelRows rows at a
// time (a second group of rows reads it again from the core's own cache).
#include <immintrin.h>

#include <algorithm>

#include "s2s/ops/detail.h"

namespace s2s::ops::detail {
namespace {

// Columns [64·p, 64·p + 64) of x·W for M rows of x (row stride k): 4 vectors of 16 sums per row,
// each over i in order (one fused multiply-add per i and vector), so a row's result depends
// neither on the thread count nor on the other rows.
template <int M>
__attribute__((target("avx512f"))) void panel_product(const float* x, dim_t k,
                                                       const float* panel, float* out) {
  __m512 acc[M][4];
  for (int r = 0; r < M; ++r)
    for (int v = 0; v < 4; ++v) acc[r][v] = _mm512_setzero_ps();
  for (dim_t i = 0; i < k; ++i) {
    const float* w = panel + i * kPanelColumns;
    const __m512 w0 = _mm512_loadu_ps(w), w1 = _mm512_loadu_ps(w + 16);
    const __m512 w2 = _mm512_loadu_ps(w + 32), w3 = _mm512_loadu_ps(w + 48);
    for (int r = 0; r < M; ++r) {
      const __m512 xi = _mm512_set1_ps(x[r * k + i]);
      acc[r][0] = _mm512_fmadd_ps(xi, w0, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(xi, w1, acc[r][1]);
      acc[r][2] = _mm512_fmadd_ps(xi, w2, acc[r][2]);
      acc[r][3] = _mm512_fmadd_ps(xi, w3, acc[r][3]);
    }
  }
  for (int r = 0; r < M; ++r)
    for (int v = 0; v < 4; ++v) _mm512_storeu_ps(out + r * kPanelColumns + 16 * v, acc[r][v]);
}

void panel_rows(const float* x, dim_t rows, dim_t k, const float* panel, float* out) {
  switch (rows) {
    case 1: return panel_product<1>(x, k, panel, out);
    case 2: return panel_product<2>(x, k, panel, out);
    case 3: return panel_product<3>(x, k, panel, out);
    default: return panel_product<4>(x, k, panel, out);
  }
}

}  // namespace

void panel_gemv(const float* x, dim_t rows, const float* weights, dim_t k, dim_t n,
                const float* bias, float* y) {
  const dim_t padded_k = (k + kPanelDepth - 1) / kPanelDepth * kPanelDepth;
  const dim_t panels = (n + kPanelColumns - 1) / kPanelColumns;
  // Below ~100k multiply-adds a parallel region costs more than it saves.
#pragma omp parallel for schedule(static) if (panels > 1 && rows * k * n >= 4 * kParallelElements)
  for (dim_t p = 0; p < panels; ++p) {
    const float* panel = weights + p * padded_k * kPanelColumns;
    const dim_t first = p * kPanelColumns;
    const dim_t width = std::min(kPanelColumns, n - first);
    for (dim_t r0 = 0; r0 < rows; r0 += 4) {
      const dim_t group = std::min<dim_t>(4, rows - r0);
      float sums[4 * kPanelColumns];
      panel_rows(x + r0 * k, group, k, panel, sums);
      for (dim_t r = 0; r < group; ++r) {
        float* row = y + (r0 + r) * n + first;
        const float* s = sums + r * kPanelColumns;
        for (dim_t c = 0; c < width; ++c) row[c] = bias ? s[c] + bias[first + c] : s[c];
      }
    }
  }
}

}  // namespace s2s::ops::detail
