// Helpers shared by the tests: tensor comparisons that name the first mismatch, random tensors,
// and paths to the committed fixtures.
#pragma once

#include <catch2/catch.hpp>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>

#include "s2s/core/tensor.h"
#include "s2s/ops/precision.h"
#include "s2s/text/segment.h"

namespace s2s::test {

// An English sentence splitter, built once (ICU loads its rules and abbreviations).
inline const text::SentenceSplitter& english_sentences() {
  static const text::SentenceSplitter splitter("en");
  return splitter;
}

// Whether this CPU computes `precision` (ops::unsupported_reason): tests of bfloat16 and int8
// numbers skip a precision it cannot, and test_packed_matmul.cc checks the refusal instead.
inline bool cpu_computes(ops::Precision precision) {
  const std::string reason = ops::unsupported_reason(precision);
  if (!reason.empty()) WARN("skipped on this CPU: " << reason);
  return reason.empty();
}

// The s2s command built beside these tests (tests/s2s_binary.cc; its path is the one compile
// definition that differs between build folders, so the other test sources compile the same in
// every build folder and ccache reuses them: docs/ci.md).
const std::string& s2s_binary();

inline std::string data_path(const std::string& relative) {
  return std::string(S2S_TEST_DATA) + "/" + relative;
}

// A scratch directory removed at the end of the test; `tag` names it for whoever looks in /tmp.
struct TempDir {
  std::filesystem::path dir;
  explicit TempDir(const std::string& tag = "s2s") {
    static int serial = 0;
    dir = std::filesystem::temp_directory_path() /
          (tag + "_" + std::to_string(getpid()) + "_" + std::to_string(serial++));
    std::filesystem::create_directories(dir);
  }
  ~TempDir() { std::filesystem::remove_all(dir); }
  std::string write(const std::string& name, const std::string& bytes) const {
    const std::string path = (dir / name).string();
    std::filesystem::remove(path);  // a new file each time: truncating in place makes ext4 flush on close
    std::ofstream(path, std::ios::binary).write(bytes.data(), bytes.size());
    return path;
  }
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Fills an owned f32 tensor with uniform values in [lo, hi) from a fixed seed.
inline Tensor random_tensor(const Shape& shape, unsigned seed, float lo = -1.0f, float hi = 1.0f) {
  Tensor t(shape);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  float* p = t.data<float>();
  for (dim_t i = 0; i < t.numel(); ++i) p[i] = dist(gen);
  return t;
}

// Largest |a - b| / max(|b|, floor) over all elements; shapes must match. The floor is a
// fraction of the tensor's own scale (max |b|), so that entries near zero are judged against
// the size of the values around them rather than against themselves: float32 rounding leaves an
// absolute error of about 1e-6 on activations of size 1 whatever the entry's own value.
struct Comparison {
  bool shapes_match = true;
  double max_rel_error = 0.0;
  dim_t worst_index = -1;
  float actual = 0.0f;
  float expected = 0.0f;
  std::string describe() const {
    std::ostringstream out;
    if (!shapes_match) return "shapes differ";
    out << "max relative error " << max_rel_error << " at flat index " << worst_index
        << " (actual " << actual << ", expected " << expected << ")";
    return out.str();
  }
};

inline Comparison compare(const Tensor& actual, const Tensor& expected, double scale_fraction = 1e-2) {
  Comparison c;
  if (actual.shape() != expected.shape()) {
    c.shapes_match = false;
    return c;
  }
  Tensor a = actual.is_contiguous() ? actual.view() : actual.clone();
  Tensor e = expected.is_contiguous() ? expected.view() : expected.clone();
  const float* pa = a.data<float>();
  const float* pe = e.data<float>();
  double scale = 0.0;
  for (dim_t i = 0; i < e.numel(); ++i) scale = std::max<double>(scale, std::fabs(pe[i]));
  const double floor = std::max(scale * scale_fraction, 1e-30);
  for (dim_t i = 0; i < a.numel(); ++i) {
    const double denom = std::max<double>(std::fabs(pe[i]), floor);
    const double err = std::isnan(pa[i]) != std::isnan(pe[i]) ? INFINITY
                                                                : std::fabs(pa[i] - pe[i]) / denom;
    if (c.worst_index < 0 || err > c.max_rel_error) {
      c.max_rel_error = err;
      c.worst_index = i;
      c.actual = pa[i];
      c.expected = pe[i];
    }
  }
  return c;
}

// CHECK that two f32 tensors agree within a relative tolerance; on failure prints where.
#define S2S_CHECK_CLOSE(actual, expected, tolerance)                              \
  do {                                                                            \
    const auto s2s_cmp_ = ::s2s::test::compare((actual), (expected));             \
    INFO(s2s_cmp_.describe() << " (tolerance " << (tolerance) << ")");            \
    CHECK(s2s_cmp_.shapes_match);                                                 \
    CHECK(s2s_cmp_.max_rel_error <= (tolerance));                                 \
  } while (false)

}  // namespace s2s::test
