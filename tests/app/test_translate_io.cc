// s2s translate's I/O contract, run for real (docs/user-guide.md, "Guarantees"): one output line
// per input line in input order whatever the batching, CRLF and a missing final newline, -i/-o
// files, a reader that goes away (`| head -1`), and an interactive writer that waits for each
// answer.
#include <fstream>
#include <random>

#include "child_process.h"
#include "cli_runner.h"
#include "s2s/ops/precision.h"
#include "test_utils.h"

namespace s2s {
namespace {

const std::string kModel = "marian-postnorm-swish-tiedall";

// The search alone: the random fixture model ends some of these word salads far too early,
// which --short-translations would warn about on stderr, where these tests expect nothing.
std::string model_arg() {
  return "--short-translations off --protect off -m '" + test::data_path("models/" + kModel) + "'";
}

// 230 lines of mixed lengths: empty and blank lines, one-word lines, long lines, non-ASCII,
// a NUL byte and a control character.
std::string mixed_input() {
  const char* const words[] = {"the",    "license", "is",    "free", "software", "copy",
                               "Grüße",  "東京",    "world", "2007", ",",        "verbatim",
                               "permit", "and",     "of",    "this", "Hello",    "."};
  std::mt19937 gen(2024);
  std::string input;
  for (int i = 0; i < 230; ++i) {
    if (i % 17 == 3) {
      input += "\n";
    } else if (i % 23 == 5) {
      input += " \t  \n";
    } else {
      const int n = i % 31 == 0 ? 40 : 1 + static_cast<int>(gen() % 12);
      std::string line;
      for (int w = 0; w < n; ++w) line += (w ? " " : "") + std::string(words[gen() % 18]);
      if (i == 100) line += std::string("\0x", 2);
      if (i == 101) line += "\x01\x7f";
      input += line + "\n";
    }
  }
  return input;
}

using test::split_lines;

}  // namespace

TEST_CASE("translate: one line out per line in, in order, whatever the batching", "[cli]") {
  const std::string input = mixed_input();
  const std::vector<std::string> in_lines = split_lines(input);
  for (const char* beam : {"-b 1", "-b 4"}) {
    SECTION(beam) {
      // Reference: one line per window and per batch, so order cannot be mixed up.
      const auto reference = test::run_s2s(
          std::string("translate ") + beam + " --maxi-batch 1 --batch-size 1 " + model_arg(),
          input);
      INFO(reference.err);
      REQUIRE(reference.exit_code == 0);
      CHECK(reference.err.empty());
      const std::vector<std::string> out_lines = split_lines(reference.out);
      REQUIRE(out_lines.size() == in_lines.size());
      for (std::size_t i = 0; i < in_lines.size(); ++i) {
        const bool blank = in_lines[i].find_first_not_of(" \t") == std::string::npos;
        INFO("line " << i);
        CHECK(out_lines[i].empty() == blank);
      }
      // Batch size 1 is the reference; windows of 7 lines cut batches at other places.
      for (const char* batching : {"--batch-size 3", "--batch-size 64", "--batch-tokens 50",
                                   "--batch-size 64 --maxi-batch 7"}) {
        INFO(batching);
        const auto r = test::run_s2s(
            std::string("translate ") + beam + " " + batching + " " + model_arg(), input);
        CHECK(r.exit_code == 0);
        CHECK(r.out == reference.out);
      }
    }
  }
}

TEST_CASE("translate: CRLF input and a last line without a newline", "[cli]") {
  const std::string input = "the license is free\n\ncopy this\nHello world\n";
  const auto lf = test::run_s2s("translate -b 2 " + model_arg(), input);
  REQUIRE(lf.exit_code == 0);
  REQUIRE(test::count_lines(lf.out) == 4);

  std::string crlf;
  for (char c : input) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  CHECK(test::run_s2s("translate -b 2 " + model_arg(), crlf).out == lf.out);
  const std::string no_newline = input.substr(0, input.size() - 1);
  CHECK(test::run_s2s("translate -b 2 " + model_arg(), no_newline).out == lf.out);
  CHECK(test::run_s2s("translate -b 2 " + model_arg(), crlf.substr(0, crlf.size() - 2)).out ==
        lf.out);
  const auto empty = test::run_s2s("translate " + model_arg(), "");  // no input, no output
  CHECK(empty.exit_code == 0);
  CHECK(empty.out.empty());
}

TEST_CASE("translate: -i and -o name files, and '-' is stdin / stdout", "[cli]") {
  const std::string input = "the license is free\n\ncopy this\n";
  const auto expected = test::run_s2s("translate -b 1 " + model_arg(), input);
  REQUIRE(expected.exit_code == 0);
  const auto dir = test::temp_dir("io");
  const std::string in = (dir / "in.txt").string(), out = (dir / "out.txt").string();
  std::ofstream(in, std::ios::binary) << input;

  const auto r = test::run_s2s("translate -b 1 -i '" + in + "' -o '" + out + "' " + model_arg());
  CHECK(r.exit_code == 0);
  CHECK(r.out.empty());
  CHECK(test::read_file(out) == expected.out);
  CHECK(test::run_s2s("translate -b 1 -i - -o - " + model_arg(), input).out == expected.out);

  const auto missing =
      test::run_s2s("translate -i '" + (dir / "nope").string() + "' " + model_arg());
  CHECK(missing.exit_code == 1);
  CHECK(test::count_lines(missing.err) == 1);
  CHECK(missing.err.find("nope") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("translate: a reader that goes away ends the run quietly (| head -1)", "[cli]") {
  const auto dir = test::temp_dir("head");
  {
    std::ofstream in(dir / "in.txt", std::ios::binary);
    for (int i = 0; i < 5000; ++i) in << "the license is free software number " << i << "\n";
    std::ofstream script(dir / "run.sh", std::ios::binary);
    script << "'" << test::s2s_binary() << "' translate -b 1 " << model_arg() << " < '"
           << (dir / "in.txt").string() << "' 2> '" << (dir / "err").string() << "' | head -1 > '"
           << (dir / "out").string() << "'\necho ${PIPESTATUS[0]} > '" << (dir / "status").string()
           << "'\n";
  }
  const int rc = std::system(("bash '" + (dir / "run.sh").string() + "'").c_str());
  CHECK(rc == 0);
  CHECK(test::read_file(dir / "status") == "0\n");
  CHECK(test::read_file(dir / "err").empty());
  CHECK(test::count_lines(test::read_file(dir / "out")) == 1);
  std::filesystem::remove_all(dir);
}

TEST_CASE("translate: an interactive writer gets each answer before sending more", "[cli]") {
  const std::string model = test::data_path("models/" + kModel);
  const std::string first = "the license is free", second = "Hello world";
  const auto expected =
      test::run_s2s("translate -b 2 " + model_arg(), first + "\n" + second + "\n");
  REQUIRE(expected.exit_code == 0);
  const std::size_t newline = expected.out.find('\n');

  // The default window is 1000 lines: the answers come because no more input is waiting.
  test::ChildProcess child({test::s2s_binary(), "translate", "-b", "2", "-m", model});
  const auto timeout = std::chrono::seconds(20);
  REQUIRE(child.write(first + "\n"));
  const auto answer1 = child.read_line(timeout);
  REQUIRE(answer1);
  CHECK(*answer1 == expected.out.substr(0, newline));
  REQUIRE(child.write(second + "\n"));
  const auto answer2 = child.read_line(timeout);
  REQUIRE(answer2);
  CHECK(*answer2 + "\n" == expected.out.substr(newline + 1));
  child.close_stdin();
  CHECK_FALSE(child.read_line(timeout));  // end of output, nothing more
  CHECK(child.wait() == 0);
  CHECK(child.err().empty());
}

}  // namespace s2s

namespace s2s {

TEST_CASE("translate: --workers and --threads never change the output", "[cli]") {
  const std::string input = mixed_input();
  const auto reference =
      test::run_s2s("translate -b 4 --threads 1 --workers 1 " + model_arg(), input);
  REQUIRE(reference.exit_code == 0);
  REQUIRE(static_cast<std::size_t>(test::count_lines(reference.out)) == split_lines(input).size());
  for (const char* setting : {"--threads 2 --workers 1", "--threads 1 --workers 2",
                              "--threads 1 --workers 3 --maxi-batch 50", "--workers 2"}) {
    SECTION(setting) {
      const auto run =
          test::run_s2s(std::string("translate -b 4 ") + setting + " " + model_arg(), input);
      CHECK(run.exit_code == 0);
      CHECK(run.err.empty());
      CHECK(run.out == reference.out);
    }
  }
}

}  // namespace s2s

namespace s2s {

TEST_CASE("translate: every --precision gives one line per input line", "[cli]") {
  const std::string input = mixed_input();
  for (const char* precision : {"float32", "bfloat16", "int8"}) {
    SECTION(precision) {
      const auto run = test::run_s2s(
          std::string("translate -b 2 --workers 2 --precision ") + precision + " " + model_arg(),
          input);
      if (!ops::unsupported_reason(*ops::parse_precision(precision)).empty()) {
        CHECK(run.exit_code == 2);  // this CPU cannot: a usage error saying so, no output
        CHECK(run.err.find("needs a CPU with") != std::string::npos);
        CHECK(run.out.empty());
        continue;
      }
      CHECK(run.exit_code == 0);
      CHECK(run.err.empty());
      CHECK(static_cast<std::size_t>(test::count_lines(run.out)) == split_lines(input).size());
    }
  }
}

}  // namespace s2s
