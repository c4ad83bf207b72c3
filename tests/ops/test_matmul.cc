// matmul: the oneDNN path against the reference loops, on batched, broadcast and strided inputs.
#include <cmath>
#include <thread>
#include <vector>

#include "ops_test_util.h"
#include "s2s/ops/matmul.h"
#include "support/ops_ref.h"

using namespace s2s;

namespace {

// Runs both paths on the same inputs and compares; returns the fast result.
Tensor check_against_ref(const Tensor& a, const Tensor& b, const ops::MatmulOptions& options) {
  Tensor fast, expected;
  ops::matmul(a, b, fast, options);
  ops::ref::matmul(a, b, expected, options);
  INFO("a " << to_string(a.shape()) << " b " << to_string(b.shape()) << " transpose_b "
            << options.transpose_b << " alpha " << options.alpha << " bias "
            << (options.bias != nullptr));
  S2S_CHECK_CLOSE(fast, expected, test::matmul_tolerance(a.dim(-1)));
  return fast;
}

}  // namespace

TEST_CASE("matmul matches the reference on awkward sizes", "[ops]") {
  const bool transpose_b = GENERATE(false, true);
  const float alpha = GENERATE(1.0f, 0.125f);
  const bool with_bias = GENERATE(false, true);
  const dim_t sizes[] = {1, 7, 513};
  unsigned seed = 1;
  for (dim_t m : sizes)
    for (dim_t k : sizes)
      for (dim_t n : sizes) {
        if ((m == 513) + (k == 513) + (n == 513) > 1) continue;  // keeps the reference quick
        const Tensor bias = test::random_tensor({n}, seed++);
        ops::MatmulOptions options;
        options.transpose_b = transpose_b;
        options.alpha = alpha;
        options.bias = with_bias ? &bias : nullptr;
        const Shape b2 = transpose_b ? Shape{n, k} : Shape{k, n};
        const Shape b4 = transpose_b ? Shape{2, 3, n, k} : Shape{2, 3, k, n};
        const Tensor a2 = test::random_tensor({m, k}, seed++);
        const Tensor a4 = test::random_tensor({2, 3, m, k}, seed++);
        check_against_ref(a2, test::random_tensor(b2, seed++), options);
        check_against_ref(a4, test::random_tensor(b4, seed++), options);
        check_against_ref(a4, test::random_tensor(b2, seed++), options);  // b broadcast
      }
}

TEST_CASE("matmul handles empty batches and K = 0", "[ops]") {
  const Tensor bias = test::random_tensor({4}, 1);
  ops::MatmulOptions options;
  options.bias = &bias;
  const Tensor b = test::random_tensor({5, 4}, 2);
  Tensor c = check_against_ref(test::random_tensor({0, 3, 5}, 3), b, options);
  CHECK(c.shape() == Shape{0, 3, 4});
  c = check_against_ref(test::random_tensor({2, 0, 5}, 4), b, options);
  CHECK(c.shape() == Shape{2, 0, 4});
  c = check_against_ref(test::random_tensor({0, 2, 3, 5}, 5), test::random_tensor({0, 2, 5, 4}, 6),
                        options);
  CHECK(c.shape() == Shape{0, 2, 3, 4});
  // K = 0: an empty sum, so c is the bias alone.
  for (float alpha : {1.0f, 0.5f}) {
    options.alpha = alpha;
    c = check_against_ref(test::random_tensor({3, 0}, 7), test::random_tensor({0, 4}, 8), options);
    for (dim_t i = 0; i < 3; ++i)
      S2S_CHECK_CLOSE(c.slice(0, i, i + 1).reshaped({4}), bias, test::Tolerance::exact);
  }
}

TEST_CASE("matmul gives hand-computed results", "[ops]") {
  const Tensor a = test::tensor_of({2, 2}, {1, 2, 3, 4});
  const Tensor b = test::tensor_of({2, 2}, {5, 6, 7, 8});
  const Tensor bias = test::tensor_of({2}, {1, 2});
  Tensor c;
  ops::matmul(a, b, c);
  S2S_CHECK_CLOSE(c, test::tensor_of({2, 2}, {19, 22, 43, 50}), test::Tolerance::exact);
  ops::MatmulOptions options;
  options.alpha = 0.5f;
  options.bias = &bias;
  ops::matmul(a, b, c, options);  // alpha scales the product only, not the bias
  S2S_CHECK_CLOSE(c, test::tensor_of({2, 2}, {10.5f, 13, 22.5f, 27}), test::Tolerance::exact);
  options.transpose_b = true;
  ops::matmul(a, b, c, options);  // a · bᵀ = [[17, 23], [39, 53]]
  S2S_CHECK_CLOSE(c, test::tensor_of({2, 2}, {9.5f, 13.5f, 20.5f, 28.5f}), test::Tolerance::exact);
}

