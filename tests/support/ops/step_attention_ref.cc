// Reference step_attention: the formula of step_attention.h head by head, in double.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "s2s/core/bfloat16.h"
#include "s2s/ops/detail.h"
#include "support/ops_ref.h"
#include "s2s/ops/step_attention.h"

namespace s2s::ops::ref {

void step_attention(const Tensor& queries, const Tensor& keys, const Tensor& values,
                    const StepAttentionRows& rows, float scale, Tensor& scores, Tensor& out) {
  const detail::StepAttentionDims d =
      detail::prepare_step_attention(queries, keys, values, rows, scores, out);
  const Shape& ks = keys.strides();
  const Shape& vs = values.strides();
  // Element i of the keys or values, whichever type the caches hold.
  const auto element = [](const Tensor& t, dim_t i) -> double {
    if (t.dtype() == DataType::bf16)
      return bf16_to_float(static_cast<const bfloat16_bits*>(t.raw())[i]);
    return t.data<float>()[i];
  };
  for (dim_t r = 0; r < d.rows; ++r) {
    // The cache that row r reads key j from.
    const auto cache = [&](dim_t j) -> dim_t {
      if (rows.cache_of_key)
        return rows.cache_of_key->data<std::int32_t>()[r * d.key_table_stride + j];
      return rows.cache_of_row ? rows.cache_of_row->data<std::int32_t>()[r] : r;
    };
    const dim_t n =
        rows.visible ? std::min<dim_t>(rows.visible->data<std::int32_t>()[r], d.keys) : d.keys;
    for (dim_t h = 0; h < d.heads; ++h) {
      const float* q = queries.data<float>() + r * d.query_stride + h * d.head_dim;
      std::vector<double> p(static_cast<std::size_t>(n));
      for (dim_t j = 0; j < n; ++j) {
        const dim_t key = cache(j) * ks[0] + h * ks[1] + j * ks[2];
        double dot = 0.0;
        for (dim_t i = 0; i < d.head_dim; ++i) dot += q[i] * element(keys, key + i);
        p[j] = dot * scale;
      }
      const double max = n > 0 ? *std::max_element(p.begin(), p.end()) : 0.0;
      double sum = 0.0;
      for (double& x : p) sum += (x = std::exp(x - max));
      float* probabilities = scores.data<float>() + (r * d.heads + h) * d.keys;
      for (dim_t j = 0; j < n; ++j) probabilities[j] = static_cast<float>(p[j] / sum);
      float* o = out.data<float>() + (r * d.heads + h) * d.head_dim;
      for (dim_t i = 0; i < d.head_dim; ++i) {
        double acc = 0.0;
        for (dim_t j = 0; j < n; ++j)
          acc += p[j] * element(values, cache(j) * vs[0] + h * vs[1] + j * vs[2] + i);
        o[i] = n > 0 ? static_cast<float>(acc / sum) : 0.0f;
      }
    }
  }
}

}  // namespace s2s::ops::ref
