// matmul on the oneDNN matmul primitive, over the tensors' own strides (see matmul.h).
#include <algorithm>

#include "s2s/ops/detail.h"
#include "s2s/ops/primitive_cache.h"

namespace s2s::ops::detail {

namespace {

using dnnl::memory;

memory::desc f32_desc(const memory::dims& dims, const memory::dims& strides) {
  return memory::desc(dims, memory::data_type::f32, strides);
}

// Folds dims [0, rank-2] of t ([..., M, X]) into one row dim when the rows are evenly spaced in
// memory, as they are for a contiguous tensor or a row slice of one: [B, T, D] -> [B·T, D].
bool fold_rows(const Tensor& t, dim_t& rows, dim_t& row_stride) {
  const int r = t.rank();
  rows = t.shape()[r - 2];
  row_stride = t.strides()[r - 2];
  for (int i = r - 3; i >= 0; --i) {
    const dim_t n = t.shape()[i];
    if (n == 1) continue;
    if (rows == 1) {
      rows = n;
      row_stride = t.strides()[i];
    } else if (t.strides()[i] == row_stride * rows) {
      rows *= n;
    } else {
      return false;
    }
  }
  return true;
}

struct Descs {
  memory::desc src, weights, dst, bias;
};

Descs describe(const Tensor& a, const Tensor& b, const Tensor& c, const MatmulOptions& options) {
  const int br = b.rank();
  const dim_t k = a.dim(-1);
  const dim_t n = c.dim(-1);
  // b is read as [K, N]; with transpose_b its [N, K] strides are swapped instead of copying it.
  const dim_t b_k = options.transpose_b ? b.strides()[br - 1] : b.strides()[br - 2];
  const dim_t b_n = options.transpose_b ? b.strides()[br - 2] : b.strides()[br - 1];
  Descs d;
  dim_t a_rows, a_row_stride, c_rows, c_row_stride;
  if (br == 2 && fold_rows(a, a_rows, a_row_stride) && fold_rows(c, c_rows, c_row_stride)) {
    // One weight matrix for the whole batch: a single 2-D product is the fastest form.
    d.src = f32_desc({a_rows, k}, {a_row_stride, a.strides().back()});
    d.weights = f32_desc({k, n}, {b_k, b_n});
    d.dst = f32_desc({c_rows, n}, {c_row_stride, c.strides().back()});
  } else {
    const int r = a.rank();
    d.src = backend::desc_of(a);
    d.dst = backend::desc_of(c);
    // A 2-D b gets batch dims of size 1, which oneDNN broadcasts over a's batch.
    memory::dims dims(r), strides(r);
    for (int i = 0; i < r - 2; ++i) {
      dims[i] = br == 2 ? 1 : b.shape()[i];
      strides[i] = br == 2 ? std::max<dim_t>(k * n, 1) : b.strides()[i];
    }
    dims[r - 2] = k;
    dims[r - 1] = n;
    strides[r - 2] = b_k;
    strides[r - 1] = b_n;
    d.weights = f32_desc(dims, strides);
  }
  // bias [N] seen as [1, ..., 1, N], the rank of dst.
  const int dst_rank = d.dst.data.ndims;
  memory::dims bias_dims(dst_rank, 1), bias_strides(dst_rank, n);
  bias_dims.back() = n;
  bias_strides.back() = 1;
  d.bias = f32_desc(bias_dims, bias_strides);
  return d;
}

}  // namespace

void matmul_dnnl(const Tensor& a, const Tensor& b, Tensor& c, const MatmulOptions& options) {
  const Descs d = describe(a, b, c, options);
  const bool scaled = options.alpha != 1.0f;
  // oneDNN 2.6 applies output scales after the bias (alpha·(a·b + bias)); to get alpha·a·b + bias
  // a scaled product takes its bias through a binary-add post-op instead.
  const bool bias_as_post_op = options.bias && scaled;
  const bool bias_as_arg = options.bias && !scaled;

  const std::string key = "matmul " + key_of(d.src) + key_of(d.weights) + key_of(d.dst) +
                          (options.bias ? " bias " : " ") + key_of(options.alpha);
  const Primitive p = cached_primitive(key, [&] {
    dnnl::primitive_attr attr = default_attr();
    if (scaled) attr.set_output_scales(0, {options.alpha});
    if (bias_as_post_op) {
      dnnl::post_ops ops;
      ops.append_binary(dnnl::algorithm::binary_add, d.bias);
      attr.set_post_ops(ops);
    }
    const auto desc = bias_as_arg ? dnnl::matmul::desc(d.src, d.weights, d.bias, d.dst)
                                  : dnnl::matmul::desc(d.src, d.weights, d.dst);
    return make_primitive<dnnl::matmul>(
        dnnl::matmul::primitive_desc(desc, attr, backend::engine()));
  });

  std::unordered_map<int, memory> args{
      {DNNL_ARG_SRC, backend::memory_of(a, d.src)},
      {DNNL_ARG_WEIGHTS, backend::memory_of(b, d.weights)},
      {DNNL_ARG_DST, backend::memory_of(c, d.dst)},
  };
  if (bias_as_arg) args.emplace(DNNL_ARG_BIAS, backend::memory_of(*options.bias, d.bias));
  if (bias_as_post_op)
    args.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1,
                 backend::memory_of(*options.bias, d.bias));
  execute(p, std::move(args));
}

}  // namespace s2s::ops::detail
