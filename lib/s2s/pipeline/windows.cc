#include "s2s/pipeline/windows.h"

#include <algorithm>

namespace s2s::pipeline {

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
