// LineReader: input lines from a file descriptor, in windows sized to how fast input arrives
// (docs/user-guide.md, "Guarantees"). A file or a fast pipe fills whole windows, so lines can be
// sorted and batched; an interactive writer (a terminal, or a process that writes one line and
// waits for its answer) gets a window as soon as no more input is waiting, so its answer is not
// held back until more lines come.
//
// Lines are split on '\n'; one '\r' before it is dropped (CRLF input); a last line without a
// newline is still a line; any other byte, NUL included, is kept.
//
// Usage:
//   LineReader reader(STDIN_FILENO);
//   std::vector<std::string> lines;
//   while (reader.next_window(lines, 1000)) translate_and_print(lines);
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace s2s::pipeline {

class LineReader {
 public:
  static constexpr std::uint64_t kNoLimit = std::numeric_limits<std::uint64_t>::max();

  // Does not take ownership of fd. `stop`, when given and true, ends the input: next_window
  // returns false, and a read(2) interrupted by a signal (EINTR) is not retried. With
  // `max_bytes`, the input is the next max_bytes bytes from fd's position (a shard, shard.h):
  // after them the input ends as at the end of the file.
  explicit LineReader(int fd, const std::atomic<bool>* stop = nullptr,
                      std::uint64_t max_bytes = kNoLimit);

  // Replaces `lines` with the next 1..max_lines lines. Returns early, with what it has, when no
  // more input is immediately available. Returns false (and no lines) at the end of input.
  // InputError when reading fails.
  bool next_window(std::vector<std::string>& lines, std::size_t max_lines);

  // For the lines of the last window: the byte offset just past each one (its newline
  // included), counted from where the reader started. A resumable run records them (journal.h).
  const std::vector<std::uint64_t>& line_ends() const { return ends_; }

 private:
  bool take_line(std::vector<std::string>& lines);  // moves one complete line out of buffer_
  bool input_waiting() const;                       // poll() with timeout 0
  void read_more();                                 // one read(2); sets eof_ at the end

  bool stopped() const { return stop_ != nullptr && stop_->load(std::memory_order_relaxed); }

  int fd_;
  const std::atomic<bool>* stop_;
  std::string buffer_;    // bytes read but not yet returned, from pos_
  std::size_t pos_ = 0;   // start of the unreturned bytes in buffer_
  std::size_t scan_ = 0;  // no '\n' in buffer_[pos_, scan_): saves rescanning a long line
  std::uint64_t left_;    // bytes the input may still give (max_bytes less what was read)
  std::uint64_t dropped_ = 0;        // bytes erased from buffer_'s front so far
  std::vector<std::uint64_t> ends_;  // line_ends()
  bool eof_ = false;
};

}  // namespace s2s::pipeline
