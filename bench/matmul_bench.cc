// matmul_bench: the linear layers' product (ops::PackedMatmul) alone, per weight shape, row count
// and precision, as the decoder calls it: x [rows, K] float32 in, y [rows, N] float32 out, the
// weight packed once. Shapes default to a Transformer-base decoder's (512 x 1536 self-attention
// QKV, 512 x 512, 512 x 2048 and 2048 x 512 FFN, 512 x 32000 output layer).
//
//   matmul_bench [--threads 1] [--rows 1,4,16,32,128] [--precisions float32,int8,bfloat16]
//                [--shapes 512x1536,512x512,512x2048,2048x512,512x32000] [--seconds 0.3]
//
// One line per (precision, shape, rows): microseconds per call and multiply-adds per second
// (GMAC/s), and `ratio`: that rate over the same precision's rate at 512 rows of the same shape
// in the same run (what the kernel reaches when the row count is no constraint). Weights are
// random, so int8 and bfloat16 run their real kernels; the weights of one shape fit the L2/L3
// caches here, unlike a whole model's, so small row counts look better than inside a decoder.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "s2s/core/threads.h"
#include "s2s/ops/packed_matmul.h"

namespace {

using namespace s2s;
using Clock = std::chrono::steady_clock;

Tensor random_tensor(const Shape& shape, std::mt19937& gen) {
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  Tensor t(shape);
  for (dim_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = uniform(gen);
  return t;
}

// Seconds per call: calls repeated for at least `seconds` after three warm-up calls.
double seconds_per_call(const ops::PackedMatmul& packed, const Tensor& x, Tensor& y,
                        double seconds) {
  for (int i = 0; i < 3; ++i) packed(x, y);
  const Clock::time_point start = Clock::now();
  int calls = 0;
  double elapsed = 0.0;
  do {
    packed(x, y);
    ++calls;
    elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  } while (elapsed < seconds);
  return elapsed / calls;
}

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> items;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) items.push_back(item);
  return items;
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 1;
  double seconds = 0.3;
  std::string rows_list = "1,4,16,32,128";
  std::string precisions = "float32,int8,bfloat16";
  std::string shapes = "512x1536,512x512,512x2048,2048x512,512x32000";
  CLI::App app{"matmul_bench: ops::PackedMatmul per shape, row count and precision"};
  app.add_option("--threads", threads, "OpenMP threads")->check(CLI::PositiveNumber);
  app.add_option("--rows", rows_list, "Row counts, comma-separated");
  app.add_option("--precisions", precisions, "float32, int8, bfloat16, comma-separated");
  app.add_option("--shapes", shapes, "KxN weight shapes, comma-separated");
  app.add_option("--seconds", seconds, "Time per measurement")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  set_num_threads(threads);

  std::mt19937 gen(7);
  std::printf("%-9s %12s %5s %11s %8s %6s\n", "precision", "KxN", "rows", "us", "GMAC/s",
              "ratio");
  for (const std::string& name : split(precisions)) {
    const std::optional<ops::Precision> precision = ops::parse_precision(name);
    if (!precision) {
      std::fprintf(stderr, "matmul_bench: unknown precision '%s'\n", name.c_str());
      return 2;
    }
    if (const std::string reason = ops::unsupported_reason(*precision); !reason.empty()) {
      std::printf("%-9s skipped: %s\n", name.c_str(), reason.c_str());
      continue;
    }
    for (const std::string& shape : split(shapes)) {
      dim_t k = 0, n = 0;
      if (std::sscanf(shape.c_str(), "%ldx%ld", &k, &n) != 2 || k <= 0 || n <= 0) {
        std::fprintf(stderr, "matmul_bench: shape '%s' is not KxN\n", shape.c_str());
        return 2;
      }
      const Tensor weight = random_tensor({k, n}, gen);
      const Tensor bias = random_tensor({n}, gen);
      const ops::PackedMatmul packed(weight, ops::WeightLayout::in_out, &bias, *precision);
      const auto rate = [&](dim_t rows, double* us) {
        const Tensor x = random_tensor({rows, k}, gen);
        Tensor y;
        const double call = seconds_per_call(packed, x, y, seconds);
        if (us) *us = call * 1e6;
        return static_cast<double>(rows * k * n) / call / 1e9;
      };
      const double full_rate = rate(512, nullptr);
      for (const std::string& rows_text : split(rows_list)) {
        const dim_t rows = std::stol(rows_text);
        if (rows <= 0) continue;
        double us = 0.0;
        const double gmac = rate(rows, &us);
        std::printf("%-9s %12s %5ld %11.1f %8.1f %6.3f\n", name.c_str(), shape.c_str(),
                    static_cast<long>(rows), us, gmac, gmac / full_rate);
      }
    }
  }
  return 0;
}
