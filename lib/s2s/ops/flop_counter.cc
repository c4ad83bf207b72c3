#include "s2s/ops/flop_counter.h"

#include <atomic>

namespace s2s::ops::flop_counter {
namespace {

std::atomic<std::int64_t> count{0};

}  // namespace

void add(std::int64_t flops) { count.fetch_add(flops, std::memory_order_relaxed); }

void reset() { count.store(0, std::memory_order_relaxed); }

std::int64_t read() { return count.load(std::memory_order_relaxed); }

}  // namespace s2s::ops::flop_counter
