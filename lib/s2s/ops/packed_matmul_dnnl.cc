// PackedMatmul on a oneDNN matmul primitive with a runtime row count (see packed_matmul.h).
//
// The primitive is created once, with src [M, K] where M = DNNL_RUNTIME_DIM_VAL and weights [K, N]
// in format_tag::any, so oneDNN picks its preferred weight layout; the weight is reordered into
// that layout once, here, and every call only wraps x and y.
#include <cstring>

#include "s2s/ops/detail.h"
#include "s2s/ops/flop_counter.h"
#include "s2s/ops/packed_matmul.h"
#include "s2s/ops/primitive_cache.h"

namespace s2s::ops {

using dnnl::memory;

struct PackedMatmul::Impl {
  detail::Primitive matmul;
  memory weights;  // [K, N] in the primitive's layout, owned by oneDNN
  memory bias;     // [1, N] copy; null when there is no bias
};

PackedMatmul::PackedMatmul(const Tensor& weight, WeightLayout layout, const Tensor* bias) {
  const detail::PackedDims dims = detail::check_packed_weight(weight, layout, bias);
  const dim_t k = dims.in;
  const dim_t n = dims.out;
  using tag = memory::format_tag;
  const auto f32 = memory::data_type::f32;
  const memory::desc x_md({DNNL_RUNTIME_DIM_VAL, k}, f32, tag::ab);
  const memory::desc w_md({k, n}, f32, tag::any);
  const memory::desc bias_md({1, n}, f32, tag::ab);
  const memory::desc y_md({DNNL_RUNTIME_DIM_VAL, n}, f32, tag::ab);
  const auto desc = bias ? dnnl::matmul::desc(x_md, w_md, bias_md, y_md)
                         : dnnl::matmul::desc(x_md, w_md, y_md);
  const dnnl::matmul::primitive_desc pd(desc, detail::default_attr(), backend::engine());

  auto impl = std::make_shared<Impl>();
  impl->matmul = detail::make_primitive<dnnl::matmul>(pd);
  // The stored weight seen as [K, N]: row-major for in_out, column-major ([N, K] rows) for out_in.
  const memory::desc stored_md({k, n}, f32, layout == WeightLayout::in_out ? tag::ab : tag::ba);
  memory stored(stored_md, backend::engine(), const_cast<void*>(weight.raw()));
  impl->weights = memory(pd.weights_desc(), backend::engine());
  dnnl::reorder(stored, impl->weights).execute(backend::stream(), stored, impl->weights);
  backend::stream().wait();
  if (bias) {
    impl->bias = memory(bias_md, backend::engine());
    std::memcpy(impl->bias.get_data_handle(), bias->raw(), bias->nbytes());
  }
  impl_ = std::move(impl);
  in_ = k;
  out_ = n;
}

void PackedMatmul::operator()(const Tensor& x, Tensor& y) const {
  if (!detail::prepare_packed_matmul(x, y, in_, out_)) return;
  const dim_t rows = x.numel() / in_;
  const auto f32 = memory::data_type::f32;
  const memory::desc x_md({rows, in_}, f32, memory::format_tag::ab);
  const memory::desc y_md({rows, out_}, f32, memory::format_tag::ab);
  std::unordered_map<int, memory> args{
      {DNNL_ARG_SRC, backend::memory_of(x, x_md)},
      {DNNL_ARG_WEIGHTS, impl_->weights},
      {DNNL_ARG_DST, backend::memory_of(y, y_md)},
  };
  if (impl_->bias) args.emplace(DNNL_ARG_BIAS, impl_->bias);
  detail::execute(impl_->matmul, std::move(args));
  flop_counter::add(2 * rows * in_ * out_);
}

}  // namespace s2s::ops
