// step_attention: argument checks and the fast path, plain C++ (see step_attention.h).
// oneDNN would run each (row, head) as two gemv calls of a few dozen keys plus a softmax and two
// head reorders: at beam 4, batch 32 that was a large share of the decoder's primitive time for a
// small share of its FLOPs (docs/performance.md, "Step attention"). Here one loop over (row, head)
// pairs streams each key and value row once, with the scores kept in cache.
#include "s2s/ops/step_attention.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "s2s/core/bfloat16.h"
#include "s2s/ops/detail.h"
#include "s2s/ops/flop_counter.h"
#include "s2s/ops/step_attention_kernels.h"
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

template <typename T>
using Caches = detail::StepCaches<T>;

inline float widen(float x) { return x; }
inline float widen(bfloat16_bits x) { return bf16_to_float(x); }

// 8 lanes at a time (GCC/Clang vector extensions, as in vector_exp.h), two accumulators per dot
// product, summed by halving at the end. GCC's own reduction of an `omp simd` loop ended in 15
// dependent scalar adds per dot, which bounded the whole kernel; 16-lane vectors were no better
// on AVX-512 and, on AVX2 machines, GCC spilled every one of them through the stack (perf annotate:
// most of the kernel's samples on stack stores and reloads; docs/performance.md, "Step attention").
using f32x8 = float __attribute__((vector_size(32)));
using f32x4 = float __attribute__((vector_size(16)));
using u16x8 = std::uint16_t __attribute__((vector_size(16)));
using u32x8 = std::uint32_t __attribute__((vector_size(32)));

inline __attribute__((always_inline)) f32x8 load8(const float* x) {
  f32x8 v;
  std::memcpy(&v, x, sizeof v);
  return v;
}

inline __attribute__((always_inline)) f32x8 load8(const bfloat16_bits* x) {
  u16x8 h;
  std::memcpy(&h, x, sizeof h);
  return (f32x8)(__builtin_convertvector(h, u32x8) << 16);
}

inline __attribute__((always_inline)) float sum_lanes(f32x8 v) {
  const f32x4 a = __builtin_shufflevector(v, v, 0, 1, 2, 3) + __builtin_shufflevector(v, v, 4, 5, 6, 7);
  return (a[0] + a[2]) + (a[1] + a[3]);
}

// q·k over head_dim entries.
template <typename T>
inline __attribute__((always_inline)) float dot(const float* q, const T* k,
                                                std::int64_t head_dim) {
  if (head_dim % 16 == 0) {
    f32x8 even{}, odd{};
    for (std::int64_t i = 0; i < head_dim; i += 16) {
      even += load8(q + i) * load8(k + i);
      odd += load8(q + i + 8) * load8(k + i + 8);
    }
    return sum_lanes(even + odd);
  }
  float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
  for (std::int64_t i = 0; i < head_dim; ++i) sum += q[i] * widen(k[i]);
  return sum;
}

// Rows are this many ahead when their key (value) is prefetched: each (row, key) is a separate
// block of memory (a cache slot chosen by the beam's history), which the hardware prefetchers
// cannot foresee. At d 256 and 4 heads a row's work is short, so the distance must cover it many
// times over: 8 rows beat 2, 4 and 16 on a small model's beam search and changed nothing on the
// base model (docs/performance.md, "Step attention").
constexpr std::int64_t kAhead = 8;

// Asks for the cache lines of heads [h0, h1) of row r's key (or value) j.
template <typename T>
inline __attribute__((always_inline)) void prefetch(const Caches<T>& c, std::int64_t r,
                                                    std::int64_t j, std::int64_t h0,
                                                    std::int64_t h1, std::int64_t head_dim) {
  const T* base = c.at(r, j);
  const std::int64_t line = 64 / static_cast<std::int64_t>(sizeof(T));
  for (std::int64_t h = h0; h < h1; ++h)
    for (std::int64_t i = 0; i < head_dim; i += line)
      __builtin_prefetch(base + h * c.head_stride + i, 0, 3);
}

// The softmax of each (row, head)'s scores in place, over the keys it sees (none: left alone;
// its output row is zero). Between the two passes of either kernel.
inline __attribute__((always_inline)) void softmax_block(const detail::StepAttentionDims& d,
                                                         const std::int32_t* counts,
                                                         std::int64_t r0, std::int64_t r1,
                                                         std::int64_t h0, std::int64_t h1,
                                                         float* scores) {
  for (std::int64_t r = r0; r < r1; ++r) {
    const std::int64_t n = detail::visible_keys(counts, r, d.keys);
    for (std::int64_t h = h0; h < h1 && n > 0; ++h) {
      float* p = scores + (r * d.heads + h) * d.keys;
      float max = -std::numeric_limits<float>::infinity();
      for (std::int64_t j = 0; j < n; ++j) max = std::max(max, p[j]);
      const float inv = static_cast<float>(1.0 / detail::exp_shifted(p, max, n, p));
      for (std::int64_t j = 0; j < n; ++j) p[j] *= inv;
    }
  }
}

