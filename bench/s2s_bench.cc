// s2s_bench: one benchmark configuration, measured in one process, printed as one table row.
//
//   s2s_bench MODEL_DIR SENTENCES [--beam-size 1] [--threads 1] [--workers 1] [--batch-size 32]
//             [--precision float32|bfloat16|int8] [--source-lang L --target-lang L]
//             [--sentence-split S] [--short-translations S] [--protect on|off]
//             [--shortlist FILE [N ...] | off] [--header]
//
// In this order (see bench/README.md for the columns):
//   load   formats::load_model(MODEL_DIR)                          -> load_s
//   first  the first sentence alone, right after loading, decoded   -> first_s
//   all    Translator::translate_each over every line (batched as TranslateOptions says; with
//          --workers N, N translators at once, as s2s translate --workers N)
//          -> target tokens/s, GEMM FLOPs (ops::flop_counter) / wall time, CPU use, tensor
//             allocations, minor page faults
//   rss    peak resident set size after loading and after translating (getrusage ru_maxrss)
//   gemm   oneDNN's own float32 rate on one 2048x2048x2048 ops::matmul, same thread count
//          (last, so that it neither warms oneDNN up for the model nor adds to its peak RSS)
// Speed is compared as achieved_gflops / gemm_gflops: both come from this process and machine.
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "s2s/core/allocator.h"
#include "s2s/core/error.h"
#include "s2s/core/tensor.h"
#include "s2s/core/threads.h"
#include "s2s/formats/detect.h"
#include "s2s/ops/flop_counter.h"
#include "s2s/ops/matmul.h"
#include "s2s/ops/precision.h"
#include "s2s/pipeline/languages.h"
#include "s2s/pipeline/shortlist_setting.h"
#include "s2s/pipeline/translator.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// User + system CPU seconds of the whole process (all threads).
double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

// Minor page faults so far: fresh pages the kernel had to map (and zero) for this process.
long minor_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // Linux: kilobytes
}

std::vector<std::string> read_lines(const std::string& path, std::size_t max_lines) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw s2s::InputError(path + ": cannot open sentences file");
  std::vector<std::string> lines;
  std::string line;
  while (lines.size() < max_lines && std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!s2s::pipeline::is_blank(line)) lines.push_back(line);
  }
  if (lines.empty()) throw s2s::InputError(path + ": no sentences");
  return lines;
}

struct GemmRate {
  double gflops = 0;
  int reps = 0;
};

// float32 [n, n] x [n, n] through ops::matmul: two warm-up products, then products until at least
// min_seconds have passed (and at least 3). Also checks the FLOP counter against 2·n³ per product.
GemmRate measure_gemm(s2s::dim_t n, double min_seconds) {
  s2s::Tensor a({n, n}), b({n, n}), c;
  float* pa = a.data<float>();
  float* pb = b.data<float>();
  for (s2s::dim_t i = 0; i < n * n; ++i) {  // small, varied values (no denormals, no overflow)
    pa[i] = static_cast<float>((i * 7 + 3) % 17 - 8) * 0.01f;
    pb[i] = static_cast<float>((i * 5 + 1) % 13 - 6) * 0.01f;
  }
  for (int i = 0; i < 2; ++i) s2s::ops::matmul(a, b, c);
  s2s::ops::flop_counter::reset();
  GemmRate rate;
  const auto start = Clock::now();
  double elapsed = 0;
  while (rate.reps < 3 || elapsed < min_seconds) {
    s2s::ops::matmul(a, b, c);
    ++rate.reps;
    elapsed = seconds_since(start);
  }
  const double per_product = 2.0 * static_cast<double>(n) * n * n;
  const auto counted = static_cast<double>(s2s::ops::flop_counter::read());
  S2S_CHECK(counted == per_product * rate.reps, "FLOP counter says ", counted, ", expected ",
            per_product * rate.reps);
  rate.gflops = per_product * rate.reps / elapsed * 1e-9;
  return rate;
}

