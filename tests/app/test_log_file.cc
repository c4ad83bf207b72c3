// --log FILE (Marian's, issue 18) for translate and score: everything s2s writes to stderr
// (warnings, the error that ends a run) is appended to FILE too, plus the run's final summary
// line; --quiet silences stderr but not the file; a log that cannot be opened is a usage error.
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <string>

#include "cli_runner.h"
#include "test_utils.h"

namespace s2s {
namespace {

const std::string kModel = "-m '" + test::data_path("models/marian-postnorm-swish-tiedall") + "'";
const std::string kInput = "the license is free\n\ncopy this software and the program\n";

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}

// The last line of `text` (which ends with a newline).
std::string last_line(const std::string& text) {
  const std::size_t start = text.rfind('\n', text.size() - 2);
  return text.substr(start == std::string::npos ? 0 : start + 1);
}

}  // namespace

TEST_CASE("translate --log: stderr's messages and the summary are appended to the file", "[cli]") {
  const auto dir = test::temp_dir("log_translate");
  const std::string log = (dir / "run.log").string();
  // --max-length 4 splits both lines: a warning for each.
  const std::string options = " -b 1 --max-length 4 --log '" + log + "'";
  const std::string args = "translate " + kModel + options;
  const auto first = test::run_s2s(args, kInput);
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  CHECK(test::count_lines(first.out) == 3);
  CHECK(test::count_lines(first.err) == 2);
  std::string after_first = test::read_file(log);
  // The stderr lines, then the summary (stderr is not a terminal here: no progress line there).
  CHECK(starts_with(after_first, first.err));
  CHECK(starts_with(last_line(after_first), "s2s: 3 lines, "));
  CHECK(test::count_lines(after_first) == 3);

  // One line is "1 line".
  const auto one = test::run_s2s(args, "the license is free\n");
  REQUIRE(one.exit_code == 0);
  after_first = test::read_file(log);
  CHECK(starts_with(last_line(after_first), "s2s: 1 line, "));

  // Appended, not rewritten; --quiet leaves stderr empty and the log as it would be without it.
  const auto quiet = test::run_s2s(args + " --quiet", kInput);
  CHECK(quiet.exit_code == 0);
  CHECK(quiet.err.empty());
  CHECK(quiet.out == first.out);
  const std::string after_quiet = test::read_file(log);
  REQUIRE(starts_with(after_quiet, after_first));
  CHECK(starts_with(after_quiet.substr(after_first.size()), first.err));

  // The error that ends a run: the same line in both places (usage errors, from the table, from
  // CLI11 and from an option read before --log, and a model error).
  for (const std::string& bad : {kModel + " --workers 0", kModel + " --format xml",
                                 kModel + " -v a.spm b.spm",
                                 "-m '" + (dir / "none").string() + "'"}) {
    std::remove(log.c_str());
    const auto failed = test::run_s2s("translate " + bad + options, kInput);
    INFO(failed.err);
    CHECK(failed.exit_code != 0);
    CHECK(test::count_lines(failed.err) == 1);
    CHECK(starts_with(failed.err, "s2s: error: "));
    CHECK(test::read_file(log) == failed.err);
  }
}

TEST_CASE("score --log: warnings and the summary are appended to the file", "[cli]") {
  const auto dir = test::temp_dir("log_score");
  const std::string log = (dir / "score.log").string();
  const auto r = test::run_s2s("score " + kModel + " --skip-bad --log '" + log + "'",
                               "the license is free\tdie Lizenz ist frei\nno tab here\n");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(test::count_lines(r.out) == 2);
  REQUIRE(test::count_lines(r.err) == 1);
  CHECK(r.err.find("line 2 has no tab between source and target") != std::string::npos);
  const std::string logged = test::read_file(log);
  CHECK(starts_with(logged, r.err));
  CHECK(starts_with(last_line(logged), "s2s: 2 lines, "));
}

TEST_CASE("translate and score: a --log file that cannot be written is a usage error", "[cli]") {
  const auto dir = test::temp_dir("log_unwritable");
  for (const char* command : {"translate", "score"}) {
    for (const std::string& path : {(dir / "no-such-folder" / "x.log").string(), dir.string()}) {
      const auto r = test::run_s2s(std::string(command) + " " + kModel + " --log '" + path + "'",
                                   "x\tx\n");
      INFO(r.err);
      CHECK(r.exit_code == 2);
      CHECK(test::count_lines(r.err) == 1);
      CHECK(r.err.find("s2s: error: " + path + ": cannot open log file: ") == 0);
      CHECK(r.out.empty());
    }
  }
}

}  // namespace s2s
