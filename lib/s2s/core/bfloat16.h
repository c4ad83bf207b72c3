// bfloat16: the upper 16 bits of an IEEE binary32. Widening is exact; narrowing rounds to
// nearest even, as oneDNN's own conversion does, and keeps NaN a (quiet) NaN. Both are plain
// bit arithmetic, so that loops over them vectorise.
#pragma once

#include <cstdint>
#include <cstring>

namespace s2s {

using bfloat16_bits = std::uint16_t;

inline float bf16_to_float(bfloat16_bits h) {
  const std::uint32_t bits = static_cast<std::uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

inline bfloat16_bits float_to_bf16(float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  const std::uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
  const std::uint32_t nan = (bits >> 16) | 0x40u;
  return static_cast<bfloat16_bits>((bits & 0x7fffffffu) > 0x7f800000u ? nan : rounded);
}

}  // namespace s2s
