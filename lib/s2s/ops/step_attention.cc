// step_attention: argument checks and the fast path, plain C++ (see step_attention.h).
// oneDNN would run each (row, head) as two gemv calls of a few dozen keys plus a softmax and two
// head reorders: at beam 4, batch 32 that was ~27 % of the decoder's primitive time for < 5 % of
// its FLOPs (bench/NOTES.md). Here one loop over (row, head) pairs streams each key and value
// row once, with the scores kept in cache.
#include "s2s/ops/step_attention.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "s2s/ops/detail.h"
#include "s2s/ops/flop_counter.h"
#include "s2s/ops/vector_exp.h"

namespace s2s::ops {

namespace detail {

StepAttentionDims prepare_step_attention(const Tensor& queries, const Tensor& keys,
                                         const Tensor& values, const StepAttentionRows& rows,
                                         Tensor& scores, Tensor& out) {
  check_dtype(queries, DataType::f32, "step_attention queries");
  S2S_CHECK(keys.dtype() == DataType::f32 || keys.dtype() == DataType::bf16,
            "step_attention keys are ", dtype_name(keys.dtype()), ", expected float32 or bfloat16");
  check_dtype(values, keys.dtype(), "step_attention values");
  S2S_CHECK(keys.rank() == 4, "step_attention keys are ", to_string(keys.shape()),
            ", expected [N, H, L, Dh]");
  S2S_CHECK(values.shape() == keys.shape(), "step_attention values ", to_string(values.shape()),
            " differ from keys ", to_string(keys.shape()));
  S2S_CHECK(keys.strides()[3] == 1 && values.strides()[3] == 1,
            "step_attention keys and values need a contiguous last axis");
  StepAttentionDims d;
  d.caches = keys.dim(0);
  d.heads = keys.dim(1);
  d.keys = keys.dim(2);
  d.head_dim = keys.dim(3);
  const dim_t model = d.heads * d.head_dim;
  const bool shaped = (queries.rank() == 2 || (queries.rank() == 3 && queries.dim(1) == 1)) &&
                      queries.dim(-1) == model && queries.strides().back() == 1;
  S2S_CHECK(shaped, "step_attention queries are ", to_string(queries.shape()), ", expected [R, ",
            model, "] or [R, 1, ", model, "] with contiguous columns");
  d.rows = queries.dim(0);
  d.query_stride = queries.strides()[0];
  for (const Tensor* counts : {rows.cache_of_row, rows.visible}) {
    if (!counts) continue;
    check_dtype(*counts, DataType::i32, "step_attention row counts");
    check_contiguous(*counts, "step_attention row counts");
    S2S_CHECK(counts->numel() == d.rows, "step_attention has ", counts->numel(),
              " per-row entries for ", d.rows, " rows");
  }
  S2S_CHECK(!(rows.cache_of_row && rows.cache_of_key),
            "step_attention takes a cache per row or per key, not both");
  const auto check_cache = [&](std::int32_t cache, dim_t r) {
    S2S_CHECK(cache >= 0 && cache < d.caches, "step_attention row ", r, " reads cache ", cache,
              " of ", d.caches);
  };
  if (rows.cache_of_row) {
    const std::int32_t* cache = rows.cache_of_row->data<std::int32_t>();
    for (dim_t r = 0; r < d.rows; ++r) check_cache(cache[r], r);
  } else if (rows.cache_of_key) {
    const Tensor& table = *rows.cache_of_key;
    check_dtype(table, DataType::i32, "step_attention cache_of_key");
    check_contiguous(table, "step_attention cache_of_key");
    S2S_CHECK(table.rank() == 2 && table.dim(0) == d.rows && table.dim(1) >= d.keys,
              "step_attention cache_of_key is ", to_string(table.shape()), ", expected [", d.rows,
              ", >= ", d.keys, "]");
    d.key_table_stride = table.dim(1);
    const std::int32_t* cache = table.data<std::int32_t>();
    for (dim_t r = 0; r < d.rows; ++r)
      for (dim_t j = 0; j < d.keys; ++j) check_cache(cache[r * d.key_table_stride + j], r);
  } else {
    S2S_CHECK(d.caches == d.rows, "step_attention: ", d.rows, " rows and ", d.caches,
              " caches need a cache_of_row map");
  }
  if (rows.visible) {
    const std::int32_t* counts = rows.visible->data<std::int32_t>();
    for (dim_t r = 0; r < d.rows; ++r)
      S2S_CHECK(counts[r] >= 0, "step_attention visible count ", counts[r], " of row ", r,
                " is negative");
  }
  const dim_t needed = d.rows * d.heads * d.keys;
  if (scores.raw() == nullptr || scores.numel() < needed) scores.resize({needed});
  check_contiguous(scores, "step_attention scores");
  const Shape out_shape = queries.rank() == 2 ? Shape{d.rows, model} : Shape{d.rows, 1, model};
  prepare_output(out, out_shape, DataType::f32, "step_attention out");
  check_contiguous(out, "step_attention out");
  return d;
}

}  // namespace detail

namespace {

// Where the keys (or values) of one (row, head) are: key j starts at
// base + j·position_stride + (caches ? caches[j]·cache_stride : 0). T: float, or bfloat16_bits
// for the bfloat16 caches of the int8 and bfloat16 precisions.
template <typename T>
struct HeadKeys {
  const T* base;
  std::int64_t position_stride;
  std::int64_t cache_stride;
  const std::int32_t* caches;  // per key, or null: base already points at the row's cache

