// --dedup run for real: the output equals a run without it byte for byte (text, nbest with
// --n-best, jsonl, sampling, --prefix-file, shards, a budget so small that lines are evicted and
// the long line never held), over input whose lines repeat inside a window and across windows;
// the warnings of a repeated line (invalid UTF-8, a split long line) name every occurrence;
// --dedup-memory's usage errors and the config key.
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "test_utils.h"

namespace s2s {
namespace {

std::string model_arg() {
  return "-m '" + test::data_path("models/marian-postnorm-swish-tiedall") + "'";
}

std::string quoted(const std::string& path) { return "'" + path + "'"; }

// 300 lines drawn from 14 (so most are repeats, inside the windows of --maxi-batch 16 and
// across them): sentences, an empty and a blank line, CRLF, a line with invalid UTF-8, a line
// over --max-length 40 (split into 6 pieces), a line with a tab; the last line has no newline.
// `bad`, `long_line`: how often the invalid and the long line occur, and their 1-based numbers.
std::string repeating_input(std::vector<std::size_t>& bad, std::vector<std::size_t>& long_line) {
  std::string long_text;  // 600 bytes, 200 tokens: over --dedup-memory 0.001 alone
  for (int i = 0; i < 12; ++i)
    long_text += "this free software is licensed to the world " + std::to_string(i) + ". ";
  const std::vector<std::string> pool = {
      "", "   ", "the license is free", "Hello world.\r", "copy \xff\xfe this", long_text,
      "tab\there", "Grüße", "2007", "permit this copy of the software", "and of this",
      "the world is free software", "Hello", "the license of this software is free and the world"};
  const std::size_t kBad = 4, kLong = 5;
  std::mt19937 gen(7);
  std::string input;
  for (std::size_t i = 0; i < 300; ++i) {
    // The long line now and then only: it costs most of the time.
    std::size_t pick = gen() % pool.size();
    if (pick == kLong && gen() % 4 != 0) pick = 2;
    if (i == 3 || i == 4) pick = kBad;  // twice in the first window, in a row
    if (pick == kBad) bad.push_back(i + 1);
    if (pick == kLong) long_line.push_back(i + 1);
    input += pool[pick] + (i + 1 < 300 ? "\n" : "");
  }
  return input;
}

// The warnings on stderr that name `line` (1-based) and say `what`.
std::size_t warnings_about(const std::string& err, std::size_t line, const std::string& what) {
  std::size_t n = 0;
  for (const std::string& l : test::split_lines(err))
    n += l.rfind("s2s: warning: line " + std::to_string(line) + ": ", 0) == 0 &&
         l.find(what) != std::string::npos;
  return n;
}

}  // namespace

TEST_CASE("translate --dedup writes what a run without it writes, byte for byte", "[cli]") {
  const test::TempDir dir("dedup_cli");
  std::vector<std::size_t> bad, long_line;
  const std::string input = dir.write("in.en", repeating_input(bad, long_line));
  REQUIRE(bad.size() >= 10);
  REQUIRE(long_line.size() >= 2);
  // Windows grow to 16 lines. Beam search with --batch-size 1: on this random model it meets near
  // ties that the batch decides (-b 2 changes "Hello world." between --batch-size 4 and 1 without
  // --dedup too), and a score's last digits depend on its batch (docs/user-guide.md); --dedup
  // batches fewer lines together. Greedy search and sampling at --batch-size 4.
  const std::string base = "translate " + model_arg() + " -i " + quoted(input) +
                           " --max-length 40 --maxi-batch 16";
  for (const std::string options :
       {" -b 1 --batch-size 4", " -b 3 --batch-size 1 --format nbest --n-best",
        " -b 2 --batch-size 1 --format jsonl --n-best", " --sampling topk 5 --seed 3 --batch-size 4",
        " -b 2 --batch-size 1 --workers 2 --threads 1"}) {
    INFO("options:" << options);
    const auto plain = test::run_s2s(base + options);
    INFO(plain.err);
    REQUIRE(plain.exit_code == 0);
    REQUIRE(test::count_lines(plain.out) >= 299);
    for (const std::string memory : {"", " --dedup-memory 0.001"}) {
      INFO("--dedup" << memory);
      const auto dedup = test::run_s2s(base + options + " --dedup" + memory);
      INFO(dedup.err);
      REQUIRE(dedup.exit_code == 0);
      CHECK(dedup.out == plain.out);
      CHECK(dedup.err == plain.err);  // the same warnings, in the same order
      // Every occurrence of a repeated line is warned about, with its own number.
      for (std::size_t line : bad) CHECK(warnings_about(dedup.err, line, "invalid UTF-8") == 1);
      for (std::size_t line : long_line) CHECK(warnings_about(dedup.err, line, "split") == 1);
    }
  }
}

TEST_CASE("translate --dedup with shards and a prefix file", "[cli]") {
  const test::TempDir dir("dedup_cli");
  std::vector<std::size_t> bad, long_line;
  std::string text = repeating_input(bad, long_line);
  // Fewer lines: keep the first 120.
  std::size_t cut = 0;
  for (int n = 0; n < 120; ++n) cut = text.find('\n', cut) + 1;
  text.resize(cut);
  const std::string input = dir.write("in.en", text);
  // A prefix for every third line: the same source with another prefix is another line.
  std::string prefixes;
  for (int i = 0; i < 120; ++i) prefixes += i % 3 == 0 ? "Die\n" : "\n";
  const std::string prefix_file = dir.write("prefixes.de", prefixes);
  const std::string base = "translate " + model_arg() + " -i " + quoted(input) +
                           " --max-length 40 --maxi-batch 16 --format nbest --batch-size 1";
  for (const std::string& options : {std::string(), " --prefix-file " + quoted(prefix_file)}) {
    INFO("options:" << options);
    const auto plain = test::run_s2s(base + options);
    INFO(plain.err);
    REQUIRE(plain.exit_code == 0);
    std::string all;
    std::string err;
    for (int k = 0; k < 3; ++k) {
      const std::string out = (dir.dir / ("shard" + std::to_string(k))).string();
      const auto r = test::run_s2s(base + options + " --dedup --shard " + std::to_string(k) +
                                   "/3 -o " + quoted(out));
      INFO(r.err);
      REQUIRE(r.exit_code == 0);
      all += test::read_file(out);
      err += r.err;
    }
    CHECK(all == plain.out);  // line ids of the whole file, too
    CHECK(err == plain.err);  // warnings with the whole file's line numbers
  }
}

TEST_CASE("translate --dedup-memory: a positive number of MB, also as a config key", "[cli]") {
  const test::TempDir dir("dedup_cli");
  const std::string input = dir.write("in.en", "the license is free\nHello world.\n"
                                               "the license is free\n");
  const std::string base = "translate " + model_arg() + " -i " + quoted(input);
  for (const char* bad : {"0", "-1", "lots"}) {
    const auto r = test::run_s2s(base + " --dedup --dedup-memory " + bad);
    INFO(bad << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--dedup-memory") != std::string::npos);
    CHECK(r.out.empty());
  }
  const auto plain = test::run_s2s(base);
  REQUIRE(plain.exit_code == 0);
  const std::string config = dir.write("dedup.yml", "dedup: true\ndedup-memory: 0.5\n");
  const auto configured = test::run_s2s(base + " --config " + quoted(config));
  INFO(configured.err);
  CHECK(configured.exit_code == 0);
  CHECK(configured.out == plain.out);
  const std::string wrong = dir.write("wrong.yml", "dedup-memory: 0\n");
  const auto refused = test::run_s2s(base + " --config " + quoted(wrong));
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find("dedup-memory") != std::string::npos);
  const auto help = test::run_s2s("translate --help");
  CHECK(help.out.find("--dedup-memory") != std::string::npos);
}

}  // namespace s2s
