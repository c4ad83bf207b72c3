// topk: the partial sort against the stable-sort reference, with many ties.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ops_test_util.h"
#include "s2s/ops/topk.h"
#include "support/ops_ref.h"

using namespace s2s;

TEST_CASE("topk matches the reference, ties keeping the lower index first", "[ops]") {
  unsigned seed = 1;
  for (dim_t rows : {0, 1, 7})
    for (dim_t n : {1, 7, 513}) {
      // Values on a coarse grid, so most rows hold many equal values.
      Tensor x = test::random_tensor({rows, n}, seed++, -3.0f, 3.0f);
      for (dim_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = std::round(x.data<float>()[i]);
      for (dim_t k : {dim_t{0}, dim_t{1}, n / 2, n}) {
        INFO("x " << to_string(x.shape()) << " k " << k);
        Tensor values, indices, expected_values, expected_indices;
        ops::topk(x, k, values, indices);
        ops::ref::topk(x, k, expected_values, expected_indices);
        CHECK(values.shape() == Shape{rows, k});
        test::check_identical(values, expected_values);
        test::check_identical(indices, expected_indices);
      }
    }
}

TEST_CASE("topk gives hand-computed results", "[ops]") {
  const Tensor x = test::tensor_of({2, 4}, {1, 3, 3, 2, -1, -1, -1, -1});
  Tensor values, indices;
  ops::topk(x, 3, values, indices);
  test::check_identical(values, test::tensor_of({2, 3}, {3, 3, 2, -1, -1, -1}));
  test::check_identical(indices, test::ids_of({1, 2, 3, 0, 1, 2}, {2, 3}));
  ops::topk(x, 4, values, indices);
  test::check_identical(indices, test::ids_of({1, 2, 3, 0, 0, 1, 2, 3}, {2, 4}));
  // Empty rows: N = 0 allows only k = 0.
  ops::topk(Tensor({3, 0}), 0, values, indices);
  CHECK(values.shape() == Shape{3, 0});
  CHECK(indices.shape() == Shape{3, 0});
}

TEST_CASE("topk rejects mismatched arguments", "[ops]") {
  const Tensor x = test::random_tensor({2, 5}, 1);
  Tensor values, indices;
  REQUIRE_THROWS_WITH(ops::topk(x, 6, values, indices),
                      Catch::Contains("k = 6") && Catch::Contains("[2, 5]"));
  REQUIRE_THROWS_AS(ops::topk(x, -1, values, indices), InternalError);
  REQUIRE_THROWS_AS(ops::ref::topk(x, 6, values, indices), InternalError);
  REQUIRE_THROWS_AS(ops::topk(test::random_tensor({5}, 2), 1, values, indices), InternalError);
  Tensor buffer({2, 2});
  Tensor view = buffer.view();
  REQUIRE_THROWS_AS(ops::topk(x, 3, view, indices), InternalError);
  REQUIRE_THROWS_AS(ops::topk(x, 1, values, values), InternalError);
}

TEST_CASE("TopKList offer_run keeps what offering one by one keeps", "[ops]") {
  // Coarse values (many ties), -inf and NaN entries, runs shorter and longer than a 16-entry
  // block, a score added to every entry: the same list, bit for bit, ids included.
  unsigned seed = 40;
  for (dim_t n : {1, 15, 16, 17, 100, 1000, 32000})
    for (dim_t k : {1, 2, 4, 9}) {
      if (k > n) continue;
      Tensor x = test::random_tensor({n}, seed++, -4.0f, 4.0f);
      float* p = x.data<float>();
      for (dim_t i = 0; i < n; ++i) p[i] = std::round(p[i] * 2.0f) / 2.0f;
      if (n > 20) {
        p[3] = -INFINITY;
        p[n / 2] = std::nanf("");
        p[n - 1] = 4.5f;  // a new best in the last, partial block
      }
      for (float add : {0.0f, -2.75f, -1e-7f}) {
        INFO("n " << n << " k " << k << " add " << add);
        std::vector<float> run_values(k), one_values(k);
        std::vector<std::int32_t> run_ids(k), one_ids(k);
        ops::TopKList run(run_values.data(), run_ids.data(), k), one(one_values.data(), one_ids.data(), k);
        run.offer_run(p, n, add, 7);
        for (dim_t i = 0; i < n; ++i) one.offer(p[i] + add, static_cast<std::int32_t>(7 + i));
        CHECK(run_ids == one_ids);
        for (dim_t j = 0; j < k; ++j) CHECK(std::memcmp(&run_values[j], &one_values[j], 4) == 0);
      }
    }
}
