// Where the input's windows end (the lines read, sorted by length and batched together). Windows
// grow from one batch to --maxi-batch lines, so that the first lines come out after one batch:
// first, 2 first, 4 first, ..., then `most` each. The schedule counts from the input's first
// line, not from where a run starts: a shard, or a run resumed in the middle of a file, cuts the
// same windows as one whole run, so it forms the same batches and writes the same bytes (a
// line's scores depend on its batch in their last digits: float sums in another order).
//
//
// A regular file of at most `most` lines is one window (WindowSchedule::for_input): it is a job
// whose total time is what counts, and sorting all of it gives the most even batches, where
// growing first windows cost a short file a visible share of its time (docs/performance.md,
// "Windows and workers").
// The rule depends on the file alone, so shards and resumed runs still cut what a whole run cuts.
//
// Usage:
//   const WindowSchedule windows = WindowSchedule::for_input(fd, name, batch_size, maxi_batch);
//   reader.next_window(lines, windows.end_after(line) - line);   // line: 0-based, whole input
#pragma once

#include <cstddef>
#include <string>

namespace s2s::pipeline {

class WindowSchedule {
 public:
  // Windows of `first` lines, doubling up to `most` (both at least 1; first capped at most).
  WindowSchedule(std::size_t first, std::size_t most);
  // The schedule for the input open as `fd`, read from its current position: one window of
  // `most` lines when it is a regular file that holds at most `most` lines from there (read
  // with pread; the position does not move), else windows from `first` doubling to `most`.
  // InputError naming `name` when the file cannot be read.
  static WindowSchedule for_input(int fd, const std::string& name, std::size_t first,
                                  std::size_t most);

  // The first window boundary after 0-based line `line` (the end of the window holding it).
  std::size_t end_after(std::size_t line) const;
  // The window boundary nearest to `line` (the lower one on a tie).
  std::size_t nearest(std::size_t line) const;
  bool is_boundary(std::size_t line) const { return line == 0 || end_after(line - 1) == line; }

 private:
  std::size_t first_;
  std::size_t most_;
  std::size_t growth_end_;  // the boundary where windows reach `most`
};

}  // namespace s2s::pipeline
