// Process-wide count of the multiply-add FLOPs done by matrix products (2·M·N·K per product,
// summed over batch dims): ops::matmul and PackedMatmul add to it on every call, with one relaxed
// atomic add. bench/ reads it to report the achieved GEMM rate; nothing in the engine depends on it.
//
//   ops::flop_counter::reset();
//   translator.translate(lines);
//   const double gflops = ops::flop_counter::read() * 1e-9;
#pragma once

#include <cstdint>

namespace s2s::ops::flop_counter {

void add(std::int64_t flops);  // thread-safe
void reset();
std::int64_t read();

}  // namespace s2s::ops::flop_counter
