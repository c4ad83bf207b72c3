// split_heads / merge_heads: the oneDNN reorders against the reference, with strided inputs and
// outputs (a fused QKV projection, a key/value cache slot).
#include "ops_test_util.h"
#include "s2s/ops/transpose.h"
#include "support/ops_ref.h"

using namespace s2s;

namespace {

struct Dims {
  dim_t batch, time, heads, head_dim;
};

const Dims kDims[] = {{0, 3, 2, 4}, {1, 1, 1, 1}, {2, 7, 3, 5}, {1, 513, 2, 3}, {3, 2, 8, 7}};

}  // namespace

TEST_CASE("split_heads matches the reference on owned and strided inputs", "[ops]") {
  unsigned seed = 1;
  for (const Dims& d : kDims) {
    const dim_t model = d.heads * d.head_dim;
    INFO("B " << d.batch << " T " << d.time << " H " << d.heads << " Dh " << d.head_dim);
    const Tensor x = test::random_tensor({d.batch, d.time, model}, seed++);
    // The K part of a fused [B, T, 3·D] projection: rows are 3·D apart.
    const Tensor fused = test::random_tensor({d.batch, d.time, 3 * model}, seed++);
    for (const Tensor* input : {&x, &fused}) {
      const Tensor in = input == &x ? x.view() : fused.slice(2, model, 2 * model);
      Tensor y, expected;
      ops::split_heads(in, d.heads, y);
      ops::ref::split_heads(in, d.heads, expected);
      CHECK(y.shape() == Shape{d.batch, d.heads, d.time, d.head_dim});
      test::check_identical(y, expected);
      Tensor back;  // merge_heads undoes split_heads exactly
      ops::merge_heads(y, back);
      test::check_identical(back, in.clone());
    }
  }
}

TEST_CASE("merge_heads matches the reference on strided inputs and outputs", "[ops]") {
  unsigned seed = 20;
  for (const Dims& d : kDims) {
    const dim_t model = d.heads * d.head_dim;
    INFO("B " << d.batch << " T " << d.time << " H " << d.heads << " Dh " << d.head_dim);
    // The first T positions of a cache with room for T + 2.
    const Tensor cache = test::random_tensor({d.batch, d.heads, d.time + 2, d.head_dim}, seed++);
    const Tensor x = cache.slice(2, 0, d.time);
    Tensor y, expected;
    ops::merge_heads(x, y);
    ops::ref::merge_heads(x, expected);
    test::check_identical(y, expected);
    // Written into the left half of a wider buffer; the right half stays untouched.
    Tensor wide = Tensor::zeros({d.batch, d.time, 2 * model});
    Tensor left = wide.slice(2, 0, model);
    ops::merge_heads(x, left);
    test::check_identical(left.clone(), expected);
    test::check_identical(wide.slice(2, model, 2 * model).clone(),
                          Tensor::zeros({d.batch, d.time, model}));
  }
}

TEST_CASE("split_heads writes one decoding step into a cache slot", "[ops]") {
  const dim_t batch = 2, heads = 4, head_dim = 3, capacity = 6;
  Tensor cache = Tensor::zeros({batch, heads, capacity, head_dim});
  Tensor reference = Tensor::zeros({batch, heads, capacity, head_dim});
  for (dim_t t = 0; t < 4; ++t) {
    const Tensor step = test::random_tensor({batch, 1, heads * head_dim}, 30 + t);
    Tensor slot = cache.slice(2, t, t + 1);  // [B, H, 1, Dh], strided
    ops::split_heads(step, heads, slot);
    Tensor ref_slot = reference.slice(2, t, t + 1);
    ops::ref::split_heads(step, heads, ref_slot);
  }
  test::check_identical(cache, reference);
  // Slots past the last step are still zero.
  test::check_identical(cache.slice(2, 4, capacity).clone(),
                        Tensor::zeros({batch, heads, capacity - 4, head_dim}));
}

TEST_CASE("split_heads and merge_heads reject mismatched arguments", "[ops]") {
  const Tensor x = test::random_tensor({2, 3, 10}, 1);
  Tensor y;
  REQUIRE_THROWS_WITH(ops::split_heads(x, 3, y), Catch::Contains("[2, 3, 10]"));
  REQUIRE_THROWS_AS(ops::split_heads(x, 0, y), InternalError);
  REQUIRE_THROWS_AS(ops::split_heads(test::random_tensor({6, 10}, 2), 2, y), InternalError);
  REQUIRE_THROWS_AS(ops::ref::split_heads(x, 3, y), InternalError);
  Tensor buffer({2, 2, 3, 4});
  Tensor view = buffer.view();  // [2, 2, 3, 4] is not [2, 2, 3, 5]
  REQUIRE_THROWS_AS(ops::split_heads(x, 2, view), InternalError);
  REQUIRE_THROWS_AS(ops::merge_heads(x, y), InternalError);
  Tensor heads = test::random_tensor({2, 2, 3, 5}, 3);
  REQUIRE_THROWS_AS(ops::merge_heads(heads, heads), InternalError);
  Tensor merged({2, 3, 9});
  Tensor merged_view = merged.view();
  REQUIRE_THROWS_AS(ops::merge_heads(heads, merged_view), InternalError);
}