struct Args {
  std::string model;
  std::string sentences;
  std::string label;
  std::string source_lang;  // NLLB-200 / M2M-100 language codes, as s2s translate takes them
  std::string target_lang;
  // The library's real-text defaults; bench/peers.sh turns them off to do CTranslate2's work.
  std::string sentence_split = s2s::pipeline::TranslateOptions{}.sentence_split;
  std::string short_translations = s2s::pipeline::TranslateOptions{}.short_translations;
  std::string protect = "on";
  std::vector<std::string> shortlist;  // as s2s translate's --shortlist (none: the folder's)
  int beam_size = 1;
  int threads = 1;  // of each worker
  int workers = 1;
  int batch_size = 32;
  float max_length_factor = 3.0f;
  std::string precision = "float32";
  std::size_t max_sentences = 1000000;
  int gemm_size = 2048;
  double gemm_seconds = 2.0;
  bool header = false;
};

const char* const kHeader =
    "model                 prec     beam thr wrk batch  sent  src_tok  tgt_tok  load_s first_s  "
    "total_s   tok/s"
    "  GFLOP ach_GF/s gemm_GF/s ratio  cpu%  load_MB  peak_MB   allocs  faults";

s2s::pipeline::TranslateSettings shortlist_settings(const Args& args) {
  s2s::pipeline::TranslateSettings settings;
  settings.shortlist = args.shortlist;
  return settings;
}

s2s::ops::Packing shortlist_packing(const Args& args, s2s::ops::Precision precision) {
  s2s::pipeline::TranslateSettings settings = shortlist_settings(args);
  settings.precision = precision;
  return s2s::pipeline::model_packing(settings, args.model);
}

std::shared_ptr<const s2s::model::Shortlist> shortlist_of(const Args& args,
                                                          const s2s::model::Model& model) {
  s2s::pipeline::TranslateSettings settings = shortlist_settings(args);
  s2s::pipeline::attach_shortlist(model, args.model, settings);
  return settings.translate.shortlist;
}

