#include "s2s/ops/relative_position.h"

#include <algorithm>

#include "s2s/ops/detail.h"

namespace s2s::ops {
namespace {

dim_t bucket(dim_t i, dim_t j, dim_t offset, dim_t k) {
  return std::clamp<dim_t>(j - (i + offset), -k, k) + k;
}

void check(const Tensor& per_key, dim_t max_distance, const char* what) {
  detail::check_dtype(per_key, DataType::f32, what);
  detail::check_contiguous(per_key, what);
  S2S_CHECK(per_key.rank() == 4, what, ": expected [B, H, T, L], got ", to_string(per_key.shape()));
  S2S_CHECK(max_distance >= 0, what, ": negative maximum distance ", max_distance);
  S2S_CHECK(per_key.dim(3) >= per_key.dim(2), what, ": more queries than keys in ",
            to_string(per_key.shape()));
}

}  // namespace

void add_relative_scores(const Tensor& qr, dim_t max_distance, Tensor& scores) {
  check(scores, max_distance, "add_relative_scores");
  const dim_t rows = scores.dim(0) * scores.dim(1), t_len = scores.dim(2), l_len = scores.dim(3);
  const dim_t r_len = 2 * max_distance + 1, offset = l_len - t_len;
  S2S_CHECK(qr.shape() == Shape({scores.dim(0), scores.dim(1), t_len, r_len}),
            "add_relative_scores: qr ", to_string(qr.shape()), " for scores ",
            to_string(scores.shape()), " and ", r_len, " buckets");
  const float* q = qr.data<float>();
  float* s = scores.data<float>();
  for (dim_t bh = 0; bh < rows; ++bh)
    for (dim_t i = 0; i < t_len; ++i) {
      const float* qrow = q + (bh * t_len + i) * r_len;
      float* srow = s + (bh * t_len + i) * l_len;
      for (dim_t j = 0; j < l_len; ++j) srow[j] += qrow[bucket(i, j, offset, max_distance)];
    }
}

void bucket_by_distance(const Tensor& probs, dim_t max_distance, Tensor& buckets) {
  check(probs, max_distance, "bucket_by_distance");
  const dim_t rows = probs.dim(0) * probs.dim(1), t_len = probs.dim(2), l_len = probs.dim(3);
  const dim_t r_len = 2 * max_distance + 1, offset = l_len - t_len;
  detail::prepare_output(buckets, {probs.dim(0), probs.dim(1), t_len, r_len}, DataType::f32,
                         "bucket_by_distance");
  const float* p = probs.data<float>();
  float* out = buckets.data<float>();
  std::fill(out, out + buckets.numel(), 0.0f);
  for (dim_t bh = 0; bh < rows; ++bh)
    for (dim_t i = 0; i < t_len; ++i) {
      const float* prow = p + (bh * t_len + i) * l_len;
      float* orow = out + (bh * t_len + i) * r_len;
      for (dim_t j = 0; j < l_len; ++j) orow[bucket(i, j, offset, max_distance)] += prow[j];
    }
}

}  // namespace s2s::ops
