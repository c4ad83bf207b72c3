// activation and add: argument checks, output sizing and dispatch to oneDNN (see elementwise.h).
#include "s2s/ops/elementwise.h"

#include "s2s/ops/detail.h"

namespace s2s::ops {

namespace detail {

bool prepare_activation(const Tensor& x, Tensor& y) {
  check_dtype(x, DataType::f32, "activation x");
  check_contiguous(x, "activation x");
  prepare_output(y, x.shape(), DataType::f32, "activation y");
  check_contiguous(y, "activation y");
  return !y.empty();
}

// a [...], b [suffix of a's shape], c like a.
bool prepare_add(const Tensor& a, const Tensor& b, Tensor& c) {
  check_dtype(a, DataType::f32, "add a");
  check_dtype(b, DataType::f32, "add b");
  check_contiguous(a, "add a");
  check_contiguous(b, "add b");
  const int offset = a.rank() - b.rank();
  S2S_CHECK(offset >= 0 && Shape(a.shape().begin() + offset, a.shape().end()) == b.shape(),
            "add b ", to_string(b.shape()), " must equal a ", to_string(a.shape()),
            " or a suffix of it");
  // Resizing c when it is a broadcast b would destroy b before it is read.
  S2S_CHECK(&c != &b || b.shape() == a.shape(), "add output may be b only when b ",
            to_string(b.shape()), " has the shape of a ", to_string(a.shape()));
  prepare_output(c, a.shape(), DataType::f32, "add c");
  check_contiguous(c, "add c");
  return !c.empty();
}

}  // namespace detail

void activation(Activation act, const Tensor& x, Tensor& y) {
  if (!detail::prepare_activation(x, y)) return;
  if (act == Activation::identity) {
    if (y.raw() != x.raw()) y.copy_from(x);
    return;
  }
  detail::activation_dnnl(act, x, y);
}

void add(const Tensor& a, const Tensor& b, Tensor& c, float a_scale) {
  if (!detail::prepare_add(a, b, c)) return;
  detail::add_dnnl(a, b, c, a_scale);
}

}  // namespace s2s::ops
