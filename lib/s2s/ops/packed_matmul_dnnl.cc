// PackedMatmul on oneDNN matmul primitives (see packed_matmul.h).
//
// The weight is converted (bf16) or quantized (int8) and reordered once, here, into the layout
// oneDNN prefers; each call only wraps y, and x too in float32 (bf16 and int8 first convert x into
// a per-thread buffer). Two ways to run the product, chosen at load:
// - Fixed rows (where oneDNN has brgemm: AVX-512). oneDNN 2.6 only uses its brgemm kernels for a
//   matmul whose row count is fixed at creation; with a runtime row count it falls back to
//   `gemm:jit`, which is slower in int8 (most below 8 rows) and, for large weights, in float32,
//   where it repacks the weight at every call (docs/performance.md, "Products with fixed row
//   counts"). So
//   there is one primitive per row bucket (row_bucket), all over the same blocked weights; x is
//   padded to the bucket through a per-thread buffer, y written through one when padded, and
//   more than kMaxFixedRows rows are run in pieces. Up to 8 float32 rows are not run by brgemm
//   (slower than gemm at one row) but by panel_gemv (detail.h), a stream over the blocked
//   weights: the base model's output layer at 1-8 rows costs what one row does.
// - A runtime row count (CPUs without brgemm): one primitive for every row count.
// Primitives depend only on the weight's shape and types, not its values, so PackedMatmuls of the
// same shape share them (registry below): every brgemm primitive keeps its own JIT code (~60 KB).
//
// int8: W[k, n] ≈ w_scale[n] · Wq[k, n] and x[m, k] ≈ x_scale[m] · xq[m, k], so
//   y[m, n] = (Σ_k xq[m, k] · Wq[k, n]) · w_scale[n] · x_scale[m] + bias[n].
// The primitive computes the integer sum (as float32); the scales and the bias are applied here
// afterwards, in that order (oneDNN's output scales would have to be fixed at creation, which
// would tie a primitive to one weight; given at run time, oneDNN 2.6 runs its reference code).
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "s2s/backend/cpu_isa.h"
#include "s2s/core/allocator.h"
#include "s2s/core/threads.h"
#include "s2s/ops/convert.h"
#include "s2s/ops/detail.h"
#include "s2s/ops/flop_counter.h"
#include "s2s/ops/packed_matmul.h"
#include "s2s/ops/primitive_cache.h"
#include "s2s/ops/quantize.h"
#include "s2s/ops/vector_exp.h"

namespace s2s::ops {

using dnnl::memory;
using tag = memory::format_tag;

namespace {

// Fixed-row primitives are made for row buckets of at most this many rows; larger calls run in
// pieces of this size (at 128 rows brgemm was still 1.1-1.2x gemm:jit, so nothing is lost).
constexpr dim_t kMaxFixedRows = 128;

// The bucket a call of `rows` (1..kMaxFixedRows) rows runs in: exact up to 16, then rounded up
// to a multiple of 2, 4, 8 (at most 1/8 of the rows padded): 40 buckets, so that beam search,
// whose row count changes nearly every step, makes at most 40 primitives per weight shape.
dim_t row_bucket(dim_t rows) {
  dim_t step = 1;
  if (rows > 16) step = 2;
  if (rows > 32) step = 4;
  if (rows > 64) step = 8;
  return (rows + step - 1) / step * step;
}

// Every PackedMatmul primitive, keyed on what it computes: the weight's shape, layout and types
// (`shape`, interned at load), the row bucket (0: runtime row count) and the OpenMP thread
// count (oneDNN fixes a matmul's thread count at creation: --workers and share_cores() run with
// fewer threads than the load did). Bounded: when full it is emptied; calls in flight keep their
// primitive through the shared_ptr. Apart from the other ops' cache (primitive_cache.h) on
// purpose: that one sees thousands of short-lived shapes (attention, layer norms at every row
// count) and is emptied every 512 of them, and a brgemm primitive is slow to JIT-compile again.
class Registry {
 public:
  using Entry = std::shared_ptr<const detail::Primitive>;

  int intern(const std::string& shape_key) {
    const std::lock_guard<std::mutex> lock(mutex_);
    return shapes_.emplace(shape_key, static_cast<int>(shapes_.size())).first->second;
  }

