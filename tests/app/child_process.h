// A child process with pipes to its stdin and stdout, for tests that talk to s2s the way an
// interactive program does: write a line, wait for the answer, write the next one.
// stderr goes to a file, read once the child has exited.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli_runner.h"

extern char** environ;

namespace s2s::test {

class ChildProcess {
 public:
  explicit ChildProcess(const std::vector<std::string>& argv)
      : stderr_path_(temp_dir("child") / "stderr") {
    // A child that dies early must fail the test, not kill the test process on a write.
    ::signal(SIGPIPE, SIG_IGN);
    int in[2], out[2];
    // CLOEXEC: the child keeps only the ends dup2'ed onto its stdin and stdout.
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0)
      throw std::runtime_error("pipe2 failed");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_path_.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const int rc = posix_spawn(&pid_, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(in[0]);
    ::close(out[1]);
    stdin_ = in[1];
    stdout_ = out[0];
    if (rc != 0) throw std::runtime_error("cannot start " + argv[0]);
  }

  ~ChildProcess() {
    close_stdin();
    if (stdout_ >= 0) ::close(stdout_);
    if (pid_ > 0) {  // a test that failed half-way: don't leave the child running
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    std::filesystem::remove_all(stderr_path_.parent_path());
  }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  bool write(const std::string& data) {
    std::size_t done = 0;
    while (done < data.size()) {
      const ssize_t n = ::write(stdin_, data.data() + done, data.size() - done);
      if (n <= 0) return false;
      done += static_cast<std::size_t>(n);
    }
    return true;
  }

  void close_stdin() {
    if (stdin_ >= 0) ::close(stdin_);
    stdin_ = -1;
  }

  // The next line of stdout without its '\n', or nothing if none is complete within `timeout`.
  std::optional<std::string> read_line(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
      const std::size_t end = pending_.find('\n');
      if (end != std::string::npos) {
        std::string line = pending_.substr(0, end);
        pending_.erase(0, end + 1);
        return line;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return std::nullopt;
      pollfd p{stdout_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      char buffer[4096];
      const ssize_t n = ::read(stdout_, buffer, sizeof buffer);
      if (n <= 0) return std::nullopt;  // the child closed stdout
      pending_.append(buffer, static_cast<std::size_t>(n));
    }
  }

  // Waits for the child to exit; its exit code, or -1 if a signal ended it.
  int wait() {
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  pid_t pid() const { return pid_; }

  // Sends a signal (SIGINT for Ctrl-C) to the child.
  void send_signal(int signal) const { ::kill(pid_, signal); }

  // How many threads the child runs now (0 once it is gone): s2s starts its signal-watching
  // thread first thing in main, so two threads mean its signals are handled from then on.
  int thread_count() const {
    std::error_code error;
    int count = 0;
    const std::filesystem::path tasks = "/proc/" + std::to_string(pid_) + "/task";
    for (std::filesystem::directory_iterator it(tasks, error), end; !error && it != end;
         it.increment(error))
      ++count;
    return count;
  }

  // What the child wrote to stderr (complete once it has exited).
  std::string err() const { return read_file(stderr_path_); }

 private:
  pid_t pid_ = -1;
  int stdin_ = -1;
  int stdout_ = -1;
  std::string pending_;
  std::filesystem::path stderr_path_;
};

}  // namespace s2s::test
