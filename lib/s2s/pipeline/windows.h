// Where the input's windows end (the lines read, sorted by length and batched together). Windows
// grow from one batch to --maxi-batch lines, so that the first lines come out after one batch:
// first, 2 first, 4 first, ..., then `most` each. The schedule counts from the input's first
// line, not from where a run starts: a shard, or a run resumed in the middle of a file, cuts the
// same windows as one whole run, so it forms the same batches and writes the same bytes (a
// line's scores depend on its batch in their last digits: float sums in another order).
//
// Usage:
//   WindowSchedule windows(batch_size, maxi_batch);
//   reader.next_window(lines, windows.end_after(line) - line);   // line: 0-based, whole input
#pragma once

#include <cstddef>

namespace s2s::pipeline {

class WindowSchedule {
 public:
  // Windows of `first` lines, doubling up to `most` (both at least 1; first capped at most).
  WindowSchedule(std::size_t first, std::size_t most);

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
