// Helpers shared by the ops' argument checks and reference loops (see detail.h).
#include "s2s/ops/detail.h"

namespace s2s::ops::detail {

void prepare_output(Tensor& out, const Shape& shape, DataType dtype, const char* what) {
  // A default-constructed tensor (no buffer, no data) is resized like an owned one.
  if (out.owns_buffer() || out.raw() == nullptr) {
    out.resize(shape, dtype);
    return;
  }
  S2S_CHECK(out.shape() == shape && out.dtype() == dtype, what, ": output view is ",
            to_string(out.shape()), " ", dtype_name(out.dtype()), ", expected ", to_string(shape),
            " ", dtype_name(dtype));
}

void check_dtype(const Tensor& t, DataType dtype, const char* what) {
  S2S_CHECK(t.dtype() == dtype, what, " is ", dtype_name(t.dtype()), ", expected ",
            dtype_name(dtype));
}

void check_contiguous(const Tensor& t, const char* what) {
  S2S_CHECK(t.is_contiguous(), what, " must be contiguous (shape ", to_string(t.shape()),
            ", strides ", to_string(t.strides()), ")");
}

dim_t batch_count(const Tensor& t, int batch_rank) {
  dim_t n = 1;
  for (int i = 0; i < batch_rank; ++i) n *= t.shape()[i];
  return n;
}

dim_t batch_offset(const Tensor& t, int batch_rank, dim_t index) {
  dim_t offset = 0;
  for (int i = batch_rank - 1; i >= 0; --i) {
    const dim_t n = t.shape()[i];
    offset += (index % n) * t.strides()[i];
    index /= n;
  }
  return offset;
}

}  // namespace s2s::ops::detail
