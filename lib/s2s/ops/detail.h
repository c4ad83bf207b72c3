// Private to lib/s2s/ops: the argument checks shared by each op's fast and reference paths, and
// the oneDNN entry points called by the dispatch files. Nothing here includes <dnnl.hpp>.
//
// Every public op follows the same steps: prepare_<op>() checks the arguments (messages give the
// actual and expected shapes) and sizes the output; then the fast path (<op>_dnnl.cc, or plain
// C++ where oneDNN has no primitive) computes it. The tests' reference loops
// (tests/support/ops/<op>_ref.cc) run the same checks.
#pragma once

#include <string>

#include "s2s/backend/cpu_isa.h"
#include "s2s/core/tensor.h"
#include "s2s/ops/elementwise.h"
#include "s2s/ops/matmul.h"
#include "s2s/ops/packed_matmul.h"
#include "s2s/ops/step_attention.h"

namespace s2s::ops::detail {

// Row loops that the compiler vectorises are written once and compiled three times, for AVX-512,
// AVX2 and baseline x86-64 (no -march: the binary stays portable); each call runs the variant of
// backend::cpu_isa(), the one dispatch point (S2S_CPU_ISA picks a lower one for tests):
//   S2S_DISPATCHED(float, row_max, (const float* x, dim_t n), (x, n)) { ...body... }
// defines row_max(x, n) and row_max(isa, x, n) (a given ISA's variant). The body is always
// inlined into each variant, so what it inlines is compiled for that target too.
#define S2S_WITH_ISA(...) (::s2s::backend::CpuIsa isa, __VA_ARGS__)
#define S2S_CURRENT_ISA(...) (::s2s::backend::cpu_isa(), __VA_ARGS__)
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define S2S_DISPATCHED(ret, name, params, args)                                              \
  static inline __attribute__((always_inline)) ret name##_body params;                       \
  __attribute__((target("avx512f"))) static ret name##_avx512 params {                       \
    return name##_body args;                                                                 \
  }                                                                                          \
  __attribute__((target("avx2"))) static ret name##_avx2 params { return name##_body args; } \
  static ret name##_generic params { return name##_body args; }                              \
  [[maybe_unused]] static ret name S2S_WITH_ISA params {                                     \
    switch (isa) {                                                                           \
      case ::s2s::backend::CpuIsa::avx512: return name##_avx512 args;                        \
      case ::s2s::backend::CpuIsa::avx2: return name##_avx2 args;                            \
      case ::s2s::backend::CpuIsa::generic: break;                                           \
    }                                                                                        \
    return name##_generic args;                                                              \
  }                                                                                          \
  [[maybe_unused]] ret name params { return name S2S_CURRENT_ISA args; }                     \
  static inline __attribute__((always_inline)) ret name##_body params
