// No mistake on the command line destroys data (issue 41): an output that is the input is refused
// before anything is opened for writing, and a second process writing the same output is refused
// while the first one holds it.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "child_process.h"
#include "cli_runner.h"
#include "test_utils.h"

namespace s2s {
namespace {

const std::string kModelFolder = test::data_path("models/marian-postnorm-swish-tiedall");
const std::string kModel = "-m '" + kModelFolder + "' --quiet ";
const std::string kText = "the license is free\ncopy this software\n";

void check_refused(const test::RunResult& r, const std::filesystem::path& file,
                   const std::string& message) {
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(test::count_lines(r.err) == 1);
  CHECK(r.err.find(message) != std::string::npos);
  CHECK(r.err.find("choose another output file") != std::string::npos);
  CHECK(test::read_file(file) == kText);  // untouched
}

// Waits until `path` holds at least one line (the child has opened, locked and written it).
bool wait_for_output(const std::filesystem::path& path) {
  for (int i = 0; i < 400; ++i) {
    if (test::read_file(path).find('\n') != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  return false;
}

}  // namespace

TEST_CASE("translate and score: an output that is the input is refused, the file untouched",
          "[cli]") {
  const auto dir = test::temp_dir("same_file");
  const auto text = dir / "same.txt";
  std::ofstream(text) << kText;
  const std::string same = "'" + text.string() + "'";
  check_refused(test::run_s2s("translate " + kModel + "-i " + same + " -o " + same), text,
                "-o " + text.string() + " is the same file as -i " + text.string());
  check_refused(test::run_s2s("translate " + kModel + "-i " + same + " -o " + same + " --resume"),
                text, "is the same file as -i");
  CHECK_FALSE(std::filesystem::exists(text.string() + ".s2s-journal"));

  // Through a hard link, a symbolic link, /dev/stdin and a shell redirection of standard output.
  std::filesystem::create_hard_link(text, dir / "hard.txt");
  std::filesystem::create_symlink(text, dir / "soft.txt");
  check_refused(test::run_s2s("translate " + kModel + "-i " + same + " -o '" +
                              (dir / "hard.txt").string() + "'"),
                text, "is the same file as -i");
  check_refused(test::run_s2s("translate " + kModel + "-i '" + (dir / "soft.txt").string() +
                              "' -o " + same),
                text, "is the same file as -i");
  const std::string s2s = std::string("'") + test::s2s_binary() + "' translate " + kModel;
  check_refused(test::run_shell(s2s + "-o " + same + " < " + same), text,
                "is the same file as standard input");
  check_refused(test::run_shell(s2s + "-i /dev/stdin -o /proc/self/fd/0 < " + same),
                text, "is the same file as -i /dev/stdin");
  check_refused(test::run_shell(s2s + "-i " + same + " >> " + same), text,
                "standard output is the same file as -i");
  check_refused(test::run_s2s("score " + kModel + "--source " + same + " --target '" +
                              (dir / "soft.txt").string() + "' -o '" + (dir / "hard.txt").string() +
                              "'"),
                text, "is the same file as --source");

  // Files that are not regular can be both ends of a run.
  const auto null = test::run_s2s("translate " + kModel + "-i /dev/null -o /dev/null");
  CHECK(null.exit_code == 0);
}

TEST_CASE("translate: a second process writing the same output is refused and names the first",
          "[cli]") {
  const auto dir = test::temp_dir("second_writer");
  const auto out = dir / "out.txt";
  const auto input = dir / "in.txt";
  std::ofstream(input) << kText;
  // The first writer translates an interactive input: it holds the output until its input ends.
  test::ChildProcess first(
      {test::s2s_binary(), "translate", "-m", kModelFolder, "-o", out.string()});
  REQUIRE(first.write("the license is free\n"));
  REQUIRE(wait_for_output(out));
  const std::string held = test::read_file(out);

  const std::string pid = "(pid " + std::to_string(first.pid()) + ")";
  for (const std::string& extra : {std::string("--shard 1/2"), std::string("--resume")}) {
    const auto second = test::run_s2s("translate " + kModel + "-i '" + input.string() + "' -o '" +
                                      out.string() + "' " + extra);
    INFO(extra << ": " << second.err);
    CHECK(second.exit_code == 1);
    CHECK(test::count_lines(second.err) == 1);
    CHECK(second.err.find(out.string() + ": another process " + pid + " is writing this file") !=
          std::string::npos);
    CHECK(test::read_file(out) == held);  // not truncated by the second writer
  }
  CHECK_FALSE(std::filesystem::exists(out.string() + ".s2s-journal"));

  REQUIRE(first.write("copy this software\n"));
  first.close_stdin();
  CHECK(first.wait() == 0);
  CHECK(test::count_lines(test::read_file(out)) == 2);
  // Once the first has ended, the file is free.
  const auto after = test::run_s2s("translate " + kModel + "-i '" + input.string() + "' -o '" +
                                   out.string() + "' --shard 1/2");
  CHECK(after.exit_code == 0);
}

}  // namespace s2s
