// layer_norm: the oneDNN path against the reference, in place, and on a hand-computed row.
#include "ops_test_util.h"
#include "s2s/ops/layer_norm.h"
#include "support/ops_ref.h"

using namespace s2s;

TEST_CASE("layer_norm matches the reference", "[ops]") {
  unsigned seed = 1;
  for (dim_t d : {1, 7, 513})
    for (const Shape& lead : {Shape{0}, Shape{1}, Shape{7}, Shape{2, 3}}) {
      Shape shape = lead;
      shape.push_back(d);
      INFO("x " << to_string(shape));
      const Tensor x = test::random_tensor(shape, seed++, -3.0f, 3.0f);
      const Tensor scale = test::random_tensor({d}, seed++, 0.5f, 1.5f);
      const Tensor bias = test::random_tensor({d}, seed++);
      Tensor y, expected;
      ops::layer_norm(x, scale, bias, 1e-5f, y);
      ops::ref::layer_norm(x, scale, bias, 1e-5f, expected);
      S2S_CHECK_CLOSE(y, expected, test::Tolerance::f32);
      // In place: y is x.
      Tensor inplace = x.clone();
      ops::layer_norm(inplace, scale, bias, 1e-5f, inplace);
      S2S_CHECK_CLOSE(inplace, expected, test::Tolerance::f32);
    }
}

TEST_CASE("layer_norm gives hand-computed results", "[ops]") {
  // [1, 2, 3]: mean 2, biased variance 2/3, so (x - 2) / sqrt(2/3) = [-1.2247449, 0, 1.2247449].
  const Tensor x = test::tensor_of({1, 3}, {1, 2, 3});
  const Tensor ones = test::tensor_of({3}, {1, 1, 1});
  const Tensor zeros = test::tensor_of({3}, {0, 0, 0});
  Tensor y;
  ops::layer_norm(x, ones, zeros, 0.0f, y);
  S2S_CHECK_CLOSE(y, test::tensor_of({1, 3}, {-1.2247449f, 0, 1.2247449f}), test::Tolerance::exact);
  ops::ref::layer_norm(x, ones, zeros, 0.0f, y);
  S2S_CHECK_CLOSE(y, test::tensor_of({1, 3}, {-1.2247449f, 0, 1.2247449f}), test::Tolerance::exact);
  // scale 2, bias 1; epsilon sits inside the square root: 1 / sqrt(2/3 + 1/3) = 1.
  const Tensor twos = test::tensor_of({3}, {2, 2, 2});
  ops::layer_norm(x, twos, ones, 1.0f / 3.0f, y);
  S2S_CHECK_CLOSE(y, test::tensor_of({1, 3}, {-1, 1, 3}), test::Tolerance::exact);
}

TEST_CASE("layer_norm rejects mismatched arguments", "[ops]") {
  const Tensor x = test::random_tensor({2, 4}, 1);
  const Tensor good = test::random_tensor({4}, 2);
  const Tensor bad = test::random_tensor({5}, 3);
  Tensor y;
  REQUIRE_THROWS_WITH(ops::layer_norm(x, bad, good, 1e-5f, y),
                      Catch::Contains("[5]") && Catch::Contains("[4]"));
  REQUIRE_THROWS_AS(ops::layer_norm(x, good, bad, 1e-5f, y), InternalError);
  REQUIRE_THROWS_AS(ops::ref::layer_norm(x, good, bad, 1e-5f, y), InternalError);
  const Tensor wide = test::random_tensor({2, 8}, 4);
  REQUIRE_THROWS_AS(ops::layer_norm(wide.slice(1, 0, 4), good, good, 1e-5f, y), InternalError);
  Tensor buffer({2, 5});
  Tensor view = buffer.view();
  REQUIRE_THROWS_AS(ops::layer_norm(x, good, good, 1e-5f, view), InternalError);
}