#else
#define S2S_DISPATCHED(ret, name, params, args)                                              \
  static inline ret name##_body params;                                                      \
  [[maybe_unused]] static ret name S2S_WITH_ISA params {                                     \
    static_cast<void>(isa);                                                                  \
    return name##_body args;                                                                 \
  }                                                                                          \
  [[maybe_unused]] ret name params { return name##_body args; }                              \
  static inline ret name##_body params
#endif

// Loops over at least this many elements in all are worth an OpenMP parallel region (entering
// one costs a few microseconds).
constexpr dim_t kParallelElements = dim_t{1} << 15;

// --- shared helpers (common.cc) -------------------------------------------------------------

// The output convention of matmul.h: an owned (or empty, default-constructed) tensor is resized;
// a view must already have `shape` and `dtype`. `what` names the op and argument in messages.
void prepare_output(Tensor& out, const Shape& shape, DataType dtype, const char* what);

void check_dtype(const Tensor& t, DataType dtype, const char* what);
void check_contiguous(const Tensor& t, const char* what);

// Product of the first `batch_rank` dims, and the element offset of batch item `index` in
// row-major order over those dims (views included).
dim_t batch_count(const Tensor& t, int batch_rank);
dim_t batch_offset(const Tensor& t, int batch_rank, dim_t index);

// --- float32 products of a few rows over brgemm's weight layout (panel_gemv.cc) -------------

// oneDNN's BA16a64b layout of a [K, N] weight: panels of 64 columns, in column order, each a
// row-major [K rounded up to 16, 64] block (padding zero). brgemm's float32 weights use it.
constexpr dim_t kPanelColumns = 64;
constexpr dim_t kPanelDepth = 16;
// Rows at most this many go to panel_gemv rather than brgemm (PackedMatmul).
constexpr dim_t kPanelRows = 8;
// y[r, c] = Σ_i x[r, i]·W[i, c] (+ bias[c]) for `rows` rows of x [rows, K] into y [rows, N], on
// AVX-512 CPUs only (where brgemm runs).
void panel_gemv(const float* x, dim_t rows, const float* weights, dim_t k, dim_t n,
                const float* bias, float* y);

// --- per-op checks (in each op's .cc); each returns false when there is nothing to compute ----

bool prepare_matmul(const Tensor& a, const Tensor& b, Tensor& c, const MatmulOptions& options);
bool prepare_softmax(const Tensor& x, Tensor& y, const Tensor* visible, const char* what);
bool prepare_layer_norm(const Tensor& x, const Tensor& scale, const Tensor& bias, Tensor& y);
bool prepare_activation(const Tensor& x, Tensor& y);
bool prepare_add(const Tensor& a, const Tensor& b, Tensor& c);
bool prepare_split_heads(const Tensor& x, dim_t heads, Tensor& y);
bool prepare_merge_heads(const Tensor& x, Tensor& y);
bool prepare_gather_rows(const Tensor& table, const Tensor& ids, Tensor& out);
bool prepare_topk(const Tensor& x, dim_t k, Tensor& values, Tensor& indices);

// step_attention: the sizes it reads; checks every argument, sizes scores and out.
struct StepAttentionDims {
  dim_t rows = 0, caches = 0, heads = 0, keys = 0, head_dim = 0;
  dim_t query_stride = 0;      // elements between query rows
  dim_t key_table_stride = 0;  // entries between rows of cache_of_key
};
StepAttentionDims prepare_step_attention(const Tensor& queries, const Tensor& keys,
                                         const Tensor& values, const StepAttentionRows& rows,
                                         Tensor& scores, Tensor& out);

// PackedMatmul: checks the weight and bias at construction (returns {K, N}) and x/y per call.
struct PackedDims {
  dim_t in = 0;   // K
  dim_t out = 0;  // N
};
PackedDims check_packed_weight(const Tensor& weight, WeightLayout layout, const Tensor* bias);
bool prepare_packed_matmul(const Tensor& x, Tensor& y, dim_t in, dim_t out);
// max over x[0..n), n >= 1: what log_softmax shifts a row by (ops/softmax.cc).
float row_max(const float* x, dim_t n);
// y[0..n) = log_softmax(x[0..n)), n >= 1, y may be x: ops::log_softmax's row (ops/softmax.cc).
void log_softmax_row(const float* x, dim_t n, float* y);
// The same for each of `rows` rows of x [rows, n] into y (may be x), in parallel when worth it.
void log_softmax_rows(const float* x, dim_t rows, dim_t n, float* y);

// --- oneDNN paths (<op>_dnnl.cc); arguments are already checked and non-empty ----------------

void matmul_dnnl(const Tensor& a, const Tensor& b, Tensor& c, const MatmulOptions& options);
void layer_norm_dnnl(const Tensor& x, const Tensor& scale, const Tensor& bias, float epsilon,
                     Tensor& y);
void activation_dnnl(Activation act, const Tensor& x, Tensor& y);
void add_dnnl(const Tensor& a, const Tensor& b, Tensor& c, float a_scale);
void split_heads_dnnl(const Tensor& x, dim_t heads, Tensor& y);
void merge_heads_dnnl(const Tensor& x, Tensor& y);

}  // namespace s2s::ops::detail
