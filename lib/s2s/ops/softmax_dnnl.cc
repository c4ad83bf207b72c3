// softmax and log_softmax over the last axis, on the oneDNN softmax primitive.
//
// log_softmax does not use oneDNN's logsoftmax: in oneDNN 2.6 it (and softmax_v2's softmax_log)
// computes log(sum) with an approximation that shifts each row by up to ~5e-6 (log_softmax of a
// one-entry row gives 1.4e-6 instead of 0). The softmax itself is accurate, and at the row maximum
// j it equals exp(0) / sum, so
//   log_softmax(x)_i = (x_i - max(x)) - log(sum),  with  log(sum) = -log(max(softmax(x))),
// one std::log per row and a vectorisable pass. (x_i - max(x)) comes first so that large logits
// lose no precision. The softmax goes to a thread-local buffer a few
// rows at a time, so x is still intact for that pass even when y is x.
#include <algorithm>
#include <cmath>

#include "s2s/ops/detail.h"
#include "s2s/ops/primitive_cache.h"

namespace s2s::ops::detail {

namespace {

// Rows per log_softmax chunk are chosen so that a chunk holds about this many floats (1 MB).
constexpr dim_t kChunkElements = dim_t{1} << 18;

// softmax of x [rows, N] into y [rows, N] (contiguous; y may be x).
void run_softmax(const Tensor& x, const Tensor& y) {
  const dnnl::memory::desc md = backend::desc_of(x);
  const Primitive p = cached_primitive("softmax " + key_of(md), [&] {
    const dnnl::softmax_forward::desc desc(dnnl::prop_kind::forward_inference, md, 1);
    return make_primitive<dnnl::softmax_forward>(
        dnnl::softmax_forward::primitive_desc(desc, default_attr(), backend::engine()));
  });
  execute(p, {{DNNL_ARG_SRC, backend::memory_of(x, md)},
              {DNNL_ARG_DST, backend::memory_of(y, backend::desc_of(y))}});
}

// Maximum of p[0, n), n >= 1; sixteen running maxima so the compiler can vectorise the loop.
float row_max(const float* p, dim_t n) {
  constexpr int kLanes = 16;
  float lanes[kLanes];
  std::fill(lanes, lanes + kLanes, p[0]);
  dim_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int k = 0; k < kLanes; ++k) lanes[k] = lanes[k] < p[i + k] ? p[i + k] : lanes[k];
  float m = *std::max_element(lanes, lanes + kLanes);
  for (; i < n; ++i) m = std::max(m, p[i]);
  return m;
}

}  // namespace

// x, y: f32 [..., N] contiguous, seen as [rows, N]; y may be x.
void softmax_dnnl(const Tensor& x, Tensor& y) {
  const Shape rows_n{x.numel() / x.dim(-1), x.dim(-1)};
  run_softmax(x.reshaped(rows_n), y.reshaped(rows_n));
}

void log_softmax_dnnl(const Tensor& x, Tensor& y) {
  const dim_t n = x.dim(-1);
  const dim_t rows = x.numel() / n;
  const dim_t chunk = std::max<dim_t>(1, kChunkElements / n);
  const Tensor x_rows = x.reshaped({rows, n});
  thread_local Tensor probs;  // [chunk rows, N]
  for (dim_t first = 0; first < rows; first += chunk) {
    const dim_t count = std::min(chunk, rows - first);
    probs.resize({count, n});
    run_softmax(x_rows.slice(0, first, first + count), probs);
    for (dim_t r = 0; r < count; ++r) {
      const float* in = x.data<float>() + (first + r) * n;
      float* out = y.data<float>() + (first + r) * n;
      const float max = row_max(in, n);
      const float log_sum = -std::log(row_max(probs.data<float>() + r * n, n));
      for (dim_t i = 0; i < n; ++i) out[i] = (in[i] - max) - log_sum;
    }
  }
}

}  // namespace s2s::ops::detail
