// step_attention: the fused kernel against the reference (in double), and against the chain of
// general ops it replaces in the decoder (split heads, Q·Kᵀ, masked softmax, P·V, merge heads).
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "ops_test_util.h"
#include "s2s/core/threads.h"
#include "support/ops_ref.h"
#include "s2s/ops/convert.h"
#include "s2s/ops/matmul.h"
#include "s2s/ops/softmax.h"
#include "s2s/ops/step_attention.h"
#include "s2s/ops/transpose.h"

using namespace s2s;

namespace {

enum class Map { none, per_row, per_key };

struct Case {
  dim_t rows, caches, heads, keys, capacity, head_dim;
  Map map;
  bool counts;
};

const Case kCases[] = {
    {1, 1, 1, 1, 1, 1, Map::none, false},       // the smallest
    {3, 3, 2, 5, 8, 4, Map::none, false},       // keys a view of a larger cache
    {8, 2, 4, 17, 17, 64, Map::per_row, true},  // four hypotheses per sentence, padded sources
    {40, 40, 8, 70, 128, 64, Map::none, true},  // large enough for the parallel loop
    {5, 5, 3, 9, 9, 7, Map::none, true},        // odd head size
    {6, 8, 2, 12, 16, 8, Map::per_key, false},  // beam histories through a position-major cache
    {40, 48, 8, 70, 96, 64, Map::per_key, true},  // the same, parallel
    // Head sizes and counts that the AVX-512 kernel splits into groups of 8, 4, 2 and 1 heads.
    {3, 4, 6, 9, 12, 32, Map::per_key, true},     // a few rows: one head per work item
    {10, 12, 11, 13, 16, 32, Map::per_key, false},  // 8 + 2 + 1 heads of 32
    {16, 16, 6, 33, 40, 64, Map::none, true},     // 4 + 2 heads of 64
    {12, 4, 5, 20, 24, 128, Map::per_row, true},  // 2 + 2 + 1 heads of 128
};

// Per-row counts from 0 to past L, with 0 and L + 3 forced into the first rows.
Tensor counts_for(const Case& c, unsigned seed) {
  Tensor visible = test::random_ids({c.rows}, seed, 0, static_cast<std::int32_t>(c.keys + 3));
  visible.data<std::int32_t>()[0] = 0;
  if (c.rows > 1) visible.data<std::int32_t>()[1] = static_cast<std::int32_t>(c.keys + 3);
  return visible;
}

}  // namespace

namespace {

// One case's inputs, the caches stored as `cache_type` (the int8 and bfloat16 precisions keep
// them in bfloat16). Not copyable: `rows` points into it.
struct Inputs {
  Tensor projected, queries, stored_keys, stored_values, keys, values, per_row, per_key, visible;
  ops::StepAttentionRows rows;
  float scale;

  Inputs(const Case& c, DataType cache_type, unsigned seed) {
    const dim_t d = c.heads * c.head_dim;
    // Queries as a column slice of a fused projection [R, 3D], as the decoder passes them.
    projected = test::random_tensor({c.rows, 3 * d}, seed++, -2.0f, 2.0f);
    queries = projected.slice(1, 0, d);
    // Caches [N, H, L, Dh] as a view of [N, H, capacity, Dh]; per key: a view of the decoder's
    // position-major [capacity, N, H, Dh].
    const Shape cache_shape = c.map == Map::per_key
                                  ? Shape{c.capacity, c.caches, c.heads, c.head_dim}
                                  : Shape{c.caches, c.heads, c.capacity, c.head_dim};
    ops::convert(test::random_tensor(cache_shape, seed++), cache_type, stored_keys);
    ops::convert(test::random_tensor(cache_shape, seed++), cache_type, stored_values);
    const auto usable = [&](const Tensor& cache) {
      return c.map == Map::per_key ? cache.slice(0, 0, c.keys).permuted({1, 2, 0, 3})
                                   : cache.slice(2, 0, c.keys);
    };
    keys = usable(stored_keys);
    values = usable(stored_values);
    const auto last_cache = static_cast<std::int32_t>(c.caches - 1);
    per_row = test::random_ids({c.rows}, seed++, 0, last_cache);
    per_key = test::random_ids({c.rows, c.keys + 2}, seed++, 0, last_cache);
    visible = counts_for(c, seed++);
    if (c.map == Map::per_row) rows.cache_of_row = &per_row;
    if (c.map == Map::per_key) rows.cache_of_key = &per_key;
    if (c.counts) rows.visible = &visible;
    scale = 1.0f / std::sqrt(static_cast<float>(c.head_dim));
  }
  Inputs(const Inputs&) = delete;
  Inputs& operator=(const Inputs&) = delete;

