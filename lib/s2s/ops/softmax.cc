// softmax / log_softmax: argument checks, output sizing and dispatch (see softmax.h).
// oneDNN 2.6 has no masked softmax, so rows with visible-key counts take the plain loop below.
#include "s2s/ops/softmax.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "s2s/ops/detail.h"

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

namespace {

// Row r: softmax over its first min(visible[r], N) entries, zeros after them; x may alias y.
void softmax_masked(const Tensor& x, Tensor& y, const Tensor& visible) {
  const dim_t n = x.dim(-1);
  const dim_t rows = x.numel() / n;
  const float* px = x.data<float>();
  const std::int32_t* counts = visible.data<std::int32_t>();
  float* py = y.data<float>();
  for (dim_t r = 0; r < rows; ++r) {
    const float* in = px + r * n;
    float* out = py + r * n;
    const dim_t v = std::min<dim_t>(counts[r], n);
    if (v > 0) {
      float max = in[0];
      for (dim_t i = 1; i < v; ++i) max = std::max(max, in[i]);
      float sum = 0.0f;
      for (dim_t i = 0; i < v; ++i) {
        out[i] = std::exp(in[i] - max);
        sum += out[i];
      }
      const float inv = 1.0f / sum;
      for (dim_t i = 0; i < v; ++i) out[i] *= inv;
    }
    std::fill(out + v, out + n, 0.0f);
  }
}

}  // namespace

}  // namespace detail

void softmax(const Tensor& x, Tensor& y, const Tensor* visible) {
  if (!detail::prepare_softmax(x, y, visible, "softmax")) return;
  if (visible)
    detail::softmax_masked(x, y, *visible);
  else
    detail::softmax_dnnl(x, y);
}

void log_softmax(const Tensor& x, Tensor& y) {
  if (!detail::prepare_softmax(x, y, nullptr, "log_softmax")) return;
  detail::log_softmax_dnnl(x, y);
}

}  // namespace s2s::ops