void run(const Args& args) {
  s2s::set_num_threads(args.threads);
  const std::vector<std::string> lines = read_lines(args.sentences, args.max_sentences);

  // (b) load
  auto start = Clock::now();
  const auto precision = s2s::ops::parse_precision(args.precision);
  if (!precision) throw s2s::UsageError("--precision " + args.precision + ": unknown");
  std::shared_ptr<const s2s::model::Model> model =
      s2s::formats::load_model(args.model, {}, shortlist_packing(args, *precision));
  const double load_s = seconds_since(start);
  const double load_rss_mb = peak_rss_mb();

  s2s::pipeline::TranslateOptions options;
  options.search.beam_size = args.beam_size;
  options.search.max_length_factor = args.max_length_factor;
  options.batch_size = args.batch_size;
  options.sentence_split = args.sentence_split;
  options.short_translations = args.short_translations;
  options.protect = args.protect == "on";
  if (!args.source_lang.empty() || !args.target_lang.empty())
    s2s::pipeline::choose_languages(*model, args.source_lang, args.target_lang, options);
  options.shortlist = shortlist_of(args, *model);
  const s2s::pipeline::Translator translator(model, options);

  // (c) time to first output: the first sentence alone, to text
  start = Clock::now();
  const std::vector<s2s::pipeline::Translation> first = translator.translate({lines.front()});
  const std::string first_text = model->codec().decode_target(first.at(0).hypotheses.at(0).ids);
  const double first_s = seconds_since(start);

  // (d) all sentences
  std::int64_t src_tokens = 0;
  for (const std::string& line : lines)
    src_tokens += static_cast<std::int64_t>(model->codec().encode_source(line).size());
  s2s::ops::flop_counter::reset();
  const std::size_t allocs_before = s2s::Tensor::allocation_count();
  const double cpu_before = cpu_seconds();
  const long faults_before = minor_faults();
  start = Clock::now();
  std::vector<s2s::pipeline::Translation> results(lines.size());
  translator.translate_each(lines,
                            [&](std::size_t i, s2s::pipeline::Translation t,
                                const s2s::pipeline::InputNotes&) { results[i] = std::move(t); },
                            1, nullptr, {args.workers, args.threads, nullptr});
  const double total_s = seconds_since(start);
  const double cpu_s = cpu_seconds() - cpu_before;
  const long faults = minor_faults() - faults_before;
  const std::size_t allocs = s2s::Tensor::allocation_count() - allocs_before;
  const double flops = static_cast<double>(s2s::ops::flop_counter::read());
  std::int64_t tgt_tokens = 0;
  for (const s2s::pipeline::Translation& t : results)
    for (const s2s::search::Hypothesis& h : t.hypotheses)
      tgt_tokens += static_cast<std::int64_t>(h.ids.size());

  // (e) peak RSS of load + translation
  const double rss_mb = peak_rss_mb();

  // (a) oneDNN's own matmul rate, same threads
  const GemmRate gemm = measure_gemm(args.gemm_size, args.gemm_seconds);

  const double achieved = flops / total_s * 1e-9;
  const std::string label = args.label.empty() ? args.model : args.label;
  if (args.header) std::printf("%s\n", kHeader);
  std::printf(
      "%-21s %-8s %4d %3d %3d %5d %5zu %8lld %8lld %7.2f %7.3f %8.2f %7.1f %6.1f %8.2f %9.2f %5.3f "
      "%5.0f "
      "%8.0f %8.0f %8zu %7ld\n",
      label.c_str(), s2s::ops::precision_name(*precision), args.beam_size, s2s::num_threads(),
      args.workers, args.batch_size, lines.size(), static_cast<long long>(src_tokens),
      static_cast<long long>(tgt_tokens), load_s, first_s, total_s,
      static_cast<double>(tgt_tokens) / total_s, flops * 1e-9, achieved, gemm.gflops,
      achieved / gemm.gflops, 100.0 * cpu_s / total_s, load_rss_mb, rss_mb, allocs, faults);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  s2s::keep_large_allocations_mapped();  // as the s2s CLI does, so that peak_MB is what users see
  Args args;
  CLI::App app{"s2s_bench: speed of one configuration (one table row; see bench/README.md)"};
  app.add_option("model", args.model, "Model folder")->required();
  app.add_option("sentences", args.sentences, "Sentences, one per line")->required();
  app.add_option("-b,--beam-size", args.beam_size, "Beam size (1 = greedy)")
      ->check(CLI::PositiveNumber);
  app.add_option("--threads", args.threads, "Compute threads (of each worker)")
      ->check(CLI::PositiveNumber);
  app.add_option("--workers", args.workers, "Translators at once, as s2s translate's")
      ->check(CLI::PositiveNumber);
  app.add_option("--batch-size", args.batch_size, "Sentences per batch")
      ->check(CLI::PositiveNumber);
  app.add_option("--precision", args.precision, "float32, bfloat16 or int8 (linear layers)");
  app.add_option("--max-length-factor", args.max_length_factor,
                 "Longest translation as a multiple of the source length (the bench model "
                 "always decodes to it)")
      ->check(CLI::PositiveNumber);
  app.add_option("--max-sentences", args.max_sentences, "Use at most this many lines")
      ->check(CLI::PositiveNumber);
  app.add_option("--gemm-size", args.gemm_size, "Size n of the n x n x n reference product")
      ->check(CLI::PositiveNumber);
  app.add_option("--gemm-seconds", args.gemm_seconds, "Minimum time of the reference product")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--source-lang", args.source_lang, "NLLB-200 / M2M-100: the source language");
  app.add_option("--target-lang", args.target_lang, "NLLB-200 / M2M-100: the target language");
  app.add_option("--sentence-split", args.sentence_split,
                 "As s2s translate's (off: a line is a unit)");
  app.add_option("--short-translations", args.short_translations, "As s2s translate's");
  app.add_option("--protect", args.protect, "As s2s translate's")
      ->check(CLI::IsMember({"on", "off"}));
  app.add_option("--shortlist", args.shortlist, "As s2s translate's (off: none)")->expected(1, 4);
  app.add_option("--label", args.label, "Name in the first column (default: the model path)");
  app.add_flag("--header", args.header, "Print the column header first");
  try {
    app.parse(argc, argv);
    run(args);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "s2s_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