// Rows [r0, r1) × heads [h0, h1): scores q_rh·k_rjh·scale over row r's n_r visible keys, a
// softmax per (row, head), then Σ_j p_rjh·v_rjh. Keys outermost, then rows, then heads: a key's
// heads sit side by side in the decoder's caches (one contiguous read, where a loop per head
// jumped from key to key and waited on memory at each, several times slower), and in the
// position-major self-attention cache the rows of a block read each slab once, in order.
// Every (row, head) sums in the same order whatever the block, so blocks never change results.
// Always inlined into the S2S_DISPATCHED entry points below, so that it is compiled for each ISA.
template <typename T>
inline __attribute__((always_inline)) void attend_block(
    const detail::StepAttentionDims& d, const float* q, Caches<T> k, Caches<T> v,
    const std::int32_t* counts, std::int64_t r0, std::int64_t r1, std::int64_t h0,
    std::int64_t h1, float scale, float* scores, float* out) {
  const std::int64_t heads = d.heads, head_dim = d.head_dim, keys = d.keys;
  const auto visible = [&](std::int64_t r) { return detail::visible_keys(counts, r, keys); };
  std::int64_t longest = 0;
  for (std::int64_t r = r0; r < r1; ++r) {
    longest = std::max(longest, visible(r));
    float* o = out + r * heads * head_dim;
    for (std::int64_t i = h0 * head_dim; i < h1 * head_dim; ++i) o[i] = 0.0f;
  }
  for (std::int64_t j = 0; j < longest; ++j)
    for (std::int64_t r = r0; r < r1; ++r) {
      if (j >= visible(r)) continue;
      if (r + kAhead < r1 && j < visible(r + kAhead)) prefetch(k, r + kAhead, j, h0, h1, head_dim);
      const T* key = k.at(r, j);
      const float* qr = q + r * d.query_stride;
      float* s = scores + r * heads * keys + j;
      for (std::int64_t h = h0; h < h1; ++h)
        s[h * keys] = dot(qr + h * head_dim, key + h * k.head_stride, head_dim) * scale;
    }
  softmax_block(d, counts, r0, r1, h0, h1, scores);
  for (std::int64_t j = 0; j < longest; ++j)
    for (std::int64_t r = r0; r < r1; ++r) {
      if (j >= visible(r)) continue;
      if (r + kAhead < r1 && j < visible(r + kAhead)) prefetch(v, r + kAhead, j, h0, h1, head_dim);
      const T* value = v.at(r, j);
      for (std::int64_t h = h0; h < h1; ++h) {
        const float p = scores[(r * heads + h) * keys + j];
        const T* vh = value + h * v.head_stride;
        float* oh = out + (r * heads + h) * head_dim;
#pragma omp simd
        for (std::int64_t i = 0; i < head_dim; ++i) oh[i] += p * widen(vh[i]);
      }
    }
}

S2S_DISPATCHED(void, attend_rows, (const detail::StepAttentionDims& d, const float* q,
                                   Caches<float> k, Caches<float> v, const std::int32_t* counts,
                                   std::int64_t r0, std::int64_t r1, std::int64_t h0,
                                   std::int64_t h1, float scale, float* scores, float* out), (d, q, k, v, counts, r0, r1, h0, h1, scale, scores, out)) {
  attend_block(d, q, k, v, counts, r0, r1, h0, h1, scale, scores, out);
}

S2S_DISPATCHED(void, attend_rows, (const detail::StepAttentionDims& d, const float* q,
                                   Caches<bfloat16_bits> k, Caches<bfloat16_bits> v,
                                   const std::int32_t* counts, std::int64_t r0, std::int64_t r1,
                                   std::int64_t h0, std::int64_t h1, float scale, float* scores,
                                   float* out), (d, q, k, v, counts, r0, r1, h0, h1, scale, scores, out)) {
  attend_block(d, q, k, v, counts, r0, r1, h0, h1, scale, scores, out);
}

// The softmax between the AVX-512 kernel's two passes (step_attention_avx512.cc).
S2S_DISPATCHED(void, softmax_rows, (const detail::StepAttentionDims& d, const std::int32_t* counts,
                                    std::int64_t r0, std::int64_t r1, std::int64_t h0,
                                    std::int64_t h1, float* scores), (d, counts, r0, r1, h0, h1, scores)) {
  softmax_block(d, counts, r0, r1, h0, h1, scores);
}

