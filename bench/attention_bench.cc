// attention_bench: the decoder's step attention kernel (ops::step_attention) alone, over caches
// laid out as the decoder keeps them, against this machine's memory read rate measured in the
// same run (the kernel streams each cache once per step, so that rate is its ceiling).
//
//   attention_bench [--rows 32] [--keys 60] [--threads 2] [--layers 6] [--heads 8] [--head-dim 64]
//
// Self-attention: position-major caches [keys, rows, heads, head_dim] read through a per-row
// history table (beam-search-like: each row follows a random earlier row at every position).
// Cross-attention: one [rows, heads, keys, head_dim] cache per sentence. For float32 and bfloat16
// caches (the int8 and bfloat16 precisions keep bfloat16 caches), one row each:
//   us: microseconds per decoder step (every layer's self and cross attention)
//   GB/s: cache bytes read per second;  ratio: GB/s / the machine's read rate (`read_GB/s`: a
//   vectorised sum over 512 MB with the same threads, best of 5).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>

#include "s2s/core/threads.h"
#include "s2s/ops/convert.h"
#include "s2s/ops/step_attention.h"

namespace {

using namespace s2s;
using Clock = std::chrono::steady_clock;

Tensor random_cache(const Shape& shape, DataType type, std::mt19937& gen) {
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  Tensor values(shape);
  for (dim_t i = 0; i < values.numel(); ++i) values.data<float>()[i] = uniform(gen);
  Tensor cache;
  ops::convert(values, type, cache);
  return cache;
}

// Bytes per second of a plain parallel sum over 512 MB (best of 5): what memory gives.
double read_rate() {
  std::vector<float> data(std::size_t{128} << 20, 1.0f);
  double best = 1e30;
  for (int run = 0; run < 5; ++run) {
    const Clock::time_point start = Clock::now();
    float total = 0.0f;
#pragma omp parallel for simd reduction(+ : total) schedule(static)
    for (std::size_t i = 0; i < data.size(); ++i) total += data[i];
    best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
    if (total < 0.0f) std::printf("impossible\n");  // keeps the sum alive
  }
  return static_cast<double>(data.size() * sizeof(float)) / best;
}

}  // namespace

int main(int argc, char** argv) {
  dim_t rows = 32, keys = 60, layers = 6, heads = 8, head_dim = 64;
  int threads = 2;
  CLI::App app{"attention_bench: ops::step_attention against the machine's memory read rate"};
  app.add_option("--rows", rows, "Decoder rows (batch x beam)")->check(CLI::PositiveNumber);
  app.add_option("--keys", keys, "Positions decoded so far (= source length)")->check(CLI::PositiveNumber);
  app.add_option("--threads", threads, "Compute threads")->check(CLI::PositiveNumber);
  app.add_option("--layers", layers, "Decoder layers")->check(CLI::PositiveNumber);
  app.add_option("--heads", heads, "Attention heads")->check(CLI::PositiveNumber);
  app.add_option("--head-dim", head_dim, "Dimension of one head")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  set_num_threads(threads);

  std::mt19937 gen(1);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  Tensor queries({rows, heads * head_dim});
  for (dim_t i = 0; i < queries.numel(); ++i) queries.data<float>()[i] = uniform(gen);
  Tensor history({rows, keys}, DataType::i32);
  std::uniform_int_distribution<std::int32_t> any_row(0, static_cast<std::int32_t>(rows - 1));
  for (dim_t i = 0; i < history.numel(); ++i) history.data<std::int32_t>()[i] = any_row(gen);
  Tensor lengths({rows}, DataType::i32);
  for (dim_t r = 0; r < rows; ++r) lengths.data<std::int32_t>()[r] = static_cast<std::int32_t>(keys);

  const double memory = read_rate();
  std::printf("%-8s %5s %5s %3s %10s %8s %10s %6s\n", "cache", "rows", "keys", "thr", "us",
              "GB/s", "read_GB/s", "ratio");
  for (DataType type : {DataType::f32, DataType::bf16}) {
    std::vector<Tensor> self_caches, cross_caches;  // keys and values of every layer
    for (dim_t i = 0; i < 2 * layers; ++i) {
      self_caches.push_back(random_cache({keys, rows, heads, head_dim}, type, gen));
      cross_caches.push_back(random_cache({rows, heads, keys, head_dim}, type, gen));
    }
    ops::StepAttentionRows self_rows, cross_rows;
    self_rows.cache_of_key = &history;
    cross_rows.visible = &lengths;
    Tensor scores, out;
    const auto step = [&] {
      for (dim_t l = 0; l < layers; ++l) {
        const std::vector<int> rows_first{1, 2, 0, 3};
        ops::step_attention(queries, self_caches[2 * l].permuted(rows_first),
                            self_caches[2 * l + 1].permuted(rows_first), self_rows, 0.125f,
                            scores, out);
        ops::step_attention(queries, cross_caches[2 * l], cross_caches[2 * l + 1], cross_rows,
                            0.125f, scores, out);
      }
    };
    for (int i = 0; i < 3; ++i) step();
    int steps = 0;
    const Clock::time_point start = Clock::now();
    double elapsed = 0.0;
    while (elapsed < 1.0) {
      step();
      ++steps;
      elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    }
    const double per_step = elapsed / steps;
    const double bytes = 4.0 * static_cast<double>(layers * keys * rows * heads * head_dim) *
                         static_cast<double>(dtype_size(type));
    std::printf("%-8s %5ld %5ld %3d %10.1f %8.1f %10.1f %6.3f\n", dtype_name(type),
                static_cast<long>(rows), static_cast<long>(keys), threads, per_step * 1e6,
                bytes / per_step / 1e9, memory / 1e9, bytes / per_step / memory);
  }
  return 0;
}
