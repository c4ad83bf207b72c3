// PackedMatmul on a oneDNN matmul primitive with a runtime row count (see packed_matmul.h).
//
// The primitive is created once, with src [M, K] where M = DNNL_RUNTIME_DIM_VAL and weights [K, N]
// in format_tag::any, so oneDNN picks its preferred weight layout; the weight is converted
// (bf16), or quantized (int8), and reordered into that layout once, here. Each call only wraps
// y, and x too in float32; in bf16 and int8 x is first converted into a per-thread buffer.
//
// int8: W[k, n] ≈ w_scale[n] · Wq[k, n] and x[m, k] ≈ x_scale[m] · xq[m, k], so
//   y[m, n] = x_scale[m] · w_scale[n] · Σ_k xq[m, k] · Wq[k, n] + bias[n].
// oneDNN applies w_scale as per-column output scales (fixed at creation); x_scale, which changes
// with every call, and the bias are applied here afterwards (the primitive has no bias then).
#include <omp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <cmath>
#include <cstring>
#include <vector>

#include "s2s/core/allocator.h"
#include "s2s/core/threads.h"
#include "s2s/ops/convert.h"
#include "s2s/ops/detail.h"
#include "s2s/ops/flop_counter.h"
#include "s2s/ops/packed_matmul.h"
#include "s2s/ops/primitive_cache.h"
#include "s2s/ops/quantize.h"

namespace s2s::ops {

using dnnl::memory;
using tag = memory::format_tag;

struct PackedMatmul::Impl {
  Precision precision = Precision::f32;
  memory::data_type x_type = memory::data_type::f32;  // of x as the primitive takes it
  std::int32_t x_offset = 0;  // int8: added to the quantized x (128 makes it u8, see below)
  std::shared_ptr<void> weight_buffer;  // holds `weights` (aligned_buffer: huge pages)
  memory weights;                       // [K, N] in the primitive's layout and type
  memory bias;     // [1, N] f32 copy; null when there is no bias
  std::vector<float> bias_values;  // int8: the bias, added after the row scales

  // oneDNN fixes a matmul's thread count when the primitive is created (it runs
  // parallel(nthr) whatever OpenMP's setting is then), so there is one primitive per OpenMP
  // thread count it is called with: --workers threads and share_cores() (core/threads.h) run
  // with fewer threads than the load did. All of them use the weights packed at load.
  std::function<dnnl::matmul::primitive_desc()> make_pd;  // for the calling thread's count
  mutable std::mutex mutex;  // guards by_threads
  mutable std::map<int, detail::Primitive> by_threads;
  // The hot path, without the lock: once made, a count's primitive is found here (map nodes
  // never move).
  static constexpr int kFastCounts = 256;
  mutable std::array<std::atomic<const detail::Primitive*>, kFastCounts> fast{};

