// ops/vector_exp.h: the exp behind every softmax, against std::exp (in double).
#include <cmath>
#include <limits>
#include <vector>

#include "ops_test_util.h"
#include "s2s/ops/vector_exp.h"

using namespace s2s;
using ops::detail::exp8;
using ops::detail::f32x8;

TEST_CASE("vector exp is within 2 ulp of std::exp on [-87, 88]", "[ops]") {
  double worst = 0.0;
  for (float start = -87.0f; start <= 88.0f; start += 8 * 0.0013f) {
    f32x8 x;
    for (int lane = 0; lane < 8; ++lane) x[lane] = std::min(88.0f, start + lane * 0.0013f);
    const f32x8 y = exp8(x);
    for (int lane = 0; lane < 8; ++lane) {
      const double want = std::exp(static_cast<double>(x[lane]));
      worst = std::max(worst, std::fabs(y[lane] - want) / want);
    }
  }
  INFO("worst relative error " << worst);
  CHECK(worst < 2 * std::numeric_limits<float>::epsilon());
}

TEST_CASE("vector exp gives 0 below the normal range and for -inf or NaN", "[ops]") {
  f32x8 x = {};
  x[0] = -87.5f;
  x[1] = -1e30f;
  x[2] = -std::numeric_limits<float>::infinity();
  x[3] = std::numeric_limits<float>::quiet_NaN();
  x[4] = -87.2f;  // still a normal float
  const f32x8 y = exp8(x);
  for (int lane = 0; lane < 4; ++lane) CHECK(y[lane] == 0.0f);
  CHECK(y[4] == Approx(std::exp(static_cast<double>(-87.2f))).epsilon(1e-6));
  CHECK(y[5] == 1.0f);
}

TEST_CASE("exp_shifted sums and writes every length, tails included", "[ops]") {
  for (dim_t n : {1, 15, 16, 17, 255, 256, 257, 1000}) {
    const Tensor x = test::random_tensor({n}, static_cast<unsigned>(n), -20.0f, 5.0f);
    std::vector<float> y(static_cast<std::size_t>(n));
    const double sum = ops::detail::exp_shifted(x.data<float>(), 5.0f, n, y.data());
    double want = 0.0;
    for (dim_t i = 0; i < n; ++i) {
      // x - max rounded to float first, as the kernel computes it.
      const double e = std::exp(static_cast<double>(x.data<float>()[i] - 5.0f));
      CHECK(y[static_cast<std::size_t>(i)] == Approx(e).epsilon(1e-6));
      want += e;
    }
    INFO("n " << n);
    CHECK(sum == Approx(want).epsilon(1e-6));
    CHECK(ops::detail::exp_shifted(x.data<float>(), 5.0f, n, nullptr) == sum);
  }
}

TEST_CASE("vector row maximum is what the plain std::max loop finds, NaNs included", "[ops]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const auto plain = [](const std::vector<float>& x, float start, bool absolute) {
    float max = start;
    for (float v : x) max = std::max(max, absolute ? std::fabs(v) : v);
    return max;
  };
  const auto same = [](float a, float b) { return std::isnan(a) ? std::isnan(b) : a == b; };
  unsigned seed = 7;
  for (std::size_t n : {1, 5, 31, 32, 33, 64, 100, 8000}) {
    const Tensor random = test::random_tensor({static_cast<dim_t>(n)}, seed++, -50.0f, 20.0f);
    const std::vector<float> x(random.data<float>(), random.data<float>() + n);
    for (int variant = 0; variant < 5; ++variant) {
      INFO("n " << n << " variant " << variant);
      std::vector<float> v = x;
      if (variant == 1) v[n / 2] = nan;  // passed over
      if (variant == 2) v[0] = nan;      // the start: the row's maximum stays NaN
      if (variant == 3) v[n - 1] = inf;  // the largest, in the scalar tail or the last block
      if (variant == 4) v[n / 3] = -inf - 0.0f;
      CHECK(same(ops::detail::max_of(v.data(), static_cast<dim_t>(n), v[0], false),
                 plain(v, v[0], false)));
      CHECK(same(ops::detail::max_of(v.data(), static_cast<dim_t>(n), 0.0f, true),
                 plain(v, 0.0f, true)));
    }
  }
}