TEST_CASE("matmul reads and writes strided views of a key/value cache", "[ops]") {
  // Cache [B, H, capacity, Dh] = [2, 4, 9, 7]; at step t the visible keys are slots [0, t).
  const Tensor k_cache = test::random_tensor({2, 4, 9, 7}, 11);
  const Tensor v_cache = test::random_tensor({2, 4, 9, 7}, 12);
  const Tensor queries = test::random_tensor({2, 4, 9, 7}, 13);
  Tensor out_buffer = Tensor::zeros({2, 4, 9, 7});
  ops::MatmulOptions scores_options;
  scores_options.transpose_b = true;
  scores_options.alpha = 1.0f / std::sqrt(7.0f);
  for (dim_t t = 1; t <= 9; ++t) {
    const Tensor q = queries.slice(2, t - 1, t);  // [2, 4, 1, 7], not contiguous over the batch
    const Tensor keys = k_cache.slice(2, 0, t);    // [2, 4, t, 7]
    const Tensor values = v_cache.slice(2, 0, t);
    const Tensor scores = check_against_ref(q, keys, scores_options);  // [2, 4, 1, t]
    CHECK(scores.shape() == Shape{2, 4, 1, t});
    Tensor context = out_buffer.slice(2, t - 1, t);  // a view: written in place
    ops::matmul(scores, values, context);
    Tensor expected;
    ops::ref::matmul(scores, values, expected);
    S2S_CHECK_CLOSE(context, expected, test::matmul_tolerance(t));
  }
  // Several queries at once (teacher forcing), and a row slice of a wider matrix with a 2-D b.
  check_against_ref(queries.slice(2, 2, 7), k_cache.slice(2, 0, 6), scores_options);
  const Tensor wide = test::random_tensor({3, 5, 20}, 14);
  check_against_ref(wide.slice(2, 3, 10), test::random_tensor({7, 6}, 15), {});
  check_against_ref(wide.slice(1, 1, 4).slice(2, 0, 7), test::random_tensor({7, 6}, 16), {});
}

TEST_CASE("matmul is safe to call from several threads", "[ops]") {
  const Tensor b = test::random_tensor({33, 17}, 21);
  std::vector<Tensor> inputs, outputs(4), expected(4);
  for (unsigned i = 0; i < 4; ++i) inputs.push_back(test::random_tensor({5 + i, 33}, 22 + i));
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < 4; ++i)
    threads.emplace_back([&, i] {
      for (int repeat = 0; repeat < 20; ++repeat) ops::matmul(inputs[i], b, outputs[i]);
    });
  for (auto& t : threads) t.join();
  for (std::size_t i = 0; i < 4; ++i) {
    ops::ref::matmul(inputs[i], b, expected[i]);
    S2S_CHECK_CLOSE(outputs[i], expected[i], test::matmul_tolerance(33));
  }
}

TEST_CASE("matmul rejects mismatched arguments", "[ops]") {
  const Tensor a = test::random_tensor({2, 3, 4}, 1);
  Tensor c;
  REQUIRE_THROWS_AS(ops::matmul(a, test::random_tensor({5, 6}, 2), c), InternalError);
  REQUIRE_THROWS_AS(ops::matmul(a, test::random_tensor({3, 4, 6}, 3), c), InternalError);
  REQUIRE_THROWS_AS(ops::matmul(a, test::random_tensor({1, 2, 4, 6}, 4), c), InternalError);
  REQUIRE_THROWS_AS(ops::matmul(test::random_tensor({4}, 5), test::random_tensor({4, 6}, 6), c),
                    InternalError);
  const Tensor wrong_bias = test::random_tensor({7}, 7);
  ops::MatmulOptions options;
  options.bias = &wrong_bias;
  REQUIRE_THROWS_AS(ops::matmul(a, test::random_tensor({4, 6}, 8), c, options), InternalError);
  Tensor buffer({2, 3, 7});
  Tensor view = buffer.view();  // a view keeps its shape: [2, 3, 7] is not [2, 3, 6]
  REQUIRE_THROWS_AS(ops::matmul(a, test::random_tensor({4, 6}, 9), view), InternalError);
  Tensor square = test::random_tensor({4, 4}, 10);
  REQUIRE_THROWS_AS(ops::matmul(square, test::random_tensor({4, 4}, 11), square), InternalError);
  REQUIRE_THROWS_WITH(ops::matmul(a, test::random_tensor({5, 6}, 12), c),
                      Catch::Contains("[2, 3, 4]") && Catch::Contains("[5, 6]"));
}
