// How the linear layers' matmuls compute (s2s translate --precision). Everything else (embeddings,
// layer norms, attention scores, softmax, the final log-softmax) stays float32 in every mode,
// except that bf16 and int8 also store the decoder's key/value caches in bfloat16 (Decoder).
//   f32   float32 weights and activations.
//   bf16  bfloat16 weights and activations, float32 accumulation and output (AVX512_BF16).
//   int8  weights quantized per output channel at load, activations per row at each call
//         (symmetric, scale = max|value| / levels: 127 for activations, int8_weight_levels()
//         for weights), int32 accumulation, float32 output.
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
// AVX512-BF16; float32 and int8 run everywhere. PackedMatmul throws UsageError with this text.
std::string unsupported_reason(Precision p);

// The levels int8 weights are quantized to (|Wq| <= levels): 127 on CPUs with VNNI (AVX512-VNNI
// or AVX-VNNI), 63 (7 bits) on the others. Without VNNI oneDNN multiplies the activations, made
// unsigned by adding 128 (0..255), with the weights by vpmaddubsw, which adds each pair of
// products into an int16 that saturates: 2 · 255 · 127 = 64770 can overflow it (measured on an
// AVX2-only CPU: errors of 7 where the scheme gives 0.003), 2 · 255 · 63 = 32130 cannot. The
// cost is one bit of weight precision (docs/performance.md, "int8 without VNNI").
int int8_weight_levels();

// How a PackedMatmul packs its weight: the precision it computes in, and two choices the CPU
// otherwise makes, given explicitly to run every path on one machine (tests).
struct Packing {
  Precision precision = Precision::f32;
  // int8: the levels weights are quantized to, 63 or 127 (127 on a CPU without VNNI
  // saturates); 0: this CPU's (int8_weight_levels()).
  int int8_weight_levels = 0;
  // bfloat16 and int8: take the row count at run time (oneDNN's `gemm:jit`, the path of CPUs
  // without brgemm) even where brgemm would serve fixed row counts (packed_matmul_dnnl.cc).
  bool runtime_rows = false;
  // An untied output layer also keeps its weight as float32 rows [V, D], from which a shortlist
  // takes the rows of its candidates (model::Decoder::restrict_output); a tied one has them in
  // its embedding table.
  bool keep_output_rows = false;

  Packing() = default;
  Packing(Precision p) : precision(p) {}  // NOLINT(google-explicit-constructor): a precision is a packing
  Packing(Precision p, int levels, bool runtime) : precision(p), int8_weight_levels(levels), runtime_rows(runtime) {}
};

}  // namespace s2s::ops
