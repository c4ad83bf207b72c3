// softmax and log_softmax: the fast paths against the reference, with and without visible counts.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ops_test_util.h"
#include "s2s/ops/softmax.h"
#include "support/ops_ref.h"

using namespace s2s;

namespace {

const Shape kShapes[] = {{0, 7}, {1, 1}, {1, 7}, {7, 513}, {2, 3, 7}, {3, 513}, {4, 0}};

}  // namespace

TEST_CASE("softmax and log_softmax match the reference", "[ops]") {
  unsigned seed = 1;
  for (const Shape& shape : kShapes) {
    INFO("x " << to_string(shape));
    const Tensor x = test::random_tensor(shape, seed++, -5.0f, 5.0f);
    Tensor y, expected;
    ops::softmax(x, y);
    ops::ref::softmax(x, expected);
    S2S_CHECK_CLOSE(y, expected, test::Tolerance::f32);
    ops::log_softmax(x, y);
    ops::ref::log_softmax(x, expected);
    S2S_CHECK_CLOSE(y, expected, test::Tolerance::f32);
  }
}

TEST_CASE("softmax with visible counts matches the reference", "[ops]") {
  unsigned seed = 10;
  for (const Shape& shape : kShapes) {
    const dim_t n = shape.back();
    const dim_t rows = num_elements(shape) / std::max<dim_t>(n, 1);
    const dim_t row_count = n == 0 ? shape[0] : rows;
    // Counts from 0 to past the row length, with 0 and N + 2 forced into the first rows.
    Tensor visible = test::random_ids({row_count}, seed++, 0, static_cast<std::int32_t>(n + 2));
    if (row_count > 0) visible.data<std::int32_t>()[0] = 0;
    if (row_count > 1) visible.data<std::int32_t>()[1] = static_cast<std::int32_t>(n + 2);
    const Tensor x = test::random_tensor(shape, seed++, -5.0f, 5.0f);
    Tensor y, expected;
    ops::softmax(x, y, &visible);
    ops::ref::softmax(x, expected, &visible);
    INFO("x " << to_string(shape));
    S2S_CHECK_CLOSE(y, expected, test::Tolerance::f32);
    // Masked entries are exactly zero, and the visible ones sum to 1 (or 0 for an empty row).
    for (dim_t r = 0; r < row_count && n > 0; ++r) {
      const dim_t v = std::min<dim_t>(visible.data<std::int32_t>()[r], n);
      double sum = 0.0;
      for (dim_t i = 0; i < n; ++i) {
        const float value = y.data<float>()[r * n + i];
        if (i >= v) CHECK(value == 0.0f);
        sum += value;
      }
      CHECK(sum == Approx(v > 0 ? 1.0 : 0.0).margin(1e-5));
    }
  }
}

TEST_CASE("softmax runs in place", "[ops]") {
  const Tensor original = test::random_tensor({7, 513}, 20, -5.0f, 5.0f);
  const Tensor visible = test::random_ids({7}, 21, 0, 600);
  Tensor expected;
  for (int variant = 0; variant < 3; ++variant) {
    Tensor x = original.clone();
    const void* before = x.raw();
    if (variant == 0) {
      ops::softmax(x, x);
      ops::ref::softmax(original, expected);
    } else if (variant == 1) {
      ops::softmax(x, x, &visible);
      ops::ref::softmax(original, expected, &visible);
    } else {
      ops::log_softmax(x, x);
      ops::ref::log_softmax(original, expected);
    }
    INFO("variant " << variant);
    CHECK(x.raw() == before);
    S2S_CHECK_CLOSE(x, expected, test::Tolerance::f32);
  }
}

TEST_CASE("softmax gives hand-computed results", "[ops]") {
  const Tensor x = test::tensor_of({1, 2}, {0.0f, std::log(3.0f)});
  Tensor y;
  ops::softmax(x, y);
  S2S_CHECK_CLOSE(y, test::tensor_of({1, 2}, {0.25f, 0.75f}), test::Tolerance::exact);
  ops::log_softmax(x, y);
  S2S_CHECK_CLOSE(y, test::tensor_of({1, 2}, {std::log(0.25f), std::log(0.75f)}),
                  test::Tolerance::exact);
  // Large logits must not overflow: the row maximum is subtracted first.
  const Tensor large = test::tensor_of({2, 2}, {1000.0f, 1001.0f, -1000.0f, -1000.0f});
  ops::softmax(large, y);
  S2S_CHECK_CLOSE(y, test::tensor_of({2, 2}, {0.2689414f, 0.7310586f, 0.5f, 0.5f}),
                  test::Tolerance::exact);
  ops::log_softmax(large, y);
  S2S_CHECK_CLOSE(y, test::tensor_of({2, 2}, {-1.3132617f, -0.3132617f, -0.6931472f, -0.6931472f}),
                  test::Tolerance::exact);
  // Counts 0, 1, 2 and above N: an all-zero row, a one-hot row, a pair, the whole row.
  const Tensor rows = test::tensor_of({4, 3}, {5, 1, 2, 5, 1, 2, 0, 1.0986123f, 9, 0, 0, 0});
  const Tensor visible = test::ids_of({0, 1, 2, 4}, {2, 2});
  ops::softmax(rows, y, &visible);
  S2S_CHECK_CLOSE(y, test::tensor_of({4, 3}, {0, 0, 0, 1, 0, 0, 0.25f, 0.75f, 0, 1 / 3.0f,
                                              1 / 3.0f, 1 / 3.0f}),
                  test::Tolerance::exact);
}

TEST_CASE("softmax rejects mismatched arguments", "[ops]") {
  const Tensor x = test::random_tensor({3, 4}, 1);
  Tensor y;
  const Tensor too_few = test::ids_of({1, 2});
  REQUIRE_THROWS_WITH(ops::softmax(x, y, &too_few), Catch::Contains("[2]") && Catch::Contains("3"));
  const Tensor as_float = test::random_tensor({3}, 2);
  REQUIRE_THROWS_AS(ops::softmax(x, y, &as_float), InternalError);
  const Tensor negative = test::ids_of({1, -1, 2});
  REQUIRE_THROWS_AS(ops::softmax(x, y, &negative), InternalError);
  REQUIRE_THROWS_AS(ops::ref::softmax(x, y, &negative), InternalError);
  REQUIRE_THROWS_AS(ops::softmax(x.slice(1, 0, 2), y), InternalError);  // not contiguous
  Tensor buffer({3, 5});
  Tensor view = buffer.view();
  REQUIRE_THROWS_AS(ops::softmax(x, view), InternalError);
  REQUIRE_THROWS_AS(ops::log_softmax(x, view), InternalError);
  REQUIRE_THROWS_AS(ops::softmax(Tensor({3, 4}, DataType::i32), y), InternalError);
}