  const detail::Primitive& matmul() const {
    const int threads = omp_get_max_threads();
    const bool fast_count = threads >= 0 && threads < kFastCounts;
    if (fast_count) {
      if (const detail::Primitive* p = fast[threads].load(std::memory_order_acquire)) return *p;
    }
    const std::lock_guard<std::mutex> lock(mutex);
    auto it = by_threads.find(threads);
    if (it == by_threads.end())
      it = by_threads.emplace(threads, detail::make_primitive<dnnl::matmul>(make_pd())).first;
    if (fast_count) fast[threads].store(&it->second, std::memory_order_release);
    return it->second;
  }
};

namespace {

// Whether oneDNN runs this CPU at `level` or above. Its ISA values are feature masks: an ISA
// includes every bit of the ones below it.
bool cpu_has(dnnl_cpu_isa_t level) {
  const auto isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
  return (isa & level) == unsigned(level);
}

std::atomic<int> g_int8_weight_levels{0};  // set_int8_weight_levels; 0: the CPU's own

}  // namespace

std::string unsupported_reason(Precision p) {
  switch (p) {
    case Precision::bf16:
      if (!cpu_has(dnnl_cpu_isa_avx512_core_bf16))
        return "--precision bfloat16 needs a CPU with AVX512-BF16, which this one lacks; use "
               "float32 or int8";
      break;
    case Precision::int8:
    case Precision::f32:
      break;
  }
  return {};
}

int int8_weight_levels() {
  if (const int pinned = g_int8_weight_levels.load(std::memory_order_relaxed)) return pinned;
  static const int levels =
      cpu_has(dnnl_cpu_isa_avx512_core_vnni) || cpu_has(dnnl_cpu_isa_avx2_vnni) ? 127 : 63;
  return levels;
}

void set_int8_weight_levels(int levels) {
  S2S_CHECK(levels == 0 || levels == 63 || levels == 127, "int8 weight levels ", levels,
            ": expected 63, 127 or 0");
  g_int8_weight_levels.store(levels, std::memory_order_relaxed);
}

namespace {

memory::data_type compute_type(Precision p) {
  switch (p) {
    case Precision::bf16: return memory::data_type::bf16;
    case Precision::int8: return memory::data_type::s8;
    case Precision::f32: break;
  }
  return memory::data_type::f32;
}

S2S_TARGET_CLONES float row_abs_max(const float* x, dim_t n) {
  float max = 0.0f;
#pragma omp simd reduction(max : max)
  for (dim_t i = 0; i < n; ++i) max = std::max(max, std::fabs(x[i]));
  return max;
}

// q = round(x · inverse) + offset as one byte (s8 for offset 0, u8 for 128), rounding to
// nearest even (as lrintf does) by adding and removing 1.5·2^23, which vectorises. No clamp:
// inverse = 127 / max|x| up to three roundings, so |x · inverse| < 127.5 and rounds to at most
// 127.
S2S_TARGET_CLONES void quantize_row(const float* x, dim_t n, float inverse, std::int32_t offset,
                                    std::uint8_t* q) {
#pragma omp simd
  for (dim_t i = 0; i < n; ++i) {
    const float v = (x[i] * inverse + 12582912.0f) - 12582912.0f;
    q[i] = static_cast<std::uint8_t>(static_cast<std::int32_t>(v) + offset);
  }
}

// y[c] = y[c] · scale + bias[c] (bias may be null).
S2S_TARGET_CLONES void scale_row(float* y, dim_t n, float scale, const float* bias) {
  if (bias) {
#pragma omp simd
    for (dim_t c = 0; c < n; ++c) y[c] = y[c] * scale + bias[c];
  } else {
#pragma omp simd
    for (dim_t c = 0; c < n; ++c) y[c] *= scale;
  }
}

// Symmetric per-row quantization: scale[m] = max|x[m, :]| / 127 (1 for an all-zero row).
void quantize_rows(const float* x, dim_t rows, dim_t cols, std::int32_t offset,
                   std::uint8_t* out, float* scales) {
#pragma omp parallel for schedule(static) if (rows > 1 && rows * cols >= detail::kParallelElements)
  for (dim_t m = 0; m < rows; ++m) {
    const float amax = row_abs_max(x + m * cols, cols);
    const float scale = amax > 0.0f ? amax / 127.0f : 1.0f;
    quantize_row(x + m * cols, cols, 1.0f / scale, offset, out + m * cols);
    scales[m] = scale;
  }
}

// oneDNN 2.6 runs a one-row product with few output columns as a GEMV that splits the sum over K
// between threads, so the result's last bits depend on the thread count (--threads 1 and 2 gave
// scores differing in the 7th digit, and a resumed or sharded run could differ from a whole one in
// the last digit). Measured with a bitwise compare of 1 and 2 threads, M 1-128, N 8-32000,
// K 16-4096: every M = 1 product with N <= 1000 and K >= 256 differed on AVX-512 (N <= 512 on
// AVX2), none with 1008 <= N or M >= 2 on AVX-512 (AVX2: none with M >= 3 and N >= 256). Such a
// product is too small to gain from a second thread, so it runs on one; from 1024 columns up
// (a d 256 model's FFN, any output layer) the second thread is kept.
constexpr dim_t kSplitSumColumns = 1024;

}  // namespace

PackedMatmul::PackedMatmul(const Tensor& weight, WeightLayout layout, const Tensor* bias,
                           Precision precision) {
  if (const std::string reason = unsupported_reason(precision); !reason.empty())
    throw UsageError(reason);
  share_cores();  // packing runs parallel regions: the load, too, leaves busy cores alone
  const detail::PackedDims dims = detail::check_packed_weight(weight, layout, bias);
  const dim_t k = dims.in;
  const dim_t n = dims.out;
  const auto f32 = memory::data_type::f32;
  const auto type = compute_type(precision);
  const bool int8 = precision == Precision::int8;
  // int8 without VNNI: x goes in as u8 (q + 128) with a zero point of 128, which oneDNN 2.6
  // computes with its u8·s8 integer GEMM; given as s8, the same product took it as long as
  // float32 on an AVX2 CPU (bench/NOTES.md). With VNNI, s8 as measured there.
  const int levels = int8_weight_levels();  // once: the test override may change between calls
  const bool unsigned_x = int8 && levels < 127;
  const auto x_type = unsigned_x ? memory::data_type::u8 : type;
  const memory::desc x_md({DNNL_RUNTIME_DIM_VAL, k}, x_type, tag::ab);
  const memory::desc w_md({k, n}, type, tag::any);
  const memory::desc bias_md({1, n}, f32, tag::ab);
  const memory::desc y_md({DNNL_RUNTIME_DIM_VAL, n}, f32, tag::ab);
  const bool primitive_bias = bias != nullptr && !int8;
  const auto desc = primitive_bias ? dnnl::matmul::desc(x_md, w_md, bias_md, y_md)
                                   : dnnl::matmul::desc(x_md, w_md, y_md);

  auto impl = std::make_shared<Impl>();
  impl->precision = precision;
  impl->x_type = x_type;
  impl->x_offset = unsigned_x ? 128 : 0;
  dnnl::primitive_attr attr = detail::default_attr();
  if (unsigned_x) attr.set_zero_points(DNNL_ARG_SRC, 0, {128});
  std::vector<std::int8_t> quantized;
  std::vector<float> weight_scales;
  if (int8) {
    quantized.resize(static_cast<std::size_t>(k * n));
    weight_scales =
        quantize_weight(weight.data<float>(), layout, k, n, quantized.data(), levels);
    attr.set_output_scales(1 << 1, weight_scales);  // one scale per column n
  }
  const dnnl::matmul::primitive_desc pd(desc, attr, backend::engine());
  impl->by_threads.emplace(omp_get_max_threads(), detail::make_primitive<dnnl::matmul>(pd));
  impl->weight_buffer = aligned_buffer(pd.weights_desc().get_size());
  impl->weights = memory(pd.weights_desc(), backend::engine(), impl->weight_buffer.get());
  // Later thread counts: the same matmul over the weights in the layout chosen now.
  const memory::desc packed_md = pd.weights_desc();
  impl->make_pd = [=]() {
    const auto fixed = primitive_bias ? dnnl::matmul::desc(x_md, packed_md, bias_md, y_md)
                                      : dnnl::matmul::desc(x_md, packed_md, y_md);
    return dnnl::matmul::primitive_desc(fixed, attr, backend::engine());
  };

  // The weight as given, seen as [K, N]: row-major for in_out, column-major ([N, K] rows) for
  // out_in; int8 weights were quantized above in the same layout.
  const memory::desc stored_md({k, n}, int8 ? type : f32,
                               layout == WeightLayout::in_out ? tag::ab : tag::ba);
  void* stored_data = int8 ? static_cast<void*>(quantized.data()) : const_cast<void*>(weight.raw());
  memory stored(stored_md, backend::engine(), stored_data);
  dnnl::reorder(stored, impl->weights).execute(backend::stream(), stored, impl->weights);
  backend::stream().wait();
  if (bias) {
    if (int8) {
      impl->bias_values.assign(bias->data<float>(), bias->data<float>() + n);
    } else {
      impl->bias = memory(bias_md, backend::engine());
      std::memcpy(impl->bias.get_data_handle(), bias->raw(), bias->nbytes());
    }
  }
  impl_ = std::move(impl);
  in_ = k;
  out_ = n;
}

void PackedMatmul::operator()(const Tensor& x, Tensor& y) const {
  if (!detail::prepare_packed_matmul(x, y, in_, out_)) return;
  const dim_t rows = x.numel() / in_;
  const Impl& impl = *impl_;
  const memory::desc x_md({rows, in_}, impl.x_type, tag::ab);
  const memory::desc y_md({rows, out_}, memory::data_type::f32, tag::ab);
  // The converted x of bf16 and int8, and int8's row scales: one growing buffer per thread.
  thread_local std::vector<std::uint16_t> x_bf16;
  thread_local std::vector<std::uint8_t> x_q;
  thread_local std::vector<float> x_scales;
  const std::size_t count = static_cast<std::size_t>(rows * in_);
  memory x_mem;
  switch (impl.precision) {
    case Precision::f32:
      x_mem = backend::memory_of(x, x_md);
      break;
    case Precision::bf16:
      if (x_bf16.size() < count) x_bf16.resize(count);
      {
        Tensor converted = Tensor::wrap(x_bf16.data(), x.shape(), DataType::bf16);
        convert(x, DataType::bf16, converted);
      }
      x_mem = memory(x_md, backend::engine(), x_bf16.data());
      break;
    case Precision::int8:
      if (x_q.size() < count) x_q.resize(count);
      if (x_scales.size() < static_cast<std::size_t>(rows)) x_scales.resize(static_cast<std::size_t>(rows));
      quantize_rows(x.data<float>(), rows, in_, impl.x_offset, x_q.data(), x_scales.data());
      x_mem = memory(x_md, backend::engine(), x_q.data());
      break;
  }
  std::unordered_map<int, memory> args{
      {DNNL_ARG_SRC, x_mem},
      {DNNL_ARG_WEIGHTS, impl.weights},
      {DNNL_ARG_DST, backend::memory_of(y, y_md)},
  };
  if (impl.bias) args.emplace(DNNL_ARG_BIAS, impl.bias);
  {
    const OneThreadScope thread_invariant(rows == 1 && out_ < kSplitSumColumns);
    detail::execute(impl.matmul(), std::move(args));
  }
  if (impl.precision == Precision::int8) {
    float* out = y.data<float>();
    const float* b = impl.bias_values.empty() ? nullptr : impl.bias_values.data();
    const float* scales = x_scales.data();
    const dim_t n = out_;
#pragma omp parallel for schedule(static) if (rows > 1 && rows * n >= detail::kParallelElements)
    for (dim_t m = 0; m < rows; ++m) scale_row(out + m * n, n, scales[m], b);
  }
  flop_counter::add(2 * rows * in_ * out_);
}

}  // namespace s2s::ops
