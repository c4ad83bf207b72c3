#include "s2s/layers/attention.h"

#include <cmath>

#include "s2s/ops/elementwise.h"
#include "s2s/ops/matmul.h"
#include "s2s/ops/relative_position.h"
#include "s2s/ops/softmax.h"
#include "s2s/ops/transpose.h"

namespace s2s::layers {

MultiHeadAttention::MultiHeadAttention(WeightStore& weights, const std::string& prefix,
                                       AttentionKind kind, dim_t d_model, dim_t heads,
                                       dim_t relative_max_distance)
    : o_(weights, prefix + "/o", d_model, d_model),
      d_model_(d_model),
      heads_(heads),
      scale_(1.0f / std::sqrt(static_cast<float>(d_model / heads))),
      max_distance_(relative_max_distance) {
  if (kind == AttentionKind::self) {
    projections_ = Linear::concatenated(weights, {prefix + "/q", prefix + "/k", prefix + "/v"},
                                        d_model, d_model);
  } else {
    q_ = Linear(weights, prefix + "/q", d_model, d_model);
    projections_ = Linear::concatenated(weights, {prefix + "/k", prefix + "/v"}, d_model, d_model);
  }
  if (max_distance_ > 0) {
    const Shape table{2 * max_distance_ + 1, d_model / heads};
    relative_keys_ = weights.take(prefix + "/relative_keys", table);
    relative_values_ = weights.take(prefix + "/relative_values", table);
  }
}

void MultiHeadAttention::project_qkv(const Tensor& x, Tensor& keys, Tensor& values,
                                     AttentionScratch& s) const {
  const dim_t d = d_model_;
  projections_(x, s.projected);  // [B, T, 3D]
  ops::split_heads(s.projected.slice(-1, 0, d), heads_, s.queries);
  ops::split_heads(s.projected.slice(-1, d, 2 * d), heads_, keys);
  ops::split_heads(s.projected.slice(-1, 2 * d, 3 * d), heads_, values);
}

void MultiHeadAttention::project_kv(const Tensor& memory, Tensor& keys, Tensor& values,
                                    AttentionScratch& s) const {
  const dim_t d = d_model_;
  projections_(memory, s.projected);  // [B, L, 2D]
  ops::split_heads(s.projected.slice(-1, 0, d), heads_, keys);
  ops::split_heads(s.projected.slice(-1, d, 2 * d), heads_, values);
}

void MultiHeadAttention::attend(const Tensor& x, const Tensor& keys, const Tensor& values,
                                const Tensor* visible, AttentionScratch& s, Tensor& out) const {
  q_(x, s.projected);
  ops::split_heads(s.projected, heads_, s.queries);
  attend_projected(keys, values, visible, s, out);
}

void MultiHeadAttention::attend_projected(const Tensor& keys, const Tensor& values,
                                          const Tensor* visible, AttentionScratch& s,
                                          Tensor& out) const {
  ops::MatmulOptions scaled;
  scaled.transpose_b = true;
  scaled.alpha = scale_;  // Marian scales the product, not the queries
  ops::matmul(s.queries, keys, s.scores, scaled);
  if (max_distance_ > 0) {
    ops::matmul(s.queries, relative_keys_, s.relative, scaled);  // the relative term is scaled too
    ops::add_relative_scores(s.relative, max_distance_, s.scores);
  }
  ops::softmax(s.scores, s.scores, visible);
  ops::matmul(s.scores, values, s.context);
  if (max_distance_ > 0) {
    ops::bucket_by_distance(s.scores, max_distance_, s.relative);
    ops::matmul(s.relative, relative_values_, s.relative_context);
    ops::add(s.context, s.relative_context, s.context);
  }
  ops::merge_heads(s.context, s.merged);
  o_(s.merged, out);
}

}  // namespace s2s::layers
