// ops::convert: float32 <-> bfloat16 bit for bit (rounding to nearest even, NaN, infinities,
// subnormals), strided views, and bad arguments.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "ops_test_util.h"
#include "s2s/ops/convert.h"

using namespace s2s;

namespace {

float from_bits(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

std::uint16_t bf16_at(const Tensor& t, dim_t i) {
  return static_cast<const std::uint16_t*>(t.raw())[i];
}

}  // namespace

TEST_CASE("convert rounds float32 to bfloat16 to nearest even", "[ops]") {
  // {input bits, expected bfloat16 bits}
  const std::pair<std::uint32_t, std::uint16_t> cases[] = {
      {0x3f800000u, 0x3f80u},  // 1: exact
      {0x3f808000u, 0x3f80u},  // 1 + 2^-8: a tie, to the even 1
      {0x3f818000u, 0x3f82u},  // 1 + 3·2^-8: a tie, to the even 1 + 2^-6
      {0x3f808001u, 0x3f81u},  // just above the tie: up
      {0x3f807fffu, 0x3f80u},  // just below: down
      {0xbf808001u, 0xbf81u},  // negative, away from zero as the magnitude says
      {0x7f7fffffu, 0x7f80u},  // the largest float rounds to infinity
      {0x7f800000u, 0x7f80u},  // +inf
      {0xff800000u, 0xff80u},  // -inf
      {0x00000001u, 0x0000u},  // the smallest subnormal rounds to zero
      {0x00018000u, 0x0002u},  // a subnormal tie, to even (not flushed to zero)
      {0x80000000u, 0x8000u},  // -0
  };
  Tensor x({static_cast<dim_t>(std::size(cases))});
  for (std::size_t i = 0; i < std::size(cases); ++i)
    x.data<float>()[i] = from_bits(cases[i].first);
  Tensor y;
  ops::convert(x, DataType::bf16, y);
  REQUIRE(y.dtype() == DataType::bf16);
  REQUIRE(y.shape() == x.shape());
  for (std::size_t i = 0; i < std::size(cases); ++i) {
    INFO("input bits 0x" << std::hex << cases[i].first);
    CHECK(bf16_at(y, static_cast<dim_t>(i)) == cases[i].second);
  }
}

TEST_CASE("convert keeps NaN a NaN and widens bfloat16 exactly", "[ops]") {
  Tensor x({3});
  x.data<float>()[0] = std::numeric_limits<float>::quiet_NaN();
  x.data<float>()[1] = from_bits(0x7f800001u);  // a signalling NaN whose payload rounding would lose
  x.data<float>()[2] = 3.140625f;
  Tensor half, back;
  ops::convert(x, DataType::bf16, half);
  ops::convert(half, DataType::f32, back);
  CHECK(std::isnan(back.data<float>()[0]));
  CHECK(std::isnan(back.data<float>()[1]));
  CHECK(back.data<float>()[2] == 3.140625f);  // representable in bfloat16
  // Every bfloat16 that is not a NaN widens to the float with the same upper half.
  Tensor all({65536}, DataType::bf16);
  for (std::uint32_t i = 0; i < 65536; ++i) static_cast<std::uint16_t*>(all.raw())[i] = static_cast<std::uint16_t>(i);
  Tensor wide, again;
  ops::convert(all, DataType::f32, wide);
  ops::convert(wide, DataType::bf16, again);
  for (std::uint32_t i = 0; i < 65536; ++i) {
    std::uint32_t bits;
    std::memcpy(&bits, &wide.data<float>()[i], sizeof bits);
    REQUIRE(bits == i << 16);
    if (!std::isnan(wide.data<float>()[i])) REQUIRE(bf16_at(again, i) == i);
  }
}

TEST_CASE("convert reads and writes strided views", "[ops]") {
  // A column slice of a fused [R, 3D] projection into rows of a larger bfloat16 cache slab.
  const Tensor projected = test::random_tensor({4, 1, 24}, 500, -3.0f, 3.0f);
  Tensor cache({6, 1, 8}, DataType::bf16);
  cache.fill_zero();
  Tensor rows = cache.slice(0, 1, 5);
  ops::convert(projected.slice(-1, 8, 16), DataType::bf16, rows);
  Tensor slice_copy = projected.slice(-1, 8, 16).clone(), expected;
  ops::convert(slice_copy, DataType::bf16, expected);
  for (dim_t i = 0; i < 8; ++i) CHECK(bf16_at(cache, i) == 0);  // row 0 untouched
  for (dim_t i = 0; i < 32; ++i) CHECK(bf16_at(cache, 8 + i) == bf16_at(expected, i));
  for (dim_t i = 40; i < 48; ++i) CHECK(bf16_at(cache, i) == 0);  // row 5 untouched
  // Same type: a copy.
  Tensor copy;
  ops::convert(projected.slice(-1, 8, 16), DataType::f32, copy);
  test::check_identical(copy, slice_copy);
}

TEST_CASE("convert rejects bad arguments", "[ops]") {
  const Tensor x = test::random_tensor({2, 4}, 510);
  Tensor out;
  const Tensor ids = test::ids_of({1, 2});
  CHECK_THROWS_WITH(ops::convert(ids, DataType::f32, out), Catch::Contains("convert x is int32"));
  CHECK_THROWS_WITH(ops::convert(x, DataType::i8, out), Catch::Contains("convert y is int8"));
  Tensor small({2, 3}, DataType::bf16);
  Tensor view = small.slice(1, 0, 3);
  CHECK_THROWS_WITH(ops::convert(x, DataType::bf16, view), Catch::Contains("output view is [2, 3]"));
  Tensor wide({4, 2});
  Tensor column = wide.slice(1, 0, 1);
  const Tensor two = test::random_tensor({4, 1}, 511);
  CHECK_NOTHROW(ops::convert(two, DataType::f32, column));  // one column: its last axis is contiguous
  const Tensor transposed = x.permuted({1, 0});
  CHECK_THROWS_WITH(ops::convert(transposed, DataType::bf16, out), Catch::Contains("contiguous last axis"));
}
