#include "s2s/layers/attention.h"

#include <cmath>

#include "s2s/ops/matmul.h"
#include "s2s/ops/softmax.h"
#include "s2s/ops/transpose.h"

namespace s2s::layers {

MultiHeadAttention::MultiHeadAttention(WeightStore& weights, const std::string& prefix,
                                       dim_t d_model, dim_t heads)
    : q_(weights, prefix + "/q", d_model, d_model),
      k_(weights, prefix + "/k", d_model, d_model),
      v_(weights, prefix + "/v", d_model, d_model),
      o_(weights, prefix + "/o", d_model, d_model),
      heads_(heads),
      scale_(1.0f / std::sqrt(static_cast<float>(d_model / heads))) {}

void MultiHeadAttention::project_kv(const Tensor& memory, Tensor& keys, Tensor& values,
                                    AttentionScratch& s) const {
  k_(memory, s.projected);
  ops::split_heads(s.projected, heads_, keys);
  v_(memory, s.projected);
  ops::split_heads(s.projected, heads_, values);
}

void MultiHeadAttention::attend(const Tensor& x, const Tensor& keys, const Tensor& values,
                                const Tensor* visible, AttentionScratch& s, Tensor& out) const {
  q_(x, s.projected);
  ops::split_heads(s.projected, heads_, s.queries);
  ops::MatmulOptions scaled;
  scaled.transpose_b = true;
  scaled.alpha = scale_;  // Marian scales the product, not the queries
  ops::matmul(s.queries, keys, s.scores, scaled);
  ops::softmax(s.scores, s.scores, visible);
  ops::matmul(s.scores, values, s.context);
  ops::merge_heads(s.context, s.merged);
  o_(s.merged, out);
}

}  // namespace s2s::layers
