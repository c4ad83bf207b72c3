// ops::quantize_weight against precision.h's int8 scheme written as the plain column loop, at
// both weight levels (127 with VNNI, 63 without).
#include <algorithm>
#include <cmath>
#include <vector>

#include "ops_test_util.h"
#include "s2s/ops/quantize.h"

using namespace s2s;

TEST_CASE("quantize_weight gives exactly the per-channel int8 scheme in both layouts", "[ops]") {
  const bool out_in = GENERATE(false, true);
  const int levels = GENERATE(127, 63);  // VNNI CPUs, the others (ops::int8_weight_levels)
  const auto layout = out_in ? ops::WeightLayout::out_in : ops::WeightLayout::in_out;
  unsigned seed = 7;
  // 64 channels per block in_out: sizes below, at and across a block, and a single row.
  for (const auto& [k, n] : std::vector<std::pair<dim_t, dim_t>>{{1, 1}, {3, 64}, {65, 130}, {17, 7}}) {
    Tensor w = test::random_tensor(out_in ? Shape{n, k} : Shape{k, n}, seed++);
    float* values = w.data<float>();
    const auto at = [&](dim_t r, dim_t c) -> float& {
      return out_in ? values[c * k + r] : values[r * n + c];
    };
    // Channel 0 all zero (scale 1), the last channel with a value that is exactly the maximum.
    for (dim_t r = 0; r < k; ++r) at(r, 0) = 0.0f;
    if (n > 1) at(k - 1, n - 1) = -4.0f;

    std::vector<std::int8_t> q(static_cast<std::size_t>(k * n));
    const std::vector<float> scales = ops::quantize_weight(values, layout, k, n, q.data(), levels);
    REQUIRE(scales.size() == static_cast<std::size_t>(n));
    for (dim_t c = 0; c < n; ++c) {
      float amax = 0.0f;
      for (dim_t r = 0; r < k; ++r) amax = std::max(amax, std::fabs(at(r, c)));
      const float top = static_cast<float>(levels);
      const float scale = amax > 0.0f ? amax / top : 1.0f;
      INFO("K " << k << " N " << n << " out_in " << out_in << " levels " << levels << " channel " << c);
      CHECK(scales[static_cast<std::size_t>(c)] == scale);
      for (dim_t r = 0; r < k; ++r) {
        const long expected = std::lrintf(std::clamp(at(r, c) / scale, -top, top));
        const std::size_t i = static_cast<std::size_t>(out_in ? c * k + r : r * n + c);
        CHECK(q[i] == expected);
      }
    }
    if (n > 1)
      CHECK(q[static_cast<std::size_t>(out_in ? (n - 1) * k + k - 1 : (k - 1) * n + n - 1)] == -levels);
  }
}
