// Tensor: views, strided slices, copies and buffer reuse.
#include "test_utils.h"

namespace s2s {

TEST_CASE("resize reuses the buffer when the new size fits", "[core]") {
  Tensor t({4, 8});
  const void* first = t.raw();
  const std::size_t allocations = Tensor::allocation_count();
  t.resize({2, 8});
  t.resize({4, 8});
  CHECK(t.raw() == first);
  CHECK(Tensor::allocation_count() == allocations);
  t.resize({5, 8});
  CHECK(Tensor::allocation_count() == allocations + 1);
  CHECK(reinterpret_cast<std::uintptr_t>(t.raw()) % 64 == 0);
}

TEST_CASE("slices are strided views and copy_from handles them", "[core]") {
  Tensor t = test::random_tensor({2, 3, 5, 4}, 7);
  Tensor s = t.slice(2, 1, 3);  // [2, 3, 2, 4]
  CHECK(s.shape() == Shape{2, 3, 2, 4});
  CHECK_FALSE(s.is_contiguous());
  CHECK_FALSE(s.owns_buffer());
  Tensor c = s.clone();
  CHECK(c.is_contiguous());
  for (dim_t a = 0; a < 2; ++a)
    for (dim_t b = 0; b < 3; ++b)
      for (dim_t p = 0; p < 2; ++p)
        for (dim_t d = 0; d < 4; ++d)
          CHECK(c.data<float>()[((a * 3 + b) * 2 + p) * 4 + d] ==
                t.data<float>()[((a * 3 + b) * 5 + p + 1) * 4 + d]);
  // Writing through a strided view lands in the parent.
  Tensor zeros = Tensor::zeros({2, 3, 2, 4});
  s.copy_from(zeros);
  CHECK(t.data<float>()[1 * 4] == 0.0f);
  CHECK(t.data<float>()[0] != 0.0f);
}

TEST_CASE("reshape keeps data, and bad reshapes and accesses throw", "[core]") {
  Tensor t = test::random_tensor({6, 4}, 3);
  const float first = t.data<float>()[5];
  t.reshape({2, 3, 4});
  CHECK(t.shape() == Shape{2, 3, 4});
  CHECK(t.data<float>()[5] == first);
  CHECK(t.reshaped({-1, 4}).shape() == Shape{6, 4});
  CHECK_THROWS_AS(t.reshaped({5, 5}), InternalError);
  CHECK_THROWS_AS(t.data<std::int32_t>(), InternalError);
  CHECK_THROWS_AS(t.slice(1, 2, 4), InternalError);
  Tensor view = t.view();
  CHECK_THROWS_AS(view.resize({100}), InternalError);
}

TEST_CASE("empty tensors are valid", "[core]") {
  Tensor t({0, 16});
  CHECK(t.numel() == 0);
  CHECK(t.empty());
  Tensor c = t.clone();
  CHECK(c.shape() == Shape{0, 16});
}

}  // namespace s2s