  void attend(Tensor& scores, Tensor& out) const {
    ops::step_attention(queries, keys, values, rows, scale, scores, out);
  }
  void attend(backend::CpuIsa isa, Tensor& scores, Tensor& out) const {
    ops::step_attention(isa, queries, keys, values, rows, scale, scores, out);
  }
};

}  // namespace

TEST_CASE("step_attention matches the reference", "[ops]") {
  unsigned seed = 100;
  for (const Case& c : kCases) {
    INFO("rows " << c.rows << " caches " << c.caches << " heads " << c.heads << " keys " << c.keys
                 << " head_dim " << c.head_dim);
    const DataType cache_type = GENERATE(DataType::f32, DataType::bf16);
    INFO("caches " << dtype_name(cache_type));
    const Inputs in(c, cache_type, seed);
    seed += 10;
    Tensor scores, out, ref_scores, expected;
    in.attend(scores, out);
    ops::ref::step_attention(in.queries, in.keys, in.values, in.rows, in.scale, ref_scores,
                             expected);
    S2S_CHECK_CLOSE(out, expected, test::Tolerance::f32_dot);
    if (c.counts) {  // a row that sees no key gets zeros
      for (dim_t i = 0; i < c.heads * c.head_dim; ++i) CHECK(out.data<float>()[i] == 0.0f);
    }
  }
}

