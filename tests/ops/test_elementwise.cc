// activation and add: the oneDNN paths against the reference, broadcasting, in-place use.
#include <cmath>

#include "ops_test_util.h"
#include "s2s/ops/elementwise.h"
#include "support/ops_ref.h"

using namespace s2s;

TEST_CASE("activations match the reference", "[ops]") {
  const ops::Activation act = GENERATE(ops::Activation::identity, ops::Activation::relu,
                                       ops::Activation::swish, ops::Activation::gelu);
  unsigned seed = 1;
  for (const Shape& shape : {Shape{0}, Shape{1}, Shape{7}, Shape{513}, Shape{2, 3, 7}}) {
    INFO("activation " << static_cast<int>(act) << " x " << to_string(shape));
    const Tensor x = test::random_tensor(shape, seed++, -6.0f, 6.0f);
    const double tolerance =
        act == ops::Activation::gelu ? test::Tolerance::f32_erf : test::Tolerance::f32;
    Tensor y, expected;
    ops::activation(act, x, y);
    ops::ref::activation(act, x, expected);
    S2S_CHECK_CLOSE(y, expected, tolerance);
    Tensor inplace = x.clone();
    ops::activation(act, inplace, inplace);
    S2S_CHECK_CLOSE(inplace, expected, tolerance);
  }
}

TEST_CASE("activations give hand-computed results", "[ops]") {
  const Tensor x = test::tensor_of({3}, {1, -1, 0});
  Tensor y;
  ops::activation(ops::Activation::gelu, x, y);
  S2S_CHECK_CLOSE(y, test::tensor_of({3}, {0.8413447f, -0.1586553f, 0}), test::Tolerance::exact);
  ops::activation(ops::Activation::swish, x, y);
  S2S_CHECK_CLOSE(y, test::tensor_of({3}, {0.7310586f, -0.2689414f, 0}), test::Tolerance::exact);
  ops::activation(ops::Activation::relu, x, y);
  S2S_CHECK_CLOSE(y, test::tensor_of({3}, {1, 0, 0}), test::Tolerance::exact);
  ops::activation(ops::Activation::identity, x, y);
  S2S_CHECK_CLOSE(y, x, test::Tolerance::exact);
}

TEST_CASE("add matches the reference with broadcasting and a scale", "[ops]") {
  const float a_scale = GENERATE(1.0f, 0.5f);
  unsigned seed = 10;
  struct Case {
    Shape a, b;
  };
  const Case cases[] = {
      {{2, 3, 7}, {2, 3, 7}}, {{2, 3, 7}, {7}},   {{2, 3, 7}, {3, 7}}, {{513}, {513}},
      {{7, 513}, {513}},      {{1, 1}, {1}},      {{0, 7}, {7}},       {{4, 5}, {}},
  };
  for (const Case& c : cases) {
    INFO("a " << to_string(c.a) << " b " << to_string(c.b) << " a_scale " << a_scale);
    const Tensor a = test::random_tensor(c.a, seed++);
    const Tensor b = test::random_tensor(c.b, seed++);
    Tensor out, expected;
    ops::add(a, b, out, a_scale);
    ops::ref::add(a, b, expected, a_scale);
    S2S_CHECK_CLOSE(out, expected, test::Tolerance::f32);
    Tensor into_a = a.clone();  // c is a
    ops::add(into_a, b, into_a, a_scale);
    S2S_CHECK_CLOSE(into_a, expected, test::Tolerance::f32);
    if (c.a == c.b) {
      Tensor into_b = b.clone();  // c is b
      ops::add(a, into_b, into_b, a_scale);
      S2S_CHECK_CLOSE(into_b, expected, test::Tolerance::f32);
    }
  }
}

TEST_CASE("add gives hand-computed results", "[ops]") {
  // Scaled embeddings plus positions: 2·a + b with b [2] broadcast over the rows of a [2, 2].
  const Tensor a = test::tensor_of({2, 2}, {1, 2, 3, 4});
  const Tensor b = test::tensor_of({2}, {10, 20});
  Tensor c;
  ops::add(a, b, c, 2.0f);
  S2S_CHECK_CLOSE(c, test::tensor_of({2, 2}, {12, 24, 16, 28}), test::Tolerance::exact);
  Tensor same = a.clone();
  ops::add(same, same, same, 3.0f);  // a, b and c all one tensor: 3·a + a
  S2S_CHECK_CLOSE(same, test::tensor_of({2, 2}, {4, 8, 12, 16}), test::Tolerance::exact);
}

TEST_CASE("elementwise ops reject mismatched arguments", "[ops]") {
  const Tensor a = test::random_tensor({2, 3, 4}, 1);
  Tensor c;
  REQUIRE_THROWS_WITH(ops::add(a, test::random_tensor({5}, 2), c),
                      Catch::Contains("[5]") && Catch::Contains("[2, 3, 4]"));
  REQUIRE_THROWS_AS(ops::add(a, test::random_tensor({2, 4}, 3), c), InternalError);  // not a suffix
  REQUIRE_THROWS_AS(ops::add(a, test::random_tensor({1, 2, 3, 4}, 4), c), InternalError);
  REQUIRE_THROWS_AS(ops::ref::add(a, test::random_tensor({5}, 5), c), InternalError);
  Tensor row = test::random_tensor({4}, 6);
  REQUIRE_THROWS_AS(ops::add(a, row, row), InternalError);  // c may not be a broadcast b
  Tensor buffer({2, 3, 5});
  Tensor view = buffer.view();
  REQUIRE_THROWS_AS(ops::add(a, row, view), InternalError);
  REQUIRE_THROWS_AS(ops::activation(ops::Activation::relu, a, view), InternalError);
  REQUIRE_THROWS_AS(ops::activation(ops::Activation::gelu, a.slice(2, 0, 2), c), InternalError);
}
