// layer_norm with the oneDNN layer_normalization_forward primitive (scale and shift).
#include "s2s/ops/detail.h"
#include "s2s/ops/primitive_cache.h"

namespace s2s::ops::detail {

// x, y: f32 [..., D] contiguous, seen as [rows, D]; y may be x (oneDNN runs in place).
void layer_norm_dnnl(const Tensor& x, const Tensor& scale, const Tensor& bias, float epsilon,
                     Tensor& y) {
  const dim_t d = x.dim(-1);
  const Shape rows_d{x.numel() / d, d};
  const dnnl::memory::desc md = backend::desc_as(x, rows_d);
  const std::string key = "layer_norm " + key_of(md) + " " + key_of(epsilon);
  const Primitive p = cached_primitive(key, [&] {
    const auto flags = dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift;
    const dnnl::layer_normalization_forward::desc desc(dnnl::prop_kind::forward_inference, md,
                                                       epsilon, flags);
    return make_primitive<dnnl::layer_normalization_forward>(
        dnnl::layer_normalization_forward::primitive_desc(desc, default_attr(),
                                                          backend::engine()));
  });
  execute(p, {{DNNL_ARG_SRC, backend::memory_of(x, md)},
              {DNNL_ARG_SCALE, backend::memory_of(scale)},
              {DNNL_ARG_SHIFT, backend::memory_of(bias)},
              {DNNL_ARG_DST, backend::memory_of(y, backend::desc_as(y, rows_d))}},
          y.numel());
}

}  // namespace s2s::ops::detail
