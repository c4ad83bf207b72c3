// How the linear layers' matmuls compute (s2s translate --precision). Everything else (embeddings,
// layer norms, attention scores, softmax, the final log-softmax) stays float32 in every mode,
// except that bf16 and int8 also store the decoder's key/value caches in bfloat16 (Decoder).
//   f32   float32 weights and activations.
//   bf16  bfloat16 weights and activations, float32 accumulation and output (AVX512_BF16).
//   int8  weights quantized per output channel at load, activations per row at each call
//         (symmetric, scale = max|value| / 127), int32 accumulation, float32 output (VNNI).
#pragma once

#include <optional>
#include <string>

namespace s2s::ops {

enum class Precision { f32, bf16, int8 };
inline constexpr const char* kPrecisionNames[] = {"float32", "bfloat16", "int8"};

// "float32", "bfloat16", "int8".
const char* precision_name(Precision p);
// Accepts those names (kPrecisionNames) and the short forms f32 / bf16 / i8.
std::optional<Precision> parse_precision(const std::string& name);

}  // namespace s2s::ops
