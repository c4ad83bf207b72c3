// Error messages name their object (issue 18): a directory given as a file, a model folder that
// came from S2S_MODEL, an unreadable --config, an unknown subcommand or flag, and a standard
// output that cannot be written. One line each, exit 2 for usage and 1 for the rest. Usage errors
// from CLI11 name the flag and say what to do (issue 41), not CLI11's own words.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>

#include "cli_runner.h"
#include "test_utils.h"

namespace s2s {
namespace {

const std::string kModel = "-m '" + test::data_path("models/marian-postnorm-swish-tiedall") + "'";

void check_error(const test::RunResult& r, int exit_code, const std::string& message) {
  INFO(r.err);
  CHECK(r.exit_code == exit_code);
  CHECK(test::count_lines(r.err) == 1);
  CHECK(r.err.find(message) != std::string::npos);
  CHECK(r.out.empty());
}

// Exit code of `s2s ARGS > /dev/full`.
int exit_code_on_full_disk(const std::string& args) {
  const std::string command =
      std::string("'") + test::s2s_binary() + "' " + args + " < /dev/null > /dev/full 2> /dev/null";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("CLI errors name what they are about", "[cli]") {
  const auto dir = test::temp_dir("cli_errors");
  check_error(test::run_s2s("translate " + kModel + " -i '" + dir.string() + "'"), 1,
              dir.string() + ": cannot open input file: is a directory");
  check_error(test::run_s2s("translate " + kModel + " -o '" + dir.string() + "'", "x\n"), 1,
              dir.string() + ": cannot open output file: is a directory");
  check_error(test::run_s2s("translate " + kModel + " --config '" + dir.string() + "'"), 2,
              dir.string() + ": cannot read options file: is a directory");
  check_error(test::run_s2s("translate " + kModel + " --config '" + (dir / "none.yml").string() + "'"),
              2, "none.yml: cannot read options file: No such file or directory");
  check_error(test::run_s2s("frobnicate"), 2,
              "s2s: error: unknown subcommand 'frobnicate' (s2s has translate, score, info, progress and serve");
  check_error(test::run_s2s("translate --frob " + kModel), 2,
              "s2s: error: unknown option --frob (see s2s translate --help)");
  check_error(test::run_s2s("score --frob " + kModel), 2, "(see s2s score --help)");

  ::setenv("S2S_MODEL", "/nonexistent/from-env", 1);
  check_error(test::run_s2s("translate", "x\n"), 1,
              "S2S_MODEL=/nonexistent/from-env: no such model folder");
  ::unsetenv("S2S_MODEL");
}

TEST_CASE("usage errors: one line that names the flag and says what to do", "[cli]") {
  check_error(test::run_s2s("translate " + kModel + " file.txt"), 2,
              "s2s: error: unexpected argument 'file.txt': s2s translate reads standard input; "
              "to translate a file use -i FILE (see s2s translate --help)");
  const auto twice = test::run_s2s("translate " + kModel + " -i a.txt -i b.txt");
  check_error(twice, 2, "--input given 2 times: s2s reads one input");
  CHECK(twice.err.find("At Most") == std::string::npos);
  check_error(test::run_s2s("translate " + kModel + " --frob lex.s2t 100"), 2,
              "s2s: error: unknown option --frob (see s2s translate --help)");
  check_error(test::run_s2s("score " + kModel + " pairs.tsv"), 2,
              "unexpected argument 'pairs.tsv': give the files with --source FILE");
  check_error(test::run_s2s("translate " + kModel + " -b"), 2, "--beam-size needs a value");
  check_error(test::run_s2s("translate " + kModel + " --format xml"), 2,
              "--format: 'xml' is not one of text, nbest, jsonl");
  check_error(test::run_s2s("progress"), 2, "give the outputs to look at: s2s progress OUT...");
  check_error(test::run_s2s("progress --frob"), 2, "unknown option --frob");
}

TEST_CASE("CLI: output that cannot be written is an error, --help and info included", "[cli]") {
  CHECK(exit_code_on_full_disk("--help") == 1);
  CHECK(exit_code_on_full_disk("translate --help") == 1);
  CHECK(exit_code_on_full_disk("info " + kModel) == 1);
  CHECK(exit_code_on_full_disk("translate " + kModel) == 0);  // no input, nothing to write
  const std::string translate_full = std::string("printf 'hello\\n' | '") + test::s2s_binary() +
                                     "' translate " + kModel + " > /dev/full 2> /dev/null";
  const int status = std::system(translate_full.c_str());
  CHECK((WIFEXITED(status) ? WEXITSTATUS(status) : -1) == 1);
}

}  // namespace s2s