  Entry find(int shape, dim_t rows, int threads) {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto it = entries_.find(key(shape, rows, threads));
    return it == entries_.end() ? nullptr : it->second;
  }

  Entry add(int shape, dim_t rows, int threads, Entry made) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (entries_.size() >= kMaxEntries) entries_.clear();
    return entries_.emplace(key(shape, rows, threads), std::move(made)).first->second;
  }

 private:
  // A base model has 6 weight shapes: all 40 buckets at 2 thread counts are 480 entries.
  static constexpr std::size_t kMaxEntries = 2048;
  static std::uint64_t key(int shape, dim_t rows, int threads) {
    return (std::uint64_t(shape) << 32) | (std::uint64_t(rows) << 16) | std::uint64_t(threads);
  }
  std::mutex mutex_;
  std::unordered_map<std::string, int> shapes_;
  std::unordered_map<std::uint64_t, Entry> entries_;
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

namespace {

// Per thread, growing: x padded to the bucket (float32), converted (bf16) or quantized (int8);
// int8's row scales; a padded piece's product before its rows are copied (or scaled) into a y
// without room. Kept thread_local on purpose (as CTranslate2 keeps its per-thread allocator
// caches): staging that lives within one call, whose contents never outlast it or change a
// result, needed by every linear layer wherever it is called from; a workspace passed down would
// add a parameter to every Linear call for no state the caller could see.
struct Staging {
  std::vector<float> x_f32;
  std::vector<std::uint16_t> x_bf16;
  std::vector<std::uint8_t> x_q;
  std::vector<float> x_scales;
  std::vector<float> padded_y;

  static Staging& of_this_thread() {
    thread_local Staging staging;
    return staging;
  }
  template <typename T>
  static T* grow(std::vector<T>& buffer, dim_t size) {
    const auto wanted = static_cast<std::size_t>(size);
    if (buffer.size() < wanted) buffer.resize(wanted);
    return buffer.data();
  }
};

}  // namespace

struct PackedMatmul::Impl {
  Precision precision = Precision::f32;
  memory::data_type x_type = memory::data_type::f32;  // of x as the primitive takes it
  std::int32_t x_offset = 0;  // int8: added to the quantized x (128 makes it u8, see below)
  bool fixed_rows = false;    // one primitive per row bucket (brgemm), else a runtime row count
  bool panel_gemv = false;    // float32 in BA16a64b: up to kPanelRows rows run panel_gemv
  std::shared_ptr<void> weight_buffer;  // holds `weights`: an aligned_buffer, or the given Tensor
  memory weights;                       // [K, N] in the primitives' layout and type
  memory bias;                          // f32 [1, N] for float32 and bf16; null: no bias
  std::vector<float> bias_values;       // int8: the bias, added after the scales
  std::vector<float> column_scales;     // int8: w_scale[n]
  int shape = 0;                        // registry key of the weight's shape and types
  dim_t k = 0, n = 0;                   // x·W: [rows, k] · [k, n]
  // The primitive descriptor for `rows` rows (0: runtime row count) at the calling thread's
  // OpenMP count.
  std::function<dnnl::matmul::primitive_desc(dim_t rows)> make_pd;

  Registry::Entry matmul(dim_t rows) const {
    const int threads = omp_get_max_threads();
    if (Registry::Entry p = registry().find(shape, rows, threads)) return p;
    // Made outside the lock: creating a primitive JIT-compiles its kernels, which takes a while.
    auto made = std::make_shared<const detail::Primitive>(
        detail::make_primitive<dnnl::matmul>(make_pd(rows)));
    return registry().add(shape, rows, threads, std::move(made));
  }

