// Input/output helpers shared by the subcommands: files or standard streams by descriptor,
// writes that end quietly on a closed pipe, and the progress line.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace s2s::app {

// Owns a descriptor it opened; standard streams ("-") are borrowed. InputError when a file
// cannot be opened.
class File {
 public:
  File(const std::string& path, bool for_output);
  ~File();
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
  bool owned_ = false;
};

// Writes everything, or returns false when the reader has gone (EPIPE: `s2s translate | head`),
// which is a normal way for a pipeline to end. Callers ignore SIGPIPE first.
bool write_all(int fd, const std::string& data);

// "s2s: 1200 lines, 85.3 lines/s" on one rewritten stderr line, at most 4 times a second, only
// when `shown`; the final one is also the run's summary in the log file (log.h), shown or not.
class Progress {
 public:
  explicit Progress(bool shown) : shown_(shown), start_(Clock::now()), last_(start_) {}
  void update(std::size_t lines, bool final);

 private:
  using Clock = std::chrono::steady_clock;
  bool shown_;
  Clock::time_point start_;
  Clock::time_point last_;
};

}  // namespace s2s::app
