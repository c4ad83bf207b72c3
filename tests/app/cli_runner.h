// Runs the real s2s binary with given arguments and standard input; captures exit code, stdout
// and stderr. CLI tests use it to check the user-facing contract end to end.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "test_utils.h"

namespace s2s::test {

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The directories temp_dir made, removed when the test process exits (every CI run used to leave
// a few dozen behind in /tmp).
struct TempDirs {
  std::vector<std::filesystem::path> made;
  ~TempDirs() {
    for (const auto& dir : made) {
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
    }
  }
};

// A fresh empty directory under the system temp folder, removed at exit.
inline std::filesystem::path temp_dir(const std::string& tag) {
  static int counter = 0;
  static TempDirs dirs;
  const auto dir = std::filesystem::temp_directory_path() /
                   ("s2s-test-" + std::to_string(::getpid()) + "-" + tag + "-" +
                    std::to_string(counter++));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  dirs.made.push_back(dir);
  return dir;
}

// Runs `command` (a shell command line) with stdout and stderr captured in files of `dir`, then
// removes `dir`.
inline RunResult run_captured(const std::string& command, const std::filesystem::path& dir) {
  const std::string line = command + " > '" + (dir / "stdout").string() + "' 2> '" +
                           (dir / "stderr").string() + "'";
  const int status = std::system(line.c_str());
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(dir / "stdout");
  r.err = read_file(dir / "stderr");
  std::filesystem::remove_all(dir);
  return r;
}

// args are passed through the shell: quote anything with spaces.
inline RunResult run_s2s(const std::string& args, const std::string& input = "") {
  const auto dir = temp_dir("run");
  {
    std::ofstream in(dir / "stdin", std::ios::binary);
    in << input;
  }
  return run_captured(
      std::string("'") + test::s2s_binary() + "' " + args + " < '" + (dir / "stdin").string() + "'",
      dir);
}

// Runs a shell command line (bash, in `folder` when given; stdin /dev/null unless the command
// redirects it) and captures it as run_s2s does. For tests whose redirections are the point.
inline RunResult run_shell(const std::string& command, const std::string& folder = "") {
  const auto dir = temp_dir("shell");
  {
    std::ofstream script(dir / "command.sh");
    if (!folder.empty()) script << "cd '" << folder << "' || exit 99\n";
    script << command << "\n";
  }
  return run_captured("bash '" + (dir / "command.sh").string() + "' < /dev/null", dir);
}

inline int count_lines(const std::string& text) {
  int n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

// The lines of `text`, each ended by '\n' (what follows the last '\n' is dropped).
inline std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1)
    lines.push_back(text.substr(start, end - start));
  return lines;
}

}  // namespace s2s::test
