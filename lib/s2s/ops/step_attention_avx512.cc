// step_attention's score and value passes on AVX-512 CPUs (step_attention_kernels.h).
//
// The portable kernel (step_attention.cc) visits keys outermost and, for each key, every row and
// head: a row's query is reloaded for every key and its output row is read and written back for
// every key, and each dot product ends in its own horizontal sum. On a small model that kept the
// step attention slow even when the caches sat in L2, a large share of a beam search
// (docs/performance.md, "Step attention"). Here a row's queries for a group of heads stay in
// registers while its keys stream by, and its outputs stay in registers while its values do
// (32 vector registers hold up to 256 floats of queries or outputs, plus the sums). A row's keys
// sit in scattered cache slots (the beam's history picks them), so they are prefetched a few keys
// ahead, the next row's first keys while the current row's last ones are read.
//
// Roundings are the portable kernel's as GCC compiles it for AVX-512: the scores by multiplies
// and adds, not fused (this file is compiled with -ffp-contract=off), each dot summed over 16 lanes
// in its order, so that the softmax sees the same scores whichever kernel ran; the outputs as
// `update` says.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <algorithm>
#include <type_traits>

#include "s2s/ops/step_attention_kernels.h"

#define S2S_AVX512 __attribute__((target("avx512f")))
#define S2S_AVX512_INLINE inline __attribute__((always_inline, target("avx512f")))

namespace s2s::ops::detail {

namespace {

// Keys (values) this many ahead are prefetched: each is a separate block of cache memory.
constexpr std::int64_t kAhead = 4;

S2S_AVX512_INLINE __m512 load16(const float* x) { return _mm512_loadu_ps(x); }

S2S_AVX512_INLINE __m512 load16(const bfloat16_bits* x) {  // widened exactly, as stored << 16
  const __m256i half = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x));
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(half), 16));
}

// The 16 lanes of a dot product summed as step_attention.cc's sum_lanes(even + odd) sums them:
// lanes 0-7 plus lanes 8-15, then the two halves of that, then (a0 + a2) + (a1 + a3).
S2S_AVX512_INLINE float sum16(__m512 lanes) {
  const __m256 high = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(lanes), 1));
  const __m256 v = _mm256_add_ps(_mm512_castps512_ps256(lanes), high);
  const __m128 a = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 b = _mm_add_ps(a, _mm_movehl_ps(a, a));  // a0 + a2, a1 + a3
  return _mm_cvtss_f32(_mm_add_ss(b, _mm_shuffle_ps(b, b, 1)));
}

// sum + p·v, rounded as GCC 12 compiles the portable kernel's `o += p * v` for AVX-512: fused
// over float32 caches (vectorised over 16 lanes, with 512-bit FMA), not over bfloat16 ones (the
// widening keeps it in 8-lane vectors, where avx512f alone has no FMA). So translations do not
// change with the kernel: with int8, a last-bit change in an attention output moves activations
// across quantization steps (16 of 448 table-B sentences changed when both were fused).
S2S_AVX512_INLINE __m512 update(__m512 sum, __m512 p, __m512 v, float) {
  return _mm512_fmadd_ps(p, v, sum);
}
S2S_AVX512_INLINE __m512 update(__m512 sum, __m512 p, __m512 v, bfloat16_bits) {
  return _mm512_add_ps(sum, _mm512_mul_ps(p, v));
}

// The cache lines of heads [h0, h0 + G) of row r's key (value) j, each head `head_dim` long.
template <typename T, int G>
S2S_AVX512_INLINE void prefetch(const StepCaches<T>& c, std::int64_t r, std::int64_t j,
                                std::int64_t h0, std::int64_t head_dim) {
  const T* base = c.at(r, j) + h0 * c.head_stride;
  constexpr std::int64_t line = 64 / static_cast<std::int64_t>(sizeof(T));
  for (int g = 0; g < G; ++g)
    for (std::int64_t i = 0; i < head_dim; i += line)
      _mm_prefetch(reinterpret_cast<const char*>(base + g * c.head_stride + i), _MM_HINT_T0);
}

