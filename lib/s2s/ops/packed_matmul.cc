// PackedMatmul: checks of the weight at construction and of x/y per call (see packed_matmul.h).
// The constructor and operator() themselves live in packed_matmul_dnnl.cc, next to the oneDNN
// objects of PackedMatmul::Impl that they build and run.
#include "s2s/ops/detail.h"
#include "s2s/ops/packed_matmul.h"

namespace s2s::ops::detail {

PackedDims check_packed_weight(const Tensor& weight, WeightLayout layout, const Tensor* bias) {
  check_dtype(weight, DataType::f32, "packed matmul weight");
  S2S_CHECK(weight.rank() == 2, "packed matmul weight must be 2-D, got ",
            to_string(weight.shape()));
  check_contiguous(weight, "packed matmul weight");
  PackedDims dims;
  dims.in = layout == WeightLayout::in_out ? weight.dim(0) : weight.dim(1);
  dims.out = layout == WeightLayout::in_out ? weight.dim(1) : weight.dim(0);
  S2S_CHECK(dims.in > 0 && dims.out > 0, "packed matmul weight ", to_string(weight.shape()),
            " has an empty dimension");
  if (bias) {
    check_dtype(*bias, DataType::f32, "packed matmul bias");
    S2S_CHECK(bias->shape() == Shape{dims.out}, "packed matmul bias is ", to_string(bias->shape()),
              ", expected [", dims.out, "] for weight ", to_string(weight.shape()));
    check_contiguous(*bias, "packed matmul bias");
  }
  return dims;
}

// x [..., K] -> y [..., N].
bool prepare_packed_matmul(const Tensor& x, Tensor& y, dim_t in, dim_t out) {
  S2S_CHECK(in > 0, "packed matmul called before it was given a weight");
  check_dtype(x, DataType::f32, "packed matmul x");
  S2S_CHECK(x.rank() >= 1 && x.dim(-1) == in, "packed matmul x is ", to_string(x.shape()),
            ", expected [..., ", in, "]");
  check_contiguous(x, "packed matmul x");
  S2S_CHECK(&x != &y, "packed matmul output must not be its input");
  Shape shape = x.shape();
  shape.back() = out;
  prepare_output(y, shape, DataType::f32, "packed matmul y");
  check_contiguous(y, "packed matmul y");
  return !y.empty();
}

}  // namespace s2s::ops::detail
