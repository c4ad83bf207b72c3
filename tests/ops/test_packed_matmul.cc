// PackedMatmul against the reference matmul on the unpacked weight, in both weight layouts.
#include <thread>
#include <vector>

#include "ops_test_util.h"
#include "s2s/ops/matmul.h"
#include "s2s/ops/packed_matmul.h"

using namespace s2s;

TEST_CASE("PackedMatmul matches the reference matmul on the unpacked weight", "[ops]") {
  const bool transposed = GENERATE(false, true);  // out_in: the weight is stored [N, K]
  const bool with_bias = GENERATE(false, true);
  const dim_t sizes[] = {1, 7, 513};
  unsigned seed = 100;
  for (dim_t k : sizes)
    for (dim_t n : sizes) {
      const Tensor weight = test::random_tensor(transposed ? Shape{n, k} : Shape{k, n}, seed++);
      const Tensor bias = test::random_tensor({n}, seed++);
      const auto layout = transposed ? ops::WeightLayout::out_in : ops::WeightLayout::in_out;
      const ops::PackedMatmul packed(weight, layout, with_bias ? &bias : nullptr);
      CHECK(packed.in_features() == k);
      CHECK(packed.out_features() == n);
      ops::MatmulOptions options;
      options.transpose_b = transposed;
      options.bias = with_bias ? &bias : nullptr;
      // One object serves every row count, including an empty batch.
      for (const Shape& x_shape : {Shape{0, k}, Shape{1, k}, Shape{7, k}, Shape{2, 3, k}}) {
        const Tensor x = test::random_tensor(x_shape, seed++);
        Tensor y, expected;
        packed(x, y);
        ops::ref::matmul(x, weight, expected, options);
        INFO("x " << to_string(x_shape) << " K " << k << " N " << n << " out_in " << transposed
                  << " bias " << with_bias);
        S2S_CHECK_CLOSE(y, expected, test::matmul_tolerance(k));
      }
    }
}

TEST_CASE("PackedMatmul writes into a view of the right shape and reuses owned outputs", "[ops]") {
  const Tensor weight = test::random_tensor({5, 3}, 1);
  const ops::PackedMatmul packed(weight, ops::WeightLayout::in_out, nullptr);
  const Tensor x = test::random_tensor({4, 5}, 2);
  Tensor expected;
  ops::ref::matmul(x, weight, expected);
  Tensor buffer({4, 3});
  Tensor view = buffer.view();
  packed(x, view);
  S2S_CHECK_CLOSE(buffer, expected, test::Tolerance::f32_dot);
  Tensor y({8, 3});  // larger than needed: resized in place
  const void* before = y.raw();
  packed(x, y);
  CHECK(y.raw() == before);
  S2S_CHECK_CLOSE(y, expected, test::Tolerance::f32_dot);
}

TEST_CASE("PackedMatmul can be shared by several threads", "[ops]") {
  const Tensor weight = test::random_tensor({64, 48}, 3);
  const Tensor bias = test::random_tensor({48}, 4);
  const ops::PackedMatmul packed(weight, ops::WeightLayout::in_out, &bias);
  std::vector<Tensor> inputs, outputs(4);
  for (unsigned i = 0; i < 4; ++i) inputs.push_back(test::random_tensor({3 + i, 64}, 5 + i));
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < 4; ++i)
    threads.emplace_back([&, i] {
      for (int repeat = 0; repeat < 20; ++repeat) packed(inputs[i], outputs[i]);
    });
  for (auto& t : threads) t.join();
  ops::MatmulOptions options;
  options.bias = &bias;
  for (std::size_t i = 0; i < 4; ++i) {
    Tensor expected;
    ops::ref::matmul(inputs[i], weight, expected, options);
    S2S_CHECK_CLOSE(outputs[i], expected, test::matmul_tolerance(64));
  }
}

TEST_CASE("PackedMatmul rejects mismatched arguments", "[ops]") {
  const Tensor weight = test::random_tensor({5, 3}, 1);
  const Tensor wrong_bias = test::random_tensor({5}, 2);
  REQUIRE_THROWS_AS(ops::PackedMatmul(weight, ops::WeightLayout::in_out, &wrong_bias),
                    InternalError);
  REQUIRE_THROWS_AS(
      ops::PackedMatmul(test::random_tensor({2, 5, 3}, 3), ops::WeightLayout::in_out, nullptr),
      InternalError);
  REQUIRE_THROWS_AS(ops::PackedMatmul(Tensor({0, 3}), ops::WeightLayout::in_out, nullptr),
                    InternalError);
  const ops::PackedMatmul packed(weight, ops::WeightLayout::out_in, nullptr);  // K = 3, N = 5
  Tensor y;
  REQUIRE_THROWS_WITH(packed(test::random_tensor({2, 5}, 4), y), Catch::Contains("[2, 5]") &&
                                                                     Catch::Contains("3"));
  Tensor buffer({2, 4});
  Tensor view = buffer.view();
  REQUIRE_THROWS_AS(packed(test::random_tensor({2, 3}, 5), view), InternalError);
  const Tensor wide = test::random_tensor({2, 6}, 6);
  REQUIRE_THROWS_AS(packed(wide.slice(1, 0, 3), y), InternalError);  // x must be contiguous
  const ops::PackedMatmul empty;
  REQUIRE_THROWS_AS(empty(test::random_tensor({2, 3}, 7), y), InternalError);
}