// What a row's pass needs to prefetch the next row's first keys (n = 0: no next row).
struct NextRow {
  std::int64_t r, n;
};

// The first keys (values) of the next row, while the current row's last ones are read.
template <typename T, int G>
S2S_AVX512_INLINE void prefetch_start(const StepCaches<T>& c, NextRow next, std::int64_t h0,
                                      std::int64_t head_dim) {
  for (std::int64_t j = 0; j < std::min(kAhead, next.n); ++j)
    prefetch<T, G>(c, next.r, j, h0, head_dim);
}

// Scores of row r, heads [h0, h0 + G), head dimension 16·C, over its first n keys.
template <typename T, int C, int G>
S2S_AVX512 void score_group(const float* q, const StepCaches<T>& k, std::int64_t r,
                            std::int64_t n, std::int64_t h0, NextRow next, float scale,
                            float* s, std::int64_t keys) {
  constexpr std::int64_t head_dim = 16 * C;
  __m512 query[G][C];
  for (int g = 0; g < G; ++g)
    for (int c = 0; c < C; ++c) query[g][c] = _mm512_loadu_ps(q + g * head_dim + 16 * c);
  prefetch_start<T, G>(k, next, h0, head_dim);
  for (std::int64_t j = 0; j < n; ++j) {
    if (j + kAhead < n) prefetch<T, G>(k, r, j + kAhead, h0, head_dim);
    const T* key = k.at(r, j) + h0 * k.head_stride;
    for (int g = 0; g < G; ++g) {
      __m512 sum = _mm512_setzero_ps();
      for (int c = 0; c < C; ++c)
        sum = _mm512_add_ps(sum, _mm512_mul_ps(query[g][c], load16(key + g * k.head_stride + 16 * c)));
      s[g * keys + j] = sum16(sum) * scale;
    }
  }
}

// Output of row r, heads [h0, h0 + G): Σ_j p_j·v_j over its first n values, p from s.
template <typename T, int C, int G>
S2S_AVX512 void value_group(const StepCaches<T>& v, std::int64_t r, std::int64_t n,
                            std::int64_t h0, NextRow next, const float* s, std::int64_t keys,
                            float* o) {
  constexpr std::int64_t head_dim = 16 * C;
  __m512 sum[G][C];
  for (int g = 0; g < G; ++g)
    for (int c = 0; c < C; ++c) sum[g][c] = _mm512_setzero_ps();
  prefetch_start<T, G>(v, next, h0, head_dim);
  for (std::int64_t j = 0; j < n; ++j) {
    if (j + kAhead < n) prefetch<T, G>(v, r, j + kAhead, h0, head_dim);
    const T* value = v.at(r, j) + h0 * v.head_stride;
    for (int g = 0; g < G; ++g) {
      const __m512 p = _mm512_set1_ps(s[g * keys + j]);
      for (int c = 0; c < C; ++c)
        sum[g][c] = update(sum[g][c], p, load16(value + g * v.head_stride + 16 * c), T{});
    }
  }
  for (int g = 0; g < G; ++g)
    for (int c = 0; c < C; ++c) _mm512_storeu_ps(o + g * head_dim + 16 * c, sum[g][c]);
}

