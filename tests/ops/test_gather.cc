// gather_rows: the memcpy path against the byte-by-byte reference, for several dtypes.
#include <cstdint>

#include "ops_test_util.h"
#include "s2s/ops/gather.h"
#include "support/ops_ref.h"

using namespace s2s;

TEST_CASE("gather_rows matches the reference for any dtype", "[ops]") {
  unsigned seed = 1;
  for (dim_t rows : {1, 7, 513})
    for (dim_t n : {0, 1, 7, 513}) {
      INFO("table rows " << rows << " ids " << n);
      const Tensor ids = test::random_ids({n}, seed++, 0, static_cast<std::int32_t>(rows - 1));
      // f32 [V, D], int32 [V] and int8 [V, 2, 3] tables.
      const Tensor f32 = test::random_tensor({rows, 7}, seed++);
      const Tensor i32 = test::random_ids({rows}, seed++, -1000, 1000);
      Tensor bytes({rows, 2, 3}, DataType::i8);
      for (dim_t i = 0; i < bytes.numel(); ++i)
        bytes.data<std::int8_t>()[i] = static_cast<std::int8_t>(i * 37 % 251 - 125);
      const Tensor i8 = std::move(bytes);
      for (const Tensor* table : {&f32, &i32, &i8}) {
        Tensor out, expected;
        ops::gather_rows(*table, ids, out);
        ops::ref::gather_rows(*table, ids, expected);
        Shape shape = table->shape();
        shape[0] = n;
        CHECK(out.shape() == shape);
        CHECK(out.dtype() == table->dtype());
        test::check_identical(out, expected);
      }
    }
}

TEST_CASE("gather_rows copies the requested rows, repeats included", "[ops]") {
  const Tensor table = test::tensor_of({3, 2}, {0, 1, 10, 11, 20, 21});
  Tensor out;
  ops::gather_rows(table, test::ids_of({2, 0, 2, 1}), out);
  test::check_identical(out, test::tensor_of({4, 2}, {20, 21, 0, 1, 20, 21, 10, 11}));
  Tensor buffer({4, 2});  // a view of the right shape is written in place
  Tensor view = buffer.view();
  ops::gather_rows(table, test::ids_of({1, 1, 1, 1}), view);
  test::check_identical(buffer, test::tensor_of({4, 2}, {10, 11, 10, 11, 10, 11, 10, 11}));
}

TEST_CASE("gather_rows rejects bad ids and mismatched arguments", "[ops]") {
  const Tensor table = test::random_tensor({7, 3}, 1);
  Tensor out;
  REQUIRE_THROWS_AS(ops::gather_rows(table, test::ids_of({0, 7}), out), InternalError);
  REQUIRE_THROWS_WITH(ops::gather_rows(table, test::ids_of({0, 7}), out),
                      Catch::Contains("id 7") && Catch::Contains("position 1"));
  REQUIRE_THROWS_WITH(ops::ref::gather_rows(table, test::ids_of({-1}), out),
                      Catch::Contains("id -1"));
  REQUIRE_THROWS_AS(ops::gather_rows(Tensor({0, 3}), test::ids_of({0}), out), InternalError);
  REQUIRE_THROWS_AS(ops::gather_rows(table, test::random_tensor({2}, 2), out), InternalError);
  REQUIRE_THROWS_AS(ops::gather_rows(table, test::ids_of({0, 1}, {1, 2}), out), InternalError);
  Tensor same = test::random_tensor({7, 3}, 3);
  REQUIRE_THROWS_AS(ops::gather_rows(same, test::ids_of({0}), same), InternalError);
  Tensor buffer({2, 4});
  Tensor view = buffer.view();
  REQUIRE_THROWS_AS(ops::gather_rows(table, test::ids_of({0, 1}), view), InternalError);
}
