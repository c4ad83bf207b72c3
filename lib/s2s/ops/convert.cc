// convert: argument checks and the loops themselves (see convert.h); oneDNN's reorder would do
// it too, but flushes denormals in its bf16 conversion, and a primitive per call costs more than
// the few kilobytes a decoder step converts.
#include "s2s/ops/convert.h"

#include <cstring>

#include "s2s/core/bfloat16.h"
#include "s2s/ops/detail.h"

namespace s2s::ops {

namespace {

S2S_DISPATCHED(void, convert_row_to_bf16, (const float* x, dim_t n, bfloat16_bits* out), (x, n, out)) {
#pragma omp simd
  for (dim_t i = 0; i < n; ++i) out[i] = float_to_bf16(x[i]);
}

S2S_DISPATCHED(void, convert_row_to_f32, (const bfloat16_bits* x, dim_t n, float* out), (x, n, out)) {
#pragma omp simd
  for (dim_t i = 0; i < n; ++i) out[i] = bf16_to_float(x[i]);
}

}  // namespace

void convert(const Tensor& x, DataType to, Tensor& y) {
  const auto check_type = [](DataType t, const char* what) {
    S2S_CHECK(t == DataType::f32 || t == DataType::bf16, what, " is ", dtype_name(t),
              ", expected float32 or bfloat16");
  };
  check_type(x.dtype(), "convert x");
  check_type(to, "convert y");
  S2S_CHECK(x.rank() >= 1, "convert x needs at least one axis");
  S2S_CHECK(&y != &x, "convert output must not be its input");
  detail::prepare_output(y, x.shape(), to, "convert y");
  if (y.empty()) return;
  S2S_CHECK(x.strides().back() == 1 && y.strides().back() == 1,
            "convert needs a contiguous last axis (x strides ", to_string(x.strides()),
            ", y strides ", to_string(y.strides()), ")");
  const int outer = x.rank() - 1;
  const dim_t rows = detail::batch_count(x, outer), cols = x.dim(-1);
  const auto* from = static_cast<const char*>(x.raw());
  auto* into = static_cast<char*>(y.raw());
  const std::size_t in_size = dtype_size(x.dtype()), out_size = dtype_size(to);
#pragma omp parallel for schedule(static) if (rows > 1 && rows * cols >= detail::kParallelElements)
  for (dim_t r = 0; r < rows; ++r) {
    const char* in = from + detail::batch_offset(x, outer, r) * in_size;
    char* out = into + detail::batch_offset(y, outer, r) * out_size;
    if (x.dtype() == to)
      std::memcpy(out, in, static_cast<std::size_t>(cols) * in_size);
    else if (to == DataType::bf16)
      convert_row_to_bf16(reinterpret_cast<const float*>(in), cols,
                                  reinterpret_cast<bfloat16_bits*>(out));
    else
      convert_row_to_f32(reinterpret_cast<const bfloat16_bits*>(in), cols,
                                 reinterpret_cast<float*>(out));
  }
}

}  // namespace s2s::ops