  const T* at(std::int64_t j) const {
    return base + j * position_stride + (caches ? caches[j] * cache_stride : 0);
  }
};

inline float widen(float x) { return x; }
inline float widen(bfloat16_bits x) { return bf16_to_float(x); }

// One (row, head): scores q·k_j·scale for the n visible keys, softmax, then Σ_j p_j·v_j.
// Always inlined into the target_clones entry points below, so that it is compiled for each.
template <typename T>
inline __attribute__((always_inline)) void attend_head(const float* q, HeadKeys<T> k, HeadKeys<T> v,
                                                       std::int64_t n, std::int64_t head_dim,
                                                       float scale, float* scores, float* out) {
  for (std::int64_t i = 0; i < head_dim; ++i) out[i] = 0.0f;
  if (n == 0) return;
  float max = -std::numeric_limits<float>::infinity();
  for (std::int64_t j = 0; j < n; ++j) {
    const T* key = k.at(j);
    float dot = 0.0f;
#pragma omp simd reduction(+ : dot)
    for (std::int64_t i = 0; i < head_dim; ++i) dot += q[i] * widen(key[i]);
    scores[j] = dot * scale;
    max = std::max(max, scores[j]);
  }
  const float sum = static_cast<float>(detail::exp_shifted(scores, max, n, scores));
  for (std::int64_t j = 0; j < n; ++j) {
    const float p = scores[j];
    const T* value = v.at(j);
#pragma omp simd
    for (std::int64_t i = 0; i < head_dim; ++i) out[i] += p * widen(value[i]);
  }
  const float inv = 1.0f / sum;
#pragma omp simd
  for (std::int64_t i = 0; i < head_dim; ++i) out[i] *= inv;
}

S2S_TARGET_CLONES void attend_one_head(const float* q, HeadKeys<float> k, HeadKeys<float> v,
                                       std::int64_t n, std::int64_t head_dim, float scale,
                                       float* scores, float* out) {
  attend_head(q, k, v, n, head_dim, scale, scores, out);
}

S2S_TARGET_CLONES void attend_one_head(const float* q, HeadKeys<bfloat16_bits> k,
                                       HeadKeys<bfloat16_bits> v, std::int64_t n,
                                       std::int64_t head_dim, float scale, float* scores,
                                       float* out) {
  attend_head(q, k, v, n, head_dim, scale, scores, out);
}

// All (row, head) pairs, the caches holding T.
template <typename T>
void attend_all(const detail::StepAttentionDims& d, const Tensor& queries, const Tensor& keys,
                const Tensor& values, const StepAttentionRows& rows, float scale, Tensor& scores,
                Tensor& out) {
  const auto ids = [](const Tensor* t) { return t ? t->data<std::int32_t>() : nullptr; };
  const std::int32_t* row_cache = ids(rows.cache_of_row);
  const std::int32_t* key_cache = ids(rows.cache_of_key);
  const std::int32_t* counts = ids(rows.visible);
  const float* q = queries.data<float>();
  float* s = scores.data<float>();
  float* o = out.data<float>();
  const Shape& ks = keys.strides();
  const Shape& vs = values.strides();
  const T* key_data = static_cast<const T*>(keys.raw());
  const T* value_data = static_cast<const T*>(values.raw());
  const dim_t pairs = d.rows * d.heads;
  // Below ~100k multiply-adds a parallel region costs more than it saves (a few microseconds).
  const bool parallel = pairs > 1 && pairs * d.keys * d.head_dim > 50000;
#pragma omp parallel for schedule(static) if (parallel)
  for (dim_t pair = 0; pair < pairs; ++pair) {
    const dim_t r = pair / d.heads, h = pair % d.heads;
    const dim_t c = key_cache ? 0 : row_cache ? row_cache[r] : r;
    const std::int32_t* caches = key_cache ? key_cache + r * d.key_table_stride : nullptr;
    const HeadKeys<T> k{key_data + c * ks[0] + h * ks[1], ks[2], ks[0], caches};
    const HeadKeys<T> v{value_data + c * vs[0] + h * vs[1], vs[2], vs[0], caches};
    const dim_t n = counts ? std::min<dim_t>(counts[r], d.keys) : d.keys;
    attend_one_head(q + r * d.query_stride + h * d.head_dim, k, v, n, d.head_dim, scale,
                    s + pair * d.keys, o + pair * d.head_dim);
  }
}

}  // namespace

void step_attention(const Tensor& queries, const Tensor& keys, const Tensor& values,
                    const StepAttentionRows& rows, float scale, Tensor& scores, Tensor& out) {
  const detail::StepAttentionDims d =
      detail::prepare_step_attention(queries, keys, values, rows, scores, out);
  if (keys.dtype() == DataType::bf16)
    attend_all<bfloat16_bits>(d, queries, keys, values, rows, scale, scores, out);
  else
    attend_all<float>(d, queries, keys, values, rows, scale, scores, out);
  const std::int32_t* counts = rows.visible ? rows.visible->data<std::int32_t>() : nullptr;
  // The products' work, as ops::matmul counts it (q·Kᵀ and p·V: 2·Dh per visible key each).
  dim_t keys_read = 0;
  for (dim_t r = 0; r < d.rows; ++r)
    keys_read += counts ? std::min<dim_t>(counts[r], d.keys) : d.keys;
  flop_counter::add(4 * keys_read * d.heads * d.head_dim);
}

}  // namespace s2s::ops
