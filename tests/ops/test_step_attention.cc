// step_attention: the fused kernel against the reference (in double), and against the chain of
// general ops it replaces in the decoder (split heads, Q·Kᵀ, masked softmax, P·V, merge heads).
#include <cmath>
#include <cstdint>

#include "ops_test_util.h"
#include "s2s/core/threads.h"
#include "s2s/ops/matmul.h"
#include "s2s/ops/softmax.h"
#include "s2s/ops/step_attention.h"
#include "s2s/ops/transpose.h"

using namespace s2s;

namespace {

struct Case {
  dim_t rows, caches, heads, keys, capacity, head_dim;
  bool map_rows, counts;
};

const Case kCases[] = {
    {1, 1, 1, 1, 1, 1, false, false},     // the smallest
    {3, 3, 2, 5, 8, 4, false, false},     // keys a view of a larger cache
    {8, 2, 4, 17, 17, 64, true, true},    // four hypotheses per sentence, padded sources
    {40, 40, 8, 70, 128, 64, false, true},  // large enough for the parallel loop
    {5, 5, 3, 9, 9, 7, false, true},      // odd head size
};

// Per-row counts from 0 to past L, with 0 and L + 3 forced into the first rows.
Tensor counts_for(const Case& c, unsigned seed) {
  Tensor visible = test::random_ids({c.rows}, seed, 0, static_cast<std::int32_t>(c.keys + 3));
  visible.data<std::int32_t>()[0] = 0;
  if (c.rows > 1) visible.data<std::int32_t>()[1] = static_cast<std::int32_t>(c.keys + 3);
  return visible;
}

}  // namespace

TEST_CASE("step_attention matches the reference", "[ops]") {
  unsigned seed = 100;
  for (const Case& c : kCases) {
    INFO("rows " << c.rows << " caches " << c.caches << " heads " << c.heads << " keys " << c.keys
                 << " head_dim " << c.head_dim);
    const dim_t d = c.heads * c.head_dim;
    // Queries as a column slice of a fused projection [R, 3D], as the decoder passes them.
    const Tensor projected = test::random_tensor({c.rows, 3 * d}, seed++, -2.0f, 2.0f);
    const Tensor queries = projected.slice(1, 0, d);
    const Tensor key_cache = test::random_tensor({c.caches, c.heads, c.capacity, c.head_dim}, seed++);
    const Tensor value_cache = test::random_tensor(key_cache.shape(), seed++);
    const Tensor keys = key_cache.slice(2, 0, c.keys), values = value_cache.slice(2, 0, c.keys);
    Tensor map = test::random_ids({c.rows}, seed++, 0, static_cast<std::int32_t>(c.caches - 1));
    const Tensor visible = counts_for(c, seed++);
    const Tensor* map_arg = c.map_rows ? &map : nullptr;
    const Tensor* visible_arg = c.counts ? &visible : nullptr;
    const float scale = 1.0f / std::sqrt(static_cast<float>(c.head_dim));
    Tensor scores, out, ref_scores, expected;
    ops::step_attention(queries, keys, values, map_arg, visible_arg, scale, scores, out);
    ops::ref::step_attention(queries, keys, values, map_arg, visible_arg, scale, ref_scores,
                             expected);
    S2S_CHECK_CLOSE(out, expected, test::Tolerance::f32_dot);
    if (c.counts) {  // a row that sees no key gets zeros
      for (dim_t i = 0; i < d; ++i) CHECK(out.data<float>()[i] == 0.0f);
    }
  }
}

TEST_CASE("step_attention equals the general attention chain", "[ops]") {
  const dim_t rows = 6, heads = 4, keys = 11, head_dim = 16, d = heads * head_dim;
  const Tensor queries = test::random_tensor({rows, 1, d}, 200, -2.0f, 2.0f);
  const Tensor k = test::random_tensor({rows, heads, keys, head_dim}, 201);
  const Tensor v = test::random_tensor({rows, heads, keys, head_dim}, 202);
  const Tensor lengths = test::ids_of({11, 3, 7, 1, 11, 5});
  Tensor visible({rows, heads, 1}, DataType::i32);
  for (dim_t r = 0; r < rows; ++r)
    for (dim_t h = 0; h < heads; ++h)
      visible.data<std::int32_t>()[r * heads + h] = lengths.data<std::int32_t>()[r];
  const float scale = 0.25f;

  Tensor split, scores, context, expected;
  ops::split_heads(queries, heads, split);  // [R, H, 1, Dh]
  ops::MatmulOptions scaled;
  scaled.transpose_b = true;
  scaled.alpha = scale;
  ops::matmul(split, k, scores, scaled);
  ops::softmax(scores, scores, &visible);
  ops::matmul(scores, v, context);
  ops::merge_heads(context, expected);  // [R, 1, D]

  Tensor scratch, out;
  ops::step_attention(queries, k, v, nullptr, &lengths, scale, scratch, out);
  S2S_CHECK_CLOSE(out, expected, test::Tolerance::f32_dot);
}

TEST_CASE("step_attention gives the same result on 1 and 2 threads", "[ops]") {
  const Case c = kCases[3];
  const dim_t d = c.heads * c.head_dim;
  const Tensor queries = test::random_tensor({c.rows, d}, 300);
  const Tensor keys = test::random_tensor({c.caches, c.heads, c.keys, c.head_dim}, 301);
  const Tensor values = test::random_tensor(keys.shape(), 302);
  const Tensor visible = counts_for(c, 303);
  const int before = num_threads();
  Tensor scratch, one, two;
  set_num_threads(1);
  ops::step_attention(queries, keys, values, nullptr, &visible, 0.125f, scratch, one);
  set_num_threads(2);
  ops::step_attention(queries, keys, values, nullptr, &visible, 0.125f, scratch, two);
  set_num_threads(before);
  test::check_identical(two, one);
}

TEST_CASE("step_attention rejects bad arguments", "[ops]") {
  const Tensor queries = test::random_tensor({2, 8}, 400);
  const Tensor keys = test::random_tensor({2, 2, 3, 4}, 401);
  Tensor scratch, out;
  const Tensor far = test::ids_of({0, 2});
  CHECK_THROWS_WITH(ops::step_attention(queries, keys, keys, &far, nullptr, 1.0f, scratch, out),
                    Catch::Contains("reads cache 2 of 2"));
  const Tensor negative = test::ids_of({1, -1});
  CHECK_THROWS_WITH(
      ops::step_attention(queries, keys, keys, nullptr, &negative, 1.0f, scratch, out),
      Catch::Contains("negative"));
  const Tensor wide = test::random_tensor({2, 9}, 402);
  CHECK_THROWS_WITH(ops::step_attention(wide, keys, keys, nullptr, nullptr, 1.0f, scratch, out),
                    Catch::Contains("expected [R, 8]"));
  const Tensor three = test::random_tensor({3, 8}, 403);
  CHECK_THROWS_WITH(ops::step_attention(three, keys, keys, nullptr, nullptr, 1.0f, scratch, out),
                    Catch::Contains("need a cache_of_row map"));
}
