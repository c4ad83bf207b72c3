// matmul: argument checks, output sizing and dispatch to oneDNN (see matmul.h).
#include "s2s/ops/matmul.h"

#include "s2s/ops/detail.h"
#include "s2s/ops/flop_counter.h"

namespace s2s::ops {

namespace detail {

// a [..., M, K], b [K, N] or [..., K, N] ([..., N, K] with transpose_b), c [..., M, N].
bool prepare_matmul(const Tensor& a, const Tensor& b, Tensor& c, const MatmulOptions& options) {
  check_dtype(a, DataType::f32, "matmul a");
  check_dtype(b, DataType::f32, "matmul b");
  S2S_CHECK(a.rank() >= 2 && b.rank() >= 2, "matmul needs matrices, got a ", to_string(a.shape()),
            " and b ", to_string(b.shape()));
  S2S_CHECK(b.rank() == 2 || b.rank() == a.rank(), "matmul b ", to_string(b.shape()),
            " must be 2-D or have the rank of a ", to_string(a.shape()));
  // c is resized below; if it were an input, that input would be overwritten.
  S2S_CHECK(&c != &a && &c != &b, "matmul output must not be one of its inputs");

  const int batch_rank = a.rank() - 2;
  for (int i = 0; b.rank() > 2 && i < batch_rank; ++i)
    S2S_CHECK(a.shape()[i] == b.shape()[i], "matmul batch dims differ: a ", to_string(a.shape()),
              ", b ", to_string(b.shape()));
  const dim_t m = a.dim(-2);
  const dim_t k = a.dim(-1);
  const dim_t b_k = options.transpose_b ? b.dim(-1) : b.dim(-2);
  const dim_t n = options.transpose_b ? b.dim(-2) : b.dim(-1);
  S2S_CHECK(k == b_k, "matmul inner dims differ: a ", to_string(a.shape()), " has K = ", k, ", b ",
            to_string(b.shape()), (options.transpose_b ? " (transposed)" : ""), " has K = ", b_k);
  if (options.bias) {
    check_dtype(*options.bias, DataType::f32, "matmul bias");
    S2S_CHECK(options.bias->shape() == Shape{n}, "matmul bias is ",
              to_string(options.bias->shape()), ", expected [", n, "]");
    check_contiguous(*options.bias, "matmul bias");
  }

  Shape out(a.shape().begin(), a.shape().begin() + batch_rank);
  out.push_back(m);
  out.push_back(n);
  prepare_output(c, out, DataType::f32, "matmul c");
  return !c.empty();
}

}  // namespace detail

void matmul(const Tensor& a, const Tensor& b, Tensor& c, const MatmulOptions& options) {
  if (!detail::prepare_matmul(a, b, c, options)) return;
  detail::matmul_dnnl(a, b, c, options);
  flop_counter::add(2 * c.numel() * a.dim(-1));  // c [..., M, N], K = a.dim(-1)
}

}  // namespace s2s::ops
