// activation with the oneDNN eltwise primitive, add with the binary primitive.
#include "s2s/ops/detail.h"
#include "s2s/ops/primitive_cache.h"

namespace s2s::ops::detail {

namespace {

// alpha is the algorithm's parameter: the negative slope for relu, beta in x·sigmoid(beta·x).
void eltwise_params(Activation act, dnnl::algorithm& algorithm, float& alpha) {
  switch (act) {
    case Activation::relu: algorithm = dnnl::algorithm::eltwise_relu; alpha = 0.0f; return;
    case Activation::swish: algorithm = dnnl::algorithm::eltwise_swish; alpha = 1.0f; return;
    case Activation::gelu: algorithm = dnnl::algorithm::eltwise_gelu_erf; alpha = 0.0f; return;
    case Activation::identity: break;  // handled without oneDNN by activation()
  }
  throw InternalError("no oneDNN eltwise for activation " + std::to_string(static_cast<int>(act)));
}

}  // namespace

// x, y: f32 contiguous, same shape, seen as one row; y may be x.
void activation_dnnl(Activation act, const Tensor& x, Tensor& y) {
  dnnl::algorithm algorithm;
  float alpha;
  eltwise_params(act, algorithm, alpha);
  const Shape flat{x.numel()};
  const dnnl::memory::desc md = backend::desc_as(x, flat);
  const std::string key = "eltwise " + std::to_string(static_cast<int>(act)) + " " + key_of(md);
  const Primitive p = cached_primitive(key, [&] {
    const dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference, algorithm, md,
                                           alpha, 0.0f);
    return make_primitive<dnnl::eltwise_forward>(
        dnnl::eltwise_forward::primitive_desc(desc, default_attr(), backend::engine()));
  });
  execute(p, {{DNNL_ARG_SRC, backend::memory_of(x, md)},
              {DNNL_ARG_DST, backend::memory_of(y, backend::desc_as(y, flat))}},
          y.numel());
}

// a, c: [L·S] seen as [L, S]; b: [S] seen as [1, S] and broadcast over the L rows.
void add_dnnl(const Tensor& a, const Tensor& b, Tensor& c, float a_scale) {
  const dim_t s = b.numel();
  const dim_t l = a.numel() / s;
  const dnnl::memory::desc full = backend::desc_as(a, {l, s});
  const dnnl::memory::desc row = backend::desc_as(b, {1, s});
  // oneDNN runs in place only on src0. When c is b (then b has a's shape), swap the operands:
  // c = b + a_scale·a, with the scale on src1.
  const bool swapped = c.raw() == b.raw() && c.raw() != a.raw();
  const dnnl::memory::desc& src1_md = swapped ? full : row;
  const std::string key = std::string(swapped ? "add swapped " : "add ") + key_of(full) +
                          key_of(src1_md) + key_of(a_scale);
  const Primitive p = cached_primitive(key, [&] {
    dnnl::primitive_attr attr = default_attr();
    if (a_scale != 1.0f) attr.set_scales(swapped ? DNNL_ARG_SRC_1 : DNNL_ARG_SRC_0, 0, {a_scale});
    const dnnl::binary::desc desc(dnnl::algorithm::binary_add, full, src1_md, full);
    return make_primitive<dnnl::binary>(
        dnnl::binary::primitive_desc(desc, attr, backend::engine()));
  });
  dnnl::memory a_mem = backend::memory_of(a, full);
  dnnl::memory b_mem = backend::memory_of(b, swapped ? full : row);
  execute(p, {{DNNL_ARG_SRC_0, swapped ? b_mem : a_mem},
              {DNNL_ARG_SRC_1, swapped ? a_mem : b_mem},
              {DNNL_ARG_DST, backend::memory_of(c, backend::desc_as(c, {l, s}))}},
          c.numel());
}

}  // namespace s2s::ops::detail
