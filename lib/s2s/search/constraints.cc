#include "s2s/search/constraints.h"

#include <algorithm>

#include "s2s/core/error.h"

namespace s2s::search {

Constraints::Constraints(std::vector<std::vector<std::int32_t>> phrases)
    : phrases_(std::move(phrases)) {
  for (const auto& phrase : phrases_) {
    if (phrase.empty()) throw UsageError("empty constraint phrase");
    total_ += static_cast<std::int32_t>(phrase.size());
  }
}

ConstraintState Constraints::start() const {
  ConstraintState state;
  state.met.assign(phrases_.size(), 0);
  return state;
}

ConstraintState Constraints::advance(const ConstraintState& state, std::int32_t token) const {
  ConstraintState next = state;
  if (next.cur >= 0) {
    const std::vector<std::int32_t>& phrase = phrases_[next.cur];
    if (token == phrase[next.prog]) {
      ++next.prog;
      ++next.bank;
      if (next.prog == static_cast<std::int32_t>(phrase.size())) {
        next.met[next.cur] = 1;
        next.cur = -1;
        next.prog = 0;
      }
      return next;
    }
    next.bank -= next.prog;  // left midway: its matched tokens no longer count
    next.cur = -1;
    next.prog = 0;
  }
  for (std::size_t j = 0; j < phrases_.size(); ++j) {
    if (next.met[j] || phrases_[j][0] != token) continue;
    ++next.bank;
    if (phrases_[j].size() == 1) {
      next.met[j] = 1;
    } else {
      next.cur = static_cast<std::int32_t>(j);
      next.prog = 1;
    }
    break;
  }
  return next;
}

std::vector<std::int32_t> Constraints::allowed(const ConstraintState& state) const {
  if (state.cur >= 0) return {phrases_[state.cur][state.prog]};
  std::vector<std::int32_t> out;
  for (std::size_t j = 0; j < phrases_.size(); ++j)
    if (!state.met[j] && std::find(out.begin(), out.end(), phrases_[j][0]) == out.end())
      out.push_back(phrases_[j][0]);
  return out;
}

std::vector<dim_t> bank_sizes(dim_t k, const std::vector<dim_t>& counts) {
  const dim_t banks = static_cast<dim_t>(counts.size()), top = banks - 1;
  std::vector<dim_t> size(banks, k / banks);
  size[top] += k % banks;
  for (dim_t b = top; b > 0; --b) {
    if (size[b] > counts[b]) {
      size[b - 1] += size[b] - counts[b];
      size[b] = counts[b];
    }
  }
  dim_t excess = std::max<dim_t>(0, size[0] - counts[0]);
  size[0] -= excess;
  for (dim_t b = 1; b < banks && excess > 0; ++b) {
    const dim_t x = std::min(excess, counts[b] - size[b]);
    size[b] += x;
    excess -= x;
  }
  return size;
}

}  // namespace s2s::search