  memory::desc choose_primitives(int levels, bool with_bias, bool runtime_rows);
  void pack_weight(const Tensor& weight, WeightLayout layout, int levels,
                   const memory::desc& packed_md, Tensor* adoptable);
  void keep_bias(const Tensor& given);
  memory stage_input(const float* x, dim_t count, dim_t bucket, Staging& staging) const;
  void run_piece(const float* x, dim_t count, float* y, bool y_has_room, Epilogue epilogue,
                 Staging& staging) const;
};

namespace {

}  // namespace

std::string unsupported_reason(Precision p) {
  switch (p) {
    case Precision::bf16:
      if (!backend::runs_bf16())
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
  static const int levels = backend::runs_int8_dot() ? 127 : 63;
  return levels;
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

S2S_DISPATCHED(float, row_abs_max, (const float* x, dim_t n), (x, n)) {
  return detail::max_of(x, n, 0.0f, true);
}

// q = round(x · inverse) + offset as one byte (s8 for offset 0, u8 for 128), rounding to
// nearest even (as lrintf does) by adding and removing 1.5·2^23, which vectorises. No clamp:
// inverse = 127 / max|x| up to three roundings, so |x · inverse| < 127.5 and rounds to at most
// 127.
S2S_DISPATCHED(void, quantize_row, (const float* x, dim_t n, float inverse, std::int32_t offset,
                                    std::uint8_t* q), (x, n, inverse, offset, q)) {
#pragma omp simd
  for (dim_t i = 0; i < n; ++i) {
    const float v = (x[i] * inverse + 12582912.0f) - 12582912.0f;
    q[i] = static_cast<std::uint8_t>(static_cast<std::int32_t>(v) + offset);
  }
}

// y[c] = (sum[c] · column_scale[c]) · row_scale + bias[c] (bias may be null); sum may be y.
S2S_DISPATCHED(void, scale_row, (const float* sum, dim_t n, const float* column_scale,
                                 float row_scale, const float* bias, float* y), (sum, n, column_scale, row_scale, bias, y)) {
  if (bias) {
#pragma omp simd
    for (dim_t c = 0; c < n; ++c) y[c] = (sum[c] * column_scale[c]) * row_scale + bias[c];
  } else {
#pragma omp simd
    for (dim_t c = 0; c < n; ++c) y[c] = (sum[c] * column_scale[c]) * row_scale;
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

// int8 weights in brgemm's layout carry a compensation per column after the blocked data:
// VNNI multiplies u8 by s8, so oneDNN adds 128 to the s8 x and subtracts 128·Σ_k Wq[k, n].
// oneDNN's reorder that computes it is its generic one, many times slower than its JIT reorder
// of the same bytes without the sums (a visible part of every int8 load). So where the layout is
// exactly that -- the extra holds only this compensation, per column, unscaled -- the blocked
// bytes go through the JIT reorder and the sums are computed here. Returns false (nothing
// written) for any other layout. The tests compare every int8 product with the exact integer
// scheme: a wrong byte here fails them.
bool pack_int8_with_compensation(const memory::desc& packed, memory& stored,
                                 const std::int8_t* q, WeightLayout layout, dim_t k, dim_t n,
                                 void* buffer) {
  const dnnl_memory_extra_desc_t& extra = packed.data.extra;
  if (extra.flags != dnnl_memory_extra_flag_compensation_conv_s8s8 ||
      extra.compensation_mask != (1 << 1))
    return false;
  dnnl_memory_desc_t data_only = packed.data;
  data_only.extra = dnnl_memory_extra_desc_t{};
  const memory::desc data_md(data_only);
  const std::size_t data_bytes = data_md.get_size();
  if (data_bytes + static_cast<std::size_t>(n) * sizeof(std::int32_t) > packed.get_size())
    return false;
  std::memset(static_cast<char*>(buffer) + data_bytes, 0, packed.get_size() - data_bytes);
  memory data(data_md, backend::engine(), buffer);
  dnnl::reorder(stored, data).execute(backend::stream(), stored, data);
  backend::stream().wait();
  auto* compensation = reinterpret_cast<std::int32_t*>(static_cast<char*>(buffer) + data_bytes);
  if (layout == WeightLayout::out_in) {
#pragma omp parallel for schedule(static)
    for (dim_t c = 0; c < n; ++c) {
      std::int32_t sum = 0;
      for (dim_t r = 0; r < k; ++r) sum += q[c * k + r];
      compensation[c] = -128 * sum;
    }
  } else {
    for (dim_t r = 0; r < k; ++r)
#pragma omp simd
      for (dim_t c = 0; c < n; ++c) compensation[c] -= 128 * q[r * n + c];
  }
  return true;
}

// The registry key of a weight layout and the types around it (memory_desc_t is plain data that
// oneDNN zero-fills before setting it, so its bytes identify it, compensation flags included).
std::string shape_key(const memory::desc& weights, memory::data_type x_type,
                      std::int32_t x_offset, bool bias, bool fixed_rows) {
  std::string key(reinterpret_cast<const char*>(&weights.data), sizeof weights.data);
  key += std::to_string(static_cast<int>(x_type)) + "/" + std::to_string(x_offset) + "/" +
         std::to_string(bias) + "/" + std::to_string(fixed_rows);
  return key;
}

}  // namespace

PackedMatmul::PackedMatmul(const Tensor& weight, WeightLayout layout, const Tensor* bias,
                           Packing packing) {
  build(weight, layout, bias, packing, nullptr);
}

PackedMatmul::PackedMatmul(Tensor&& weight, WeightLayout layout, const Tensor* bias,
                           Packing packing) {
  build(weight, layout, bias, packing, weight.owns_buffer() ? &weight : nullptr);
}

// The primitives' types and layouts for x·W (+ bias), x [rows, k] and W [k, n]: fixed row counts
// where oneDNN has brgemm for this product, else a runtime row count. Returns the weight layout
// the primitives read.
memory::desc PackedMatmul::Impl::choose_primitives(int levels, bool with_bias, bool runtime_rows) {
  const auto f32 = memory::data_type::f32;
  const auto type = compute_type(precision);
  const bool int8 = precision == Precision::int8;
  // int8 without VNNI: x goes in as u8 (q + 128) with a zero point of 128, which oneDNN 2.6
  // computes with its u8·s8 integer GEMM; given as s8, the same product took it as long as
  // float32 on an AVX2 CPU (docs/performance.md, "int8 without VNNI"). With VNNI, s8.
  const bool unsigned_x = int8 && levels < 127;
  x_type = unsigned_x ? memory::data_type::u8 : type;
  x_offset = unsigned_x ? 128 : 0;
  const bool primitive_bias = with_bias && !int8;
  dnnl::primitive_attr attr = detail::default_attr();
  if (unsigned_x) attr.set_zero_points(DNNL_ARG_SRC, 0, {128});
  // The matmul for `rows` rows (DNNL_RUNTIME_DIM_VAL: any) over weights described by w_md.
  const auto pd_for = [=, x_type = x_type, k = k, n = n](dim_t rows, const memory::desc& w_md) {
    const memory::desc x_md({rows, k}, x_type, tag::ab);
    const memory::desc y_md({rows, n}, f32, tag::ab);
    const memory::desc bias_md({1, n}, f32, tag::ab);
    const auto desc = primitive_bias ? dnnl::matmul::desc(x_md, w_md, bias_md, y_md)
                                     : dnnl::matmul::desc(x_md, w_md, y_md);
    return dnnl::matmul::primitive_desc(desc, attr, backend::engine());
  };
  const memory::desc any_md({k, n}, type, tag::any);
  // Fixed rows where oneDNN has brgemm for this product (a 32-row primitive asked for tells).
  std::optional<dnnl::matmul::primitive_desc> pd;
  if (!runtime_rows) {
    pd = pd_for(32, any_md);
    fixed_rows = std::string(pd->impl_info_str()).rfind("brg", 0) == 0;
  }
  if (!fixed_rows) pd = pd_for(DNNL_RUNTIME_DIM_VAL, any_md);
  const memory::desc packed_md = pd->weights_desc();
  panel_gemv = fixed_rows && precision == Precision::f32 &&
               backend::cpu_isa() == backend::CpuIsa::avx512 &&
               packed_md == memory::desc({k, n}, f32, tag::BA16a64b);
  make_pd = [=, fixed = fixed_rows](dim_t rows) {
    return pd_for(fixed ? rows : DNNL_RUNTIME_DIM_VAL, packed_md);
  };
  shape = registry().intern(shape_key(packed_md, x_type, x_offset, primitive_bias, fixed_rows));
  return packed_md;
}

// `weights` in packed_md, from the weight as given (int8: quantized to `levels` first); an
// adoptable float32 weight already in that layout is kept as it is.
void PackedMatmul::Impl::pack_weight(const Tensor& weight, WeightLayout layout, int levels,
                                     const memory::desc& packed_md, Tensor* adoptable) {
  const bool int8 = precision == Precision::int8;
  std::vector<std::int8_t> quantized;
  if (int8) {
    quantized.resize(static_cast<std::size_t>(k * n));
    column_scales = quantize_weight(weight.data<float>(), layout, k, n, quantized.data(), levels);
  }
  // The weight as given, seen as [K, N]: row-major for in_out, column-major ([N, K] rows) for
  // out_in; int8 weights were quantized above in the same layout.
  const memory::desc stored_md({k, n}, int8 ? compute_type(precision) : memory::data_type::f32,
                               layout == WeightLayout::in_out ? tag::ab : tag::ba);
  void* stored_data = int8 ? static_cast<void*>(quantized.data()) : const_cast<void*>(weight.raw());
  // An owned tensor is contiguous and 64-byte aligned (tensor.h): oneDNN can read it as it is.
  if (adoptable && !int8 && stored_md == packed_md) {
    weight_buffer = std::make_shared<Tensor>(std::move(*adoptable));
    weights = memory(packed_md, backend::engine(), stored_data);
    return;
  }
  weight_buffer = aligned_buffer(packed_md.get_size());
  weights = memory(packed_md, backend::engine(), weight_buffer.get());
  memory stored(stored_md, backend::engine(), stored_data);
  if (int8 && pack_int8_with_compensation(packed_md, stored, quantized.data(), layout, k, n,
                                          weight_buffer.get()))
    return;
  dnnl::reorder(stored, weights).execute(backend::stream(), stored, weights);
  backend::stream().wait();
}

// float32 and bf16 give the bias to the primitive; int8 adds it after the scales.
void PackedMatmul::Impl::keep_bias(const Tensor& given) {
  if (precision == Precision::int8) {
    bias_values.assign(given.data<float>(), given.data<float>() + n);
    return;
  }
  bias = memory({{1, n}, memory::data_type::f32, tag::ab}, backend::engine());
  std::memcpy(bias.get_data_handle(), given.raw(), given.nbytes());
}

void PackedMatmul::build(const Tensor& weight, WeightLayout layout, const Tensor* bias,
                         Packing packing, Tensor* adoptable) {
  S2S_CHECK(packing.int8_weight_levels == 0 || packing.int8_weight_levels == 63 ||
                packing.int8_weight_levels == 127,
            "int8 weight levels ", packing.int8_weight_levels, ": expected 63, 127 or 0");
  if (const std::string reason = unsupported_reason(packing.precision); !reason.empty())
    throw UsageError(reason);
  share_cores();  // packing runs parallel regions: the load, too, leaves busy cores alone
  const detail::PackedDims dims = detail::check_packed_weight(weight, layout, bias);
  const int levels = packing.int8_weight_levels ? packing.int8_weight_levels : int8_weight_levels();
  auto impl = std::make_shared<Impl>();
  impl->precision = packing.precision;
  impl->k = dims.in;
  impl->n = dims.out;
  const memory::desc packed_md =
      impl->choose_primitives(levels, bias != nullptr, packing.runtime_rows);
  impl->pack_weight(weight, layout, levels, packed_md, adoptable);
  if (bias) impl->keep_bias(*bias);
  impl_ = std::move(impl);
  in_ = dims.in;
  out_ = dims.out;
}

const void* PackedMatmul::weight_data() const {
  return impl_ ? impl_->weights.get_data_handle() : nullptr;
}

// `count` rows of x as the primitive reads them: `bucket` rows of its input type (float32 as
// given where no padding is needed; int8's row scales into staging.x_scales).
memory PackedMatmul::Impl::stage_input(const float* x, dim_t count, dim_t bucket,
                                       Staging& staging) const {
  const memory::desc x_md({bucket, k}, x_type, tag::ab);
  switch (precision) {
    case Precision::f32:
      if (bucket > count) {  // the primitive reads `bucket` rows: x has only `count`
        float* padded = Staging::grow(staging.x_f32, bucket * k);
        std::memcpy(padded, x, static_cast<std::size_t>(count * k) * sizeof(float));
        x = padded;
      }
      return memory(x_md, backend::engine(), const_cast<float*>(x));
    case Precision::bf16: {
      std::uint16_t* staged = Staging::grow(staging.x_bf16, bucket * k);
      const Tensor from = Tensor::wrap(const_cast<float*>(x), {count, k}, DataType::f32);
      Tensor converted = Tensor::wrap(staged, {count, k}, DataType::bf16);
      convert(from, DataType::bf16, converted);
      return memory(x_md, backend::engine(), staged);
    }
    case Precision::int8:
      break;
  }
  std::uint8_t* quantized = Staging::grow(staging.x_q, bucket * k);
  quantize_rows(x, count, k, x_offset, quantized, Staging::grow(staging.x_scales, count));
  return memory(x_md, backend::engine(), quantized);
}

// y = x·W (+ bias) for `count` rows (at most kMaxFixedRows where the rows are fixed). Rows
// beyond `count` (a bucket's padding) hold whatever an earlier call left: finite values whose
// products are never read.
void PackedMatmul::Impl::run_piece(const float* x, dim_t count, float* y, bool y_has_room,
                                   Epilogue epilogue, Staging& staging) const {
  const dim_t bucket = fixed_rows ? row_bucket(count) : count;
  const memory x_mem = stage_input(x, count, bucket, staging);
  float* product = y;
  if (bucket > count && !y_has_room) product = Staging::grow(staging.padded_y, bucket * n);
  std::unordered_map<int, memory> args{
      {DNNL_ARG_SRC, x_mem},
      {DNNL_ARG_WEIGHTS, weights},
      {DNNL_ARG_DST,
       memory({{bucket, n}, memory::data_type::f32, tag::ab}, backend::engine(), product)},
  };
  if (bias) args.emplace(DNNL_ARG_BIAS, bias);
  {
    const ThreadCountScope thread_invariant(count == 1 && n < kSplitSumColumns ? 1 : 0);
    detail::execute(*matmul(fixed_rows ? bucket : 0), std::move(args));
  }
  if (precision == Precision::int8) {
    const float* b = bias_values.empty() ? nullptr : bias_values.data();
    const float* scales = staging.x_scales.data();
    const bool log_softmax = epilogue == Epilogue::log_softmax;
#pragma omp parallel for schedule(static) if (count > 1 && count * n >= detail::kParallelElements)
    for (dim_t m = 0; m < count; ++m) {
      scale_row(product + m * n, n, column_scales.data(), scales[m], b, y + m * n);
      if (log_softmax) detail::log_softmax_row(y + m * n, n, y + m * n);
    }
    return;
  }
  if (product != y) std::memcpy(y, product, static_cast<std::size_t>(count * n) * sizeof(float));
  if (epilogue == Epilogue::log_softmax) detail::log_softmax_rows(y, count, n, y);
}

void PackedMatmul::operator()(const Tensor& x, Tensor& y, Epilogue epilogue) const {
  if (!detail::prepare_packed_matmul(x, y, in_, out_)) return;
  const dim_t rows = x.numel() / in_;
  const Impl& impl = *impl_;
  // A fixed-row primitive writes its whole bucket. An owned y gets room for the last piece's
  // padding rows (capacity, not shape), so that the product goes straight into y: copying it
  // there from a padded buffer was a pass over every float32 logit of most beam-search steps.
  // (Not when x lies in y's buffer: growing y would free it.)
  const auto x_at = reinterpret_cast<std::uintptr_t>(x.raw());
  const auto y_at = reinterpret_cast<std::uintptr_t>(y.raw());
  const bool x_in_y = x_at >= y_at && x_at - y_at < y.capacity();
  const bool y_has_room = impl.fixed_rows && y.owns_buffer() && !x_in_y;
  if (y_has_room) {
    const dim_t last = (rows - 1) % kMaxFixedRows + 1;
    y.reserve(static_cast<std::size_t>((rows - last + row_bucket(last)) * out_) * sizeof(float));
  }
  Staging& staging = Staging::of_this_thread();
  const dim_t piece = impl.fixed_rows ? kMaxFixedRows : rows;
  for (dim_t first = 0; first < rows; first += piece) {
    const dim_t count = std::min(piece, rows - first);
    const float* x_piece = x.data<float>() + first * in_;
    float* y_piece = y.data<float>() + first * out_;
    if (count <= detail::kPanelRows && impl.panel_gemv) {
      const float* bias = impl.bias ? static_cast<const float*>(impl.bias.get_data_handle()) : nullptr;
      detail::panel_gemv(x_piece, count, static_cast<const float*>(impl.weights.get_data_handle()),
                         in_, out_, bias, y_piece);
      if (epilogue == Epilogue::log_softmax)
        detail::log_softmax_rows(y_piece, count, out_, y_piece);
      continue;
    }
    impl.run_piece(x_piece, count, y_piece, y_has_room, epilogue, staging);
  }
  flop_counter::add(2 * rows * in_ * out_);
}

}  // namespace s2s::ops
