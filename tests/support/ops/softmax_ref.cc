// Reference softmax / log_softmax: one row at a time, in double (see softmax.h).
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "s2s/ops/detail.h"
#include "support/ops_ref.h"
#include "s2s/ops/softmax.h"

namespace s2s::ops::ref {

namespace {

// Row by row; `visible` may be null (every entry visible). x may alias y.
void softmax_rows(const Tensor& x, Tensor& y, const Tensor* visible, bool log) {
  const dim_t n = x.dim(-1);
  const dim_t rows = x.numel() / n;
  const float* px = x.data<float>();
  float* py = y.data<float>();
  for (dim_t r = 0; r < rows; ++r) {
    const float* in = px + r * n;
    float* out = py + r * n;
    const dim_t v = visible ? std::min<dim_t>(visible->data<std::int32_t>()[r], n) : n;
    double max = -INFINITY;
    for (dim_t i = 0; i < v; ++i) max = std::max<double>(max, in[i]);
    double sum = 0.0;
    for (dim_t i = 0; i < v; ++i) sum += std::exp(in[i] - max);
    for (dim_t i = 0; i < n; ++i) {
      if (i >= v)
        out[i] = 0.0f;
      else if (log)
        out[i] = static_cast<float>(in[i] - max - std::log(sum));
      else
        out[i] = static_cast<float>(std::exp(in[i] - max) / sum);
    }
  }
}

}  // namespace

void softmax(const Tensor& x, Tensor& y, const Tensor* visible) {
  if (!detail::prepare_softmax(x, y, visible, "softmax")) return;
  softmax_rows(x, y, visible, /*log=*/false);
}

void log_softmax(const Tensor& x, Tensor& y) {
  if (!detail::prepare_softmax(x, y, nullptr, "log_softmax")) return;
  softmax_rows(x, y, nullptr, /*log=*/true);
}

}  // namespace s2s::ops::ref
