// split_heads / merge_heads as one oneDNN reorder between two strided descriptors: the [B, T, D]
// side is described as [B, H, T, Dh] with permuted strides, so no data moves twice.
#include "s2s/ops/detail.h"
#include "s2s/ops/primitive_cache.h"

namespace s2s::ops::detail {

namespace {

// rows [B, T, H·Dh] (any strides) described as [B, H, T, Dh].
dnnl::memory::desc rows_as_heads(const Tensor& rows, dim_t heads) {
  const dim_t dh = rows.dim(2) / heads;
  const Shape& s = rows.strides();
  return dnnl::memory::desc({rows.dim(0), heads, rows.dim(1), dh}, backend::dnnl_type(rows.dtype()),
                            {s[0], dh * s[2], s[1], s[2]});
}

void reorder(const Tensor& src, const dnnl::memory::desc& src_md, const Tensor& dst,
             const dnnl::memory::desc& dst_md) {
  const Primitive p = cached_primitive("reorder " + key_of(src_md) + key_of(dst_md), [&] {
    auto& engine = backend::engine();
    return make_primitive<dnnl::reorder>(
        dnnl::reorder::primitive_desc(engine, src_md, engine, dst_md, default_attr()));
  });
  execute(p, {{DNNL_ARG_FROM, backend::memory_of(src, src_md)},
              {DNNL_ARG_TO, backend::memory_of(dst, dst_md)}},
          dst.numel());
}

}  // namespace

void split_heads_dnnl(const Tensor& x, dim_t heads, Tensor& y) {
  reorder(x, rows_as_heads(x, heads), y, backend::desc_of(y));
}

void merge_heads_dnnl(const Tensor& x, Tensor& y) {
  reorder(x, backend::desc_of(x), y, rows_as_heads(y, x.dim(1)));
}

}  // namespace s2s::ops::detail
