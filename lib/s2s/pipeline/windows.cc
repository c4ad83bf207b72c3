#include "s2s/pipeline/windows.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "s2s/pipeline/read_at.h"

namespace s2s::pipeline {
namespace {

// Whether the regular file `fd` holds at most `most` lines from `offset` on (a last line without
// a newline counts), reading no further than the line after them.
bool at_most_lines(int fd, std::uint64_t offset, std::size_t most, const std::string& name) {
  std::vector<char> buffer(std::size_t{1} << 20);
  std::size_t newlines = 0;
  bool open_line = false;  // bytes after the last newline so far
  for (std::size_t n; (n = read_at(fd, buffer.data(), buffer.size(), offset, name)) > 0;
       offset += n) {
    newlines += static_cast<std::size_t>(std::count(buffer.data(), buffer.data() + n, '\n'));
    open_line = buffer[n - 1] != '\n';
    if (newlines > most) return false;
  }
  return newlines + (open_line ? 1 : 0) <= most;
}

}  // namespace

WindowSchedule WindowSchedule::for_input(int fd, const std::string& name, std::size_t first,
                                         std::size_t most) {
  struct stat st {};
  const off_t position = ::lseek(fd, 0, SEEK_CUR);
  const bool small_file = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && position >= 0 &&
                          at_most_lines(fd, static_cast<std::uint64_t>(position), most, name);
  return WindowSchedule(small_file ? most : first, most);
}

WindowSchedule::WindowSchedule(std::size_t first, std::size_t most)
    : first_(std::max<std::size_t>(1, std::min(first, most))),
      most_(std::max<std::size_t>(1, most)) {
  growth_end_ = 0;
  for (std::size_t w = first_; w < most_; w *= 2) growth_end_ += w;
}

std::size_t WindowSchedule::end_after(std::size_t line) const {
  if (line >= growth_end_) return growth_end_ + ((line - growth_end_) / most_ + 1) * most_;
  std::size_t end = 0;
  for (std::size_t w = first_; end <= line; w *= 2) end += w;
  return end;
}

std::size_t WindowSchedule::nearest(std::size_t line) const {
  const std::size_t above = end_after(line);
  std::size_t below = 0;  // the start of the window holding `line`
  if (line >= growth_end_) {
    below = growth_end_ + (line - growth_end_) / most_ * most_;
  } else {
    for (std::size_t w = first_; below + w <= line; w *= 2) below += w;
  }
  return line - below <= above - line ? below : above;
}

}  // namespace s2s::pipeline
