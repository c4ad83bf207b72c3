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

// Empty when this CPU computes `p` exactly as described above; else why it cannot. bf16 needs
// AVX512-BF16. int8 needs VNNI (AVX512-VNNI or AVX-VNNI): without it oneDNN multiplies int8 pairs
// with vpmaddubsw, whose int16 sums saturate (measured on an AVX2-only CPU: errors of 7 where
// the scheme gives 0.003), so s2s refuses rather than translate silently wrong. PackedMatmul
// throws UsageError with this text.
std::string unsupported_reason(Precision p);

}  // namespace s2s::ops