// Calls f(C, G, h) for heads [h0, h1) in groups of G heads (G·C <= 16 vectors: a power of two,
// as large as the heads left allow), C = head_dim / 16 as compile-time constants.
template <int C, typename F>
void for_groups(dim_t h0, dim_t h1, F&& f) {
  using std::integral_constant;
  for (dim_t h = h0; h < h1;) {
    const dim_t left = h1 - h;
    if (16 / C >= 8 && left >= 8) {
      f(integral_constant<int, C>{}, integral_constant<int, 8>{}, h);
      h += 8;
    } else if (16 / C >= 4 && left >= 4) {
      f(integral_constant<int, C>{}, integral_constant<int, 4>{}, h);
      h += 4;
    } else if (left >= 2) {
      f(integral_constant<int, C>{}, integral_constant<int, 2>{}, h);
      h += 2;
    } else {
      f(integral_constant<int, C>{}, integral_constant<int, 1>{}, h);
      h += 1;
    }
  }
}

template <typename F>
void for_head_groups(dim_t head_dim, dim_t h0, dim_t h1, F&& f) {
  switch (head_dim) {
    case 32: return for_groups<2>(h0, h1, f);
    case 64: return for_groups<4>(h0, h1, f);
    default: return for_groups<8>(h0, h1, f);  // 128 (step_attention_avx512 admits no other)
  }
}

NextRow next_row(const std::int32_t* counts, std::int64_t r, std::int64_t r1, std::int64_t keys) {
  return r + 1 < r1 ? NextRow{r + 1, visible_keys(counts, r + 1, keys)} : NextRow{r, 0};
}

}  // namespace

bool step_attention_avx512(backend::CpuIsa isa, dim_t head_dim) {
  return isa == backend::CpuIsa::avx512 && (head_dim == 32 || head_dim == 64 || head_dim == 128);
}

template <typename T>
void step_scores_avx512(const StepAttentionDims& d, const float* q, const StepCaches<T>& keys,
                        const std::int32_t* counts, dim_t r0, dim_t r1, dim_t h0, dim_t h1,
                        float scale, float* scores) {
  for (dim_t r = r0; r < r1; ++r) {
    const std::int64_t n = visible_keys(counts, r, d.keys);
    const NextRow next = next_row(counts, r, r1, d.keys);
    for_head_groups(d.head_dim, h0, h1, [&](auto C, auto G, dim_t h) {
      score_group<T, decltype(C)::value, decltype(G)::value>(
          q + r * d.query_stride + h * d.head_dim, keys, r, n, h, next, scale,
          scores + (r * d.heads + h) * d.keys, d.keys);
    });
  }
}

template <typename T>
void step_values_avx512(const StepAttentionDims& d, const StepCaches<T>& values,
                        const std::int32_t* counts, dim_t r0, dim_t r1, dim_t h0, dim_t h1,
                        const float* scores, float* out) {
  for (dim_t r = r0; r < r1; ++r) {
    const std::int64_t n = visible_keys(counts, r, d.keys);
    const NextRow next = next_row(counts, r, r1, d.keys);
    for_head_groups(d.head_dim, h0, h1, [&](auto C, auto G, dim_t h) {
      value_group<T, decltype(C)::value, decltype(G)::value>(
          values, r, n, h, next, scores + (r * d.heads + h) * d.keys, d.keys,
          out + (r * d.heads + h) * d.head_dim);
    });
  }
}

template void step_scores_avx512<float>(const StepAttentionDims&, const float*,
                                        const StepCaches<float>&, const std::int32_t*, dim_t,
                                        dim_t, dim_t, dim_t, float, float*);
template void step_scores_avx512<bfloat16_bits>(const StepAttentionDims&, const float*,
                                                const StepCaches<bfloat16_bits>&,
                                                const std::int32_t*, dim_t, dim_t, dim_t, dim_t,
                                                float, float*);
template void step_values_avx512<float>(const StepAttentionDims&, const StepCaches<float>&,
                                        const std::int32_t*, dim_t, dim_t, dim_t, dim_t,
                                        const float*, float*);
template void step_values_avx512<bfloat16_bits>(const StepAttentionDims&,
                                                const StepCaches<bfloat16_bits>&,
                                                const std::int32_t*, dim_t, dim_t, dim_t, dim_t,
                                                const float*, float*);

}  // namespace s2s::ops::detail