// The AVX-512 kernel (head dimensions 32, 64, 128) computes the scores as the portable kernel
// does, so that the softmax gives the same probabilities; both kernels' outputs match the
// reference (their value sums round differently where GCC does not fuse the portable one's).
TEST_CASE("step_attention's kernels of every ISA give the portable kernel's probabilities",
          "[ops]") {
  if (backend::detected_cpu_isa() != backend::CpuIsa::avx512)
    WARN("no AVX-512 here: every ISA this CPU runs takes the portable kernel");
  unsigned seed = 500;
  for (const Case& c : kCases) {
    if (c.head_dim != 32 && c.head_dim != 64 && c.head_dim != 128) continue;
    INFO("rows " << c.rows << " heads " << c.heads << " keys " << c.keys << " head_dim "
                 << c.head_dim);
    const DataType cache_type = GENERATE(DataType::f32, DataType::bf16);
    INFO("caches " << dtype_name(cache_type));
    const Inputs in(c, cache_type, seed);
    seed += 10;
    Tensor portable_scores, portable, ref_scores, expected;
    in.attend(backend::CpuIsa::generic, portable_scores, portable);
    ops::ref::step_attention(in.queries, in.keys, in.values, in.rows, in.scale, ref_scores,
                             expected);
    S2S_CHECK_CLOSE(portable, expected, test::Tolerance::f32_dot);
    for (const backend::CpuIsa isa : backend::runnable_isas()) {
      INFO("isa " << backend::isa_name(isa));
      Tensor fast_scores, fast;
      in.attend(isa, fast_scores, fast);
      S2S_CHECK_CLOSE(fast, expected, test::Tolerance::f32_dot);
      for (dim_t r = 0; r < c.rows; ++r) {  // the probabilities of the keys each row sees
        const dim_t seen =
            c.counts ? std::min<dim_t>(in.visible.data<std::int32_t>()[r], c.keys) : c.keys;
        for (dim_t h = 0; h < c.heads; ++h)
          for (dim_t j = 0; j < seen; ++j) {
            const dim_t at = (r * c.heads + h) * c.keys + j;
            REQUIRE(fast_scores.data<float>()[at] == portable_scores.data<float>()[at]);
          }
      }
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
  ops::StepAttentionRows padded;
  padded.visible = &lengths;
  ops::step_attention(queries, k, v, padded, scale, scratch, out);
  S2S_CHECK_CLOSE(out, expected, test::Tolerance::f32_dot);
}

TEST_CASE("step_attention gives the same result on 1 and 2 threads", "[ops]") {
  const Case c = kCases[3];
  const dim_t d = c.heads * c.head_dim;
  const Tensor queries = test::random_tensor({c.rows, d}, 300);
  const Tensor keys = test::random_tensor({c.caches, c.heads, c.keys, c.head_dim}, 301);
  const Tensor values = test::random_tensor(keys.shape(), 302);
  const Tensor visible = counts_for(c, 303);
  ops::StepAttentionRows rows;
  rows.visible = &visible;
  const int before = num_threads();
  Tensor scratch, one, two;
  set_num_threads(1);
  ops::step_attention(queries, keys, values, rows, 0.125f, scratch, one);
  set_num_threads(2);
  ops::step_attention(queries, keys, values, rows, 0.125f, scratch, two);
  set_num_threads(before);
  test::check_identical(two, one);
}

TEST_CASE("step_attention rejects bad arguments", "[ops]") {
  const Tensor queries = test::random_tensor({2, 8}, 400);
  const Tensor keys = test::random_tensor({2, 2, 3, 4}, 401);
  Tensor scratch, out;
  const auto call = [&](const Tensor& q, const ops::StepAttentionRows& rows) {
    ops::step_attention(q, keys, keys, rows, 1.0f, scratch, out);
  };
  const Tensor far = test::ids_of({0, 2});
  ops::StepAttentionRows by_row;
  by_row.cache_of_row = &far;
  CHECK_THROWS_WITH(call(queries, by_row), Catch::Contains("reads cache 2 of 2"));
  const Tensor far_key = test::ids_of({0, 1, 0, 1, 1, 5}, {2, 3});
  ops::StepAttentionRows by_key;
  by_key.cache_of_key = &far_key;
  CHECK_THROWS_WITH(call(queries, by_key), Catch::Contains("row 1 reads cache 5 of 2"));
  const Tensor short_table = test::ids_of({0, 1, 0, 1}, {2, 2});
  by_key.cache_of_key = &short_table;
  CHECK_THROWS_WITH(call(queries, by_key), Catch::Contains("expected [2, >= 3]"));
  by_key.cache_of_row = &far;
  CHECK_THROWS_WITH(call(queries, by_key), Catch::Contains("not both"));
  const Tensor negative = test::ids_of({1, -1});
  ops::StepAttentionRows counts;
  counts.visible = &negative;
  CHECK_THROWS_WITH(call(queries, counts), Catch::Contains("negative"));
  const Tensor wide = test::random_tensor({2, 9}, 402);
  CHECK_THROWS_WITH(call(wide, {}), Catch::Contains("expected [R, 8]"));
  const Tensor three = test::random_tensor({3, 8}, 403);
  CHECK_THROWS_WITH(call(three, {}), Catch::Contains("need a cache_of_row map"));
  Tensor half_keys;
  ops::convert(keys, DataType::bf16, half_keys);
  CHECK_THROWS_WITH(ops::step_attention(queries, half_keys, keys, {}, 1.0f, scratch, out),
                    Catch::Contains("values is float32, expected bfloat16"));
  const Tensor int_keys = test::random_ids({2, 2, 3, 4}, 404, 0, 9);
  CHECK_THROWS_WITH(ops::step_attention(queries, int_keys, int_keys, {}, 1.0f, scratch, out),
                    Catch::Contains("expected float32 or bfloat16"));
}
