#include "s2s/ops/precision.h"

namespace s2s::ops {

const char* precision_name(Precision p) { return kPrecisionNames[static_cast<int>(p)]; }

std::optional<Precision> parse_precision(const std::string& name) {
  if (name == "float32" || name == "f32") return Precision::f32;
  if (name == "bfloat16" || name == "bf16") return Precision::bf16;
  if (name == "int8" || name == "i8") return Precision::int8;
  return std::nullopt;
}

}  // namespace s2s::ops
