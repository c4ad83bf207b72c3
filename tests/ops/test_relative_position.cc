// Relative position terms against a direct per-(i, j) computation.
#include <algorithm>

#include "s2s/ops/relative_position.h"
#include "test_utils.h"

namespace s2s {

TEST_CASE("relative scores and distance buckets follow idx = clamp(j - (i + offset)) + K", "[ops]") {
  for (const auto& [t_len, l_len, k] : std::vector<std::tuple<dim_t, dim_t, dim_t>>{
           {5, 5, 2}, {1, 7, 3}, {3, 9, 1}, {4, 4, 0}}) {
    const dim_t r = 2 * k + 1, offset = l_len - t_len;
    const Tensor qr = test::random_tensor({2, 3, t_len, r}, 11);
    Tensor scores = test::random_tensor({2, 3, t_len, l_len}, 12);
    const Tensor before = scores.clone();
    ops::add_relative_scores(qr, k, scores);
    Tensor buckets;
    ops::bucket_by_distance(before, k, buckets);
    REQUIRE(buckets.shape() == Shape{2, 3, t_len, r});
    for (dim_t bh = 0; bh < 6; ++bh)
      for (dim_t i = 0; i < t_len; ++i) {
        std::vector<float> expected_bucket(r, 0.0f);
        for (dim_t j = 0; j < l_len; ++j) {
          const dim_t idx = std::clamp<dim_t>(j - (i + offset), -k, k) + k;
          const dim_t at = (bh * t_len + i) * l_len + j;
          CHECK(scores.data<float>()[at] ==
                Approx(before.data<float>()[at] + qr.data<float>()[(bh * t_len + i) * r + idx]));
          expected_bucket[idx] += before.data<float>()[at];
        }
        for (dim_t c = 0; c < r; ++c)
          CHECK(buckets.data<float>()[(bh * t_len + i) * r + c] == Approx(expected_bucket[c]));
      }
  }
}

}  // namespace s2s
