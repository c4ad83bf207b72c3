// PackedMatmul against the reference matmul on the unpacked weight, in both weight layouts.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <thread>
#include <tuple>
#include <vector>

#include "ops_test_util.h"
#include "s2s/core/allocator.h"
#include "s2s/core/threads.h"
#include "s2s/ops/matmul.h"
#include "s2s/ops/packed_matmul.h"
#include "s2s/ops/softmax.h"
#include "support/ops_ref.h"

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

TEST_CASE("PackedMatmul keeps a weight it is given when it needs no repacking", "[ops]") {
  // With a runtime row count (CPUs without brgemm) float32 runs on oneDNN's plain layout, and an
  // in_out weight keeps the given buffer; everything else is packed into its own (float32 with
  // fixed rows: brgemm's blocked layout). The results are the same bits either way.
  const auto precision = GENERATE(ops::Precision::f32, ops::Precision::bf16, ops::Precision::int8);
  const bool transposed = GENERATE(false, true);
  const bool runtime_rows = GENERATE(false, true);
  const ops::Packing packing(precision, 0, runtime_rows);
  if (!test::cpu_computes(precision)) return;
  const dim_t k = 96, n = 200;
  const auto layout = transposed ? ops::WeightLayout::out_in : ops::WeightLayout::in_out;
  const Tensor weight = test::random_tensor(transposed ? Shape{n, k} : Shape{k, n}, 71);
  const Tensor bias = test::random_tensor({n}, 72);
  const Tensor x = test::random_tensor({5, k}, 73);
  const ops::PackedMatmul copied(weight, layout, &bias, packing);
  Tensor given = weight.clone();
  const void* given_data = given.raw();
  const ops::PackedMatmul kept(std::move(given), layout, &bias, packing);
  INFO(ops::precision_name(precision) << " out_in " << transposed << " runtime rows "
                                      << runtime_rows);
  if (runtime_rows || precision != ops::Precision::f32)  // else: does this CPU have brgemm?
    CHECK((kept.weight_data() == given_data) ==
          (precision == ops::Precision::f32 && !transposed));
  CHECK(copied.weight_data() != weight.raw());
  Tensor y_copied, y_kept;
  copied(x, y_copied);
  kept(x, y_kept);
  REQUIRE(y_kept.numel() == y_copied.numel());
  CHECK(std::memcmp(y_kept.raw(), y_copied.raw(), y_kept.nbytes()) == 0);
  // A view is never kept: its memory belongs to someone else.
  const ops::PackedMatmul from_view(weight.view(), layout, &bias, packing);
  CHECK(from_view.weight_data() != weight.raw());
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

// oneDNN splits a one-row product's sum between threads (packed_matmul_dnnl.cc): PackedMatmul runs
// those on one thread, so that a resumed or sharded run matches a whole one at any --threads. The
// shapes are a d 256-1024 model's (M 3 and more never differed, on AVX2 or AVX-512).
TEST_CASE("PackedMatmul gives the same bits on 1 and 2 threads", "[ops]") {
  const auto precision = GENERATE(ops::Precision::f32, ops::Precision::bf16, ops::Precision::int8);
  if (!test::cpu_computes(precision)) return;
  // A runtime row count for float32, and for int8 as CPUs without brgemm run it. Not for
  // bfloat16: every CPU with AVX512-BF16 has brgemm, and gemm:jit's bfloat16 one-row products
  // from 1024 columns up do depend on the thread count (found by this test).
  const bool runtime_rows = GENERATE(false, true);
  if (runtime_rows && precision == ops::Precision::bf16) return;
  const ops::Packing packing(precision, 0, runtime_rows);
  const int threads_before = num_threads();
  unsigned seed = 300;
  for (dim_t k : {256, 1024})
    for (dim_t n : {256, 512, 768, 1000, 1024, 2048}) {
      const Tensor weight = test::random_tensor({k, n}, seed++);
      const Tensor bias = test::random_tensor({n}, seed++);
      const ops::PackedMatmul packed(weight, ops::WeightLayout::in_out, &bias, packing);
      for (dim_t m : {1, 3, 8, 33, 130}) {
        const Tensor x = test::random_tensor({m, k}, seed++);
        Tensor one, two;
        set_num_threads(1);
        packed(x, one);
        set_num_threads(2);
        packed(x, two);
        INFO(ops::precision_name(precision) << " runtime rows " << runtime_rows << " M " << m
                                            << " K " << k << " N " << n);
        CHECK(std::memcmp(one.data<float>(), two.data<float>(),
                          static_cast<std::size_t>(m * n) * sizeof(float)) == 0);
      }
    }
  set_num_threads(threads_before);
}

TEST_CASE("PackedMatmul's log-softmax epilogue writes log_softmax's bits", "[ops]") {
  const auto precision = GENERATE(ops::Precision::f32, ops::Precision::bf16, ops::Precision::int8);
  if (!test::cpu_computes(precision)) return;
  const bool runtime_rows = GENERATE(false, true);
  const ops::Packing packing(precision, 0, runtime_rows);
  const Tensor weight = test::random_tensor({64, 3000}, 410, -2.0f, 2.0f);
  const Tensor bias = test::random_tensor({3000}, 411);
  const ops::PackedMatmul packed(weight, ops::WeightLayout::in_out, &bias, packing);
  // 1 and 7: float32's panel path; 130: two pieces of fixed-row products, the last padded.
  for (dim_t m : {1, 7, 130}) {
    INFO(ops::precision_name(precision) << " runtime rows " << runtime_rows << " M " << m);
    const Tensor x = test::random_tensor({m, 64}, 412 + static_cast<unsigned>(m));
    Tensor logits, expected, y;
    packed(x, logits);
    ops::log_softmax(logits, expected);
    packed(x, y, ops::Epilogue::log_softmax);
    REQUIRE(y.shape() == expected.shape());
    CHECK(std::memcmp(expected.data<float>(), y.data<float>(),
                      static_cast<std::size_t>(m * 3000) * sizeof(float)) == 0);
    // Not the logits: the epilogue ran (each row's largest log-probability is at most 0).
    CHECK(*std::max_element(y.data<float>(), y.data<float>() + 3000) <= 0.0f);
    CHECK(std::memcmp(logits.data<float>(), y.data<float>(), 3000 * sizeof(float)) != 0);
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

namespace {

// What bf16 keeps of a float: round to nearest even at 16 bits.
float round_to_bf16(float v) {
  std::uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  bits &= 0xffff0000u;
  std::memcpy(&v, &bits, sizeof bits);
  return v;
}

// The int8 scheme of precision.h, written out: symmetric per-row (x) and per-column (W) scales
// max|.| / 127 (x) and max|.| / levels (W), values rounded to nearest, products summed exactly,
// scaled back, bias added.
std::vector<double> int8_expected(const std::vector<float>& x, dim_t m, dim_t k,
                                  const std::vector<float>& w, dim_t n, const float* bias,
                                  int levels) {
  std::vector<double> y(static_cast<std::size_t>(m * n));
  std::vector<float> w_scale(static_cast<std::size_t>(n));
  for (dim_t c = 0; c < n; ++c) {
    float amax = 0;
    for (dim_t r = 0; r < k; ++r) amax = std::max(amax, std::fabs(w[r * n + c]));
    w_scale[c] = amax > 0 ? amax / static_cast<float>(levels) : 1.0f;
  }
  for (dim_t i = 0; i < m; ++i) {
    float amax = 0;
    for (dim_t r = 0; r < k; ++r) amax = std::max(amax, std::fabs(x[i * k + r]));
    const float x_scale = amax > 0 ? amax / 127.0f : 1.0f;
    for (dim_t c = 0; c < n; ++c) {
      std::int64_t acc = 0;
      for (dim_t r = 0; r < k; ++r)
        acc += std::lrintf(x[i * k + r] * (1.0f / x_scale)) * std::lrintf(w[r * n + c] / w_scale[c]);
      y[i * n + c] = double(acc) * w_scale[c] * x_scale + (bias ? bias[c] : 0.0);
    }
  }
  return y;
}

}  // namespace

TEST_CASE("PackedMatmul in bfloat16 and int8 computes exactly the scheme of precision.h",
          "[ops]") {
  // int8 at this CPU's weight levels, and at 7 bits (63) on every CPU: what CPUs without VNNI
  // use, computed without saturating there (random values of both signs near the extremes
  // saturate vpmaddubsw's pair sums at 127 levels).
  const int variant = GENERATE(0, 1, 2);  // bf16, int8 (the CPU's levels), int8 at 63 levels
  const auto precision = variant == 0 ? ops::Precision::bf16 : ops::Precision::int8;
  // Fixed row counts (brgemm, where oneDNN has it for this CPU) and a runtime row count.
  const bool runtime_rows = GENERATE(false, true);
  const int levels = variant == 2 ? 63 : ops::int8_weight_levels();
  const ops::Packing packing(precision, levels, runtime_rows);
  const bool transposed = GENERATE(false, true);
  const bool with_bias = GENERATE(false, true);
  if (!test::cpu_computes(precision)) {  // refused, never computed wrongly
    const Tensor w = test::random_tensor({8, 8}, 1);
    CHECK_THROWS_WITH(ops::PackedMatmul(w, ops::WeightLayout::in_out, nullptr, precision),
                      Catch::Contains("needs a CPU with"));
    return;
  }
  unsigned seed = 300;
  // Row counts: exact buckets, padded ones (17, 45, 71) and more than one piece (200: 128 + 72).
  for (const auto& [m, k, n] : {std::tuple<dim_t, dim_t, dim_t>{1, 7, 5}, {9, 64, 33},
                                {16, 256, 300}, {3, 513, 17}, {17, 64, 40}, {45, 32, 70},
                                {71, 48, 24}, {200, 40, 36}}) {
    const Tensor stored = test::random_tensor(transposed ? Shape{n, k} : Shape{k, n}, seed++);
    const Tensor bias = test::random_tensor({n}, seed++);
    Tensor x = test::random_tensor({m, k}, seed++, -3.0f, 3.0f);
    for (dim_t c = 0; c < k; ++c) x.data<float>()[c] = 0.0f;  // an all-zero row: scale 1
    const auto layout = transposed ? ops::WeightLayout::out_in : ops::WeightLayout::in_out;
    const ops::PackedMatmul packed(stored, layout, with_bias ? &bias : nullptr, packing);
    Tensor y;
    packed(x, y);

    std::vector<float> w(static_cast<std::size_t>(k * n)), xs(x.data<float>(), x.data<float>() + m * k);
    for (dim_t r = 0; r < k; ++r)
      for (dim_t c = 0; c < n; ++c)
        w[r * n + c] = transposed ? stored.data<float>()[c * k + r] : stored.data<float>()[r * n + c];
    std::vector<double> expected(static_cast<std::size_t>(m * n));
    if (precision == ops::Precision::int8) {
      expected = int8_expected(xs, m, k, w, n, with_bias ? bias.data<float>() : nullptr, levels);
    } else {
      for (dim_t i = 0; i < m; ++i)
        for (dim_t c = 0; c < n; ++c) {
          double acc = with_bias ? bias.data<float>()[c] : 0.0;
          for (dim_t r = 0; r < k; ++r)
            acc += double(round_to_bf16(xs[i * k + r])) * round_to_bf16(w[r * n + c]);
          expected[i * n + c] = acc;
        }
    }
    double worst = 0, scale = 1e-6;
    for (std::size_t i = 0; i < expected.size(); ++i) {
      worst = std::max(worst, std::fabs(y.data<float>()[i] - expected[i]));
      scale = std::max(scale, std::fabs(expected[i]));
    }
    INFO(ops::precision_name(precision) << " (weight levels " << levels << ", runtime rows "
                                        << runtime_rows << ") M " << m << " K "
                                        << k << " N " << n << " out_in " << transposed << " bias "
                                        << with_bias);
    CHECK(worst <= 2e-5 * scale * std::sqrt(double(k)));  // float32 accumulation of exact products
  }
}

TEST_CASE("precision names", "[ops]") {
  for (const auto p : {ops::Precision::f32, ops::Precision::bf16, ops::Precision::int8})
    CHECK(ops::parse_precision(ops::precision_name(p)) == p);
  CHECK(ops::parse_precision("bf16") == ops::Precision::bf16);
  CHECK(ops::parse_precision("i8") == ops::Precision::int8);
  CHECK_FALSE(ops::parse_precision("int4"));
}

// A model's load packs weights into memory freed by earlier weights (ReuseFreedBuffers), which is
// not zeroed as a fresh mapping is: the padding of the blocked layouts (K to 16, N to 64) must be
// written by the packing itself. Here the packed weight lands in a block full of NaN bytes.
TEST_CASE("PackedMatmul packs correctly into reused memory that holds garbage", "[ops]") {
  const auto precision = GENERATE(ops::Precision::f32, ops::Precision::bf16, ops::Precision::int8);
  const bool runtime_rows = GENERATE(false, true);
  const ops::Packing packing(precision, 0, runtime_rows);
  if (!test::cpu_computes(precision)) return;
  const dim_t k = 2049, n = 1037;  // neither a multiple of 16 nor of 64: padding everywhere
  const Tensor weight = test::random_tensor({k, n}, 81);
  const Tensor x = test::random_tensor({9, k}, 82);
  Tensor expected;
  {
    const ops::PackedMatmul fresh(weight, ops::WeightLayout::in_out, nullptr, packing);
    fresh(x, expected);
  }
  const ReuseFreedBuffers reuse;
  std::vector<const void*> blocks;
  {
    // Blocks of the sizes this weight packs into (int8 ~2.2 MB, bfloat16 ~4.5, float32 ~9,
    // rounded up to huge pages), filled with NaN bits and freed into the pool.
    std::vector<std::shared_ptr<void>> dirty;
    for (std::size_t mb : {4, 4, 6, 6, 10, 10}) {  // two each: temporaries may take one
      dirty.push_back(aligned_buffer(mb << 20));
      std::memset(dirty.back().get(), 0xff, mb << 20);
      blocks.push_back(dirty.back().get());
    }
  }
  const ops::PackedMatmul reused(weight, ops::WeightLayout::in_out, nullptr, packing);
  Tensor y;
  reused(x, y);
  INFO(ops::precision_name(precision) << " runtime rows " << runtime_rows);
  CHECK(std::find(blocks.begin(), blocks.end(), reused.weight_data()) != blocks.end());
  REQUIRE(y.numel() == expected.numel());
  CHECK(std::memcmp(y.raw(), expected.raw(), y.nbytes()) == 0);
}
