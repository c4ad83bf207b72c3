// softmax / log_softmax: argument checks and the fast path, vectorised C++ (see softmax.h).
// Not oneDNN's softmax primitive: 2.6 has no masked variant, its logsoftmax computes log(sum)
// with an approximation (rows shifted by up to ~5e-6), and its softmax was a large share of a
// beam-4 decoding; these loops with vector_exp take a fraction of that (docs/performance.md,
// "Softmax and exponentials").
#include "s2s/ops/softmax.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "s2s/ops/detail.h"
#include "s2s/ops/vector_exp.h"

namespace s2s::ops {

namespace detail {

// x [..., N] contiguous; visible: int32 with one count per row (rows = numel / N).
bool prepare_softmax(const Tensor& x, Tensor& y, const Tensor* visible, const char* what) {
  check_dtype(x, DataType::f32, what);
  S2S_CHECK(x.rank() >= 1, what, " needs at least one axis, got ", to_string(x.shape()));
  check_contiguous(x, what);
  if (visible) {
    const dim_t rows = batch_count(x, x.rank() - 1);
    check_dtype(*visible, DataType::i32, "softmax visible counts");
    S2S_CHECK(visible->numel() == rows, "softmax visible counts ", to_string(visible->shape()),
              " should hold one count per row of x ", to_string(x.shape()), " (", rows, ")");
    check_contiguous(*visible, "softmax visible counts");
    const std::int32_t* counts = visible->data<std::int32_t>();
    for (dim_t r = 0; r < rows; ++r)
      S2S_CHECK(counts[r] >= 0, "softmax visible count ", counts[r], " of row ", r, " is negative");
  }
  prepare_output(y, x.shape(), DataType::f32, what);
  check_contiguous(y, what);
  return !y.empty();
}

S2S_DISPATCHED(float, row_max, (const float* x, dim_t n), (x, n)) { return max_of(x, n, x[0], false); }

namespace {

// y[i] = exp(x[i] - max) for i < n (y may be null: only the sum); returns their sum.
S2S_DISPATCHED(double, exp_row, (const float* x, float max, dim_t n, float* y), (x, max, n, y)) {
  return exp_shifted(x, max, n, y);
}

S2S_DISPATCHED(void, scale_row, (float scale, dim_t n, float* y), (scale, n, y)) {
#pragma omp simd
  for (dim_t i = 0; i < n; ++i) y[i] *= scale;
}

// y[i] = (x[i] - max) - log_sum: (x_i - max) first, so that large logits lose no precision.
S2S_DISPATCHED(void, log_probs_row, (const float* x, float max, float log_sum, dim_t n, float* y), (x, max, log_sum, n, y)) {
#pragma omp simd
  for (dim_t i = 0; i < n; ++i) y[i] = (x[i] - max) - log_sum;
}

// x, y: [rows, N] contiguous (y may be x). Row r: softmax over its first min(visible[r], N)
// entries (all N without counts), zeros after them; a row with nothing visible is all zeros.
void softmax_rows(const Tensor& x, Tensor& y, const Tensor* visible) {
  const dim_t n = x.dim(-1);
  const dim_t rows = x.numel() / n;
  const float* px = x.data<float>();
  const std::int32_t* counts = visible ? visible->data<std::int32_t>() : nullptr;
  float* py = y.data<float>();
#pragma omp parallel for schedule(static) if (rows > 1 && rows * n >= kParallelElements)
  for (dim_t r = 0; r < rows; ++r) {
    const float* in = px + r * n;
    float* out = py + r * n;
    const dim_t v = counts ? std::min<dim_t>(counts[r], n) : n;
    if (v > 0) {
      const float max = row_max(in, v);
      const float inv = static_cast<float>(1.0 / exp_row(in, max, v, out));
      scale_row(inv, v, out);
    }
    std::fill(out + v, out + n, 0.0f);
  }
}

}  // namespace

// log_softmax(x)_i = (x_i - max) - log Σ_j exp(x_j - max): three passes over the row, so that
// callers run it while the row is still in a near cache (ops::PackedMatmul's epilogue).
void log_softmax_row(const float* x, dim_t n, float* y) {
  const float max = row_max(x, n);
  const float log_sum = static_cast<float>(std::log(exp_row(x, max, n, nullptr)));
  log_probs_row(x, max, log_sum, n, y);
}

void log_softmax_rows(const float* x, dim_t rows, dim_t n, float* y) {
#pragma omp parallel for schedule(static) if (rows > 1 && rows * n >= kParallelElements)
  for (dim_t r = 0; r < rows; ++r) log_softmax_row(x + r * n, n, y + r * n);
}

}  // namespace detail

void softmax(const Tensor& x, Tensor& y, const Tensor* visible) {
  if (!detail::prepare_softmax(x, y, visible, "softmax")) return;
  detail::softmax_rows(x, y, visible);
}

void log_softmax(const Tensor& x, Tensor& y) {
  if (!detail::prepare_softmax(x, y, nullptr, "log_softmax")) return;
  const dim_t n = x.dim(-1);
  detail::log_softmax_rows(x.data<float>(), x.numel() / n, n, y.data<float>());
}

}  // namespace s2s::ops