// Every row, the caches holding T. Work items: with fewer than 8 rows one head of one row, so
// that a single sentence still keeps every core busy; else, over a position-major cache
// (cache_of_key), an equal block of rows per thread, which then reads each slab once; else one
// row (the cross-attention K/V of a sentence are head-major: one row streams them best).
template <typename T>
void attend_all(backend::CpuIsa isa, const detail::StepAttentionDims& d, const Tensor& queries,
                const Tensor& keys,
                const Tensor& values, const StepAttentionRows& rows, float scale, Tensor& scores,
                Tensor& out) {
  const auto ids = [](const Tensor* t) { return t ? t->data<std::int32_t>() : nullptr; };
  const Shape& ks = keys.strides();
  const Shape& vs = values.strides();
  const std::int32_t* row_cache = ids(rows.cache_of_row);
  const std::int32_t* key_cache = ids(rows.cache_of_key);
  const Caches<T> k{static_cast<const T*>(keys.raw()), ks[0], ks[1], ks[2], row_cache, key_cache,
                    d.key_table_stride};
  const Caches<T> v{static_cast<const T*>(values.raw()), vs[0], vs[1], vs[2], row_cache,
                    key_cache, d.key_table_stride};
  const std::int32_t* counts = ids(rows.visible);
  const float* q = queries.data<float>();
  float* s = scores.data<float>();
  float* o = out.data<float>();
  // Below ~100k multiply-adds a parallel region costs more than it saves (a few microseconds).
  const bool parallel = d.rows * d.heads > 1 && d.rows * d.heads * d.keys * d.head_dim > 50000;
  const dim_t threads = parallel ? omp_get_max_threads() : 1;
  const bool few = d.rows < 8;
  const dim_t heads_per_item = few ? 1 : d.heads;
  const dim_t rows_per_item = !few && key_cache ? (d.rows + threads - 1) / threads : 1;
  const dim_t row_blocks = (d.rows + rows_per_item - 1) / rows_per_item;
  const dim_t items = row_blocks * (d.heads / heads_per_item);
  const bool avx512 = detail::step_attention_avx512(isa, d.head_dim);
#pragma omp parallel for schedule(static) if (parallel)
  for (dim_t item = 0; item < items; ++item) {
    const dim_t r0 = item / (d.heads / heads_per_item) * rows_per_item;
    const dim_t r1 = std::min(d.rows, r0 + rows_per_item);
    const dim_t h0 = item % (d.heads / heads_per_item) * heads_per_item;
    const dim_t h1 = h0 + heads_per_item;
    if (avx512) {
      detail::step_scores_avx512(d, q, k, counts, r0, r1, h0, h1, scale, s);
      softmax_rows(isa, d, counts, r0, r1, h0, h1, s);
      detail::step_values_avx512(d, v, counts, r0, r1, h0, h1, s, o);
    } else {
      attend_rows(isa, d, q, k, v, counts, r0, r1, h0, h1, scale, s, o);
    }
  }
}

}  // namespace

void step_attention(const Tensor& queries, const Tensor& keys, const Tensor& values,
                    const StepAttentionRows& rows, float scale, Tensor& scores, Tensor& out) {
  step_attention(backend::cpu_isa(), queries, keys, values, rows, scale, scores, out);
}

void step_attention(backend::CpuIsa isa, const Tensor& queries, const Tensor& keys,
                    const Tensor& values, const StepAttentionRows& rows, float scale,
                    Tensor& scores, Tensor& out) {
  S2S_CHECK(isa <= backend::detected_cpu_isa(), "step_attention for ", backend::isa_name(isa),
            " on a CPU with at most ", backend::isa_name(backend::detected_cpu_isa()));
  const detail::StepAttentionDims d =
      detail::prepare_step_attention(queries, keys, values, rows, scores, out);
  if (keys.dtype() == DataType::bf16)
    attend_all<bfloat16_bits>(isa, d, queries, keys, values, rows, scale, scores, out);
  else
    attend_all<float>(isa, d, queries, keys, values, rows, scale, scores, out);
  const std::int32_t* counts = rows.visible ? rows.visible->data<std::int32_t>() : nullptr;
  // The products' work, as ops::matmul counts it (q·Kᵀ and p·V: 2·Dh per visible key each).
  dim_t keys_read = 0;
  for (dim_t r = 0; r < d.rows; ++r)
    keys_read += detail::visible_keys(counts, r, d.keys);
  flop_counter::add(4 * keys_read * d.heads * d.head_dim);
}

}  // namespace s2s::ops
