// Reference matmul: plain loops over the strides, accumulating in double (see matmul.h).
#include "s2s/ops/detail.h"
#include "support/ops_ref.h"
#include "s2s/ops/matmul.h"

namespace s2s::ops::ref {

void matmul(const Tensor& a, const Tensor& b, Tensor& c, const MatmulOptions& options) {
  if (!detail::prepare_matmul(a, b, c, options)) return;
  const int batch_rank = a.rank() - 2;
  const dim_t m_size = a.dim(-2);
  const dim_t k_size = a.dim(-1);
  const dim_t n_size = c.dim(-1);
  // Element strides of a [M, K], b seen as [K, N] and c [M, N].
  const dim_t a_m = a.strides()[batch_rank], a_k = a.strides()[batch_rank + 1];
  const int br = b.rank();
  const dim_t b_k = options.transpose_b ? b.strides()[br - 1] : b.strides()[br - 2];
  const dim_t b_n = options.transpose_b ? b.strides()[br - 2] : b.strides()[br - 1];
  const dim_t c_m = c.strides()[batch_rank], c_n = c.strides()[batch_rank + 1];

  const float* pa = a.data<float>();
  const float* pb = b.data<float>();
  const float* bias = options.bias ? options.bias->data<float>() : nullptr;
  float* pc = c.data<float>();
  for (dim_t batch = 0; batch < detail::batch_count(a, batch_rank); ++batch) {
    const float* ab = pa + detail::batch_offset(a, batch_rank, batch);
    const float* bb = br == 2 ? pb : pb + detail::batch_offset(b, batch_rank, batch);
    float* cb = pc + detail::batch_offset(c, batch_rank, batch);
    for (dim_t m = 0; m < m_size; ++m) {
      for (dim_t n = 0; n < n_size; ++n) {
        double sum = 0.0;
        for (dim_t k = 0; k < k_size; ++k)
          sum += static_cast<double>(ab[m * a_m + k * a_k]) * bb[k * b_k + n * b_n];
        double value = options.alpha * sum;
        if (bias) value += bias[n];
        cb[m * c_m + n * c_n] = static_cast<float>(value);
      }
    }
  }
}

}  // namespace s2s::ops::ref
