// Shared by the tests in tests/ops: the tolerance table (the only one) and small tensor builders.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "../test_utils.h"

namespace s2s::test {

// Relative tolerances for S2S_CHECK_CLOSE. compare() divides the error by max(|expected|, 1e-2),
// so a result that cancels to near zero from terms of size ~1 keeps the absolute float rounding
// of those terms (~1e-7 each) and shows it as a relative error up to ~1e-5 per term. The fast
// paths compute in float, the references in double; each row says what it covers.
struct Tolerance {
  // Element-wise and row ops (softmax, layer_norm, activations, add): a handful of roundings.
  static constexpr double f32 = 1e-5;
  // gelu: oneDNN evaluates erf with a polynomial accurate to ~1e-7; measured worst 2.5e-5.
  static constexpr double f32_erf = 1e-4;
  // matmul with short dot products (K <= 64): measured worst 1.6e-5 at K = 7.
  static constexpr double f32_dot = 5e-5;
  // matmul with long dot products (K = 513): rounding grows like sqrt(K) times the partial sums
  // (~10 here), ~1e-5 absolute; measured worst 1.1e-3 (PackedMatmul, a result of 0.007).
  static constexpr double f32_long_dot = 3e-3;
  // Hand-computed values written down with 7 significant digits.
  static constexpr double exact = 1e-6;
};

inline double matmul_tolerance(dim_t k) {
  if (k <= 1) return Tolerance::f32;
  return k <= 64 ? Tolerance::f32_dot : Tolerance::f32_long_dot;
}

// An owned f32 tensor holding `values` (row-major).
inline Tensor tensor_of(const Shape& shape, const std::vector<float>& values) {
  Tensor t(shape);
  REQUIRE(static_cast<dim_t>(values.size()) == t.numel());
  if (!values.empty()) std::memcpy(t.raw(), values.data(), t.nbytes());
  return t;
}

// An owned int32 tensor [values.size()] (or `shape` when given).
inline Tensor ids_of(const std::vector<std::int32_t>& values, Shape shape = {}) {
  if (shape.empty()) shape = {static_cast<dim_t>(values.size())};
  Tensor t(shape, DataType::i32);
  REQUIRE(static_cast<dim_t>(values.size()) == t.numel());
  if (!values.empty()) std::memcpy(t.raw(), values.data(), t.nbytes());
  return t;
}

// Uniform int32 values in [lo, hi] from a fixed seed.
inline Tensor random_ids(const Shape& shape, unsigned seed, std::int32_t lo, std::int32_t hi) {
  Tensor t(shape, DataType::i32);
  std::mt19937 gen(seed);
  std::uniform_int_distribution<std::int32_t> dist(lo, hi);
  for (dim_t i = 0; i < t.numel(); ++i) t.data<std::int32_t>()[i] = dist(gen);
  return t;
}

// Exact equality of two tensors of any dtype (both contiguous), naming the first differing byte.
inline void check_identical(const Tensor& actual, const Tensor& expected) {
  REQUIRE(actual.shape() == expected.shape());
  REQUIRE(actual.dtype() == expected.dtype());
  const auto* a = static_cast<const unsigned char*>(actual.raw());
  const auto* e = static_cast<const unsigned char*>(expected.raw());
  std::size_t first = actual.nbytes();
  for (std::size_t i = 0; i < actual.nbytes() && first == actual.nbytes(); ++i)
    if (a[i] != e[i]) first = i;
  INFO("first differing byte " << first << " of " << actual.nbytes());
  CHECK(first == actual.nbytes());
}

}  // namespace s2s::test
