#include "s2s/core/tensor.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>

#include "s2s/core/allocator.h"
#include "s2s/core/strings.h"

namespace s2s {

dim_t num_elements(const Shape& shape) {
  dim_t n = 1;
  for (dim_t d : shape) n *= d;
  return n;
}

Shape contiguous_strides(const Shape& shape) {
  Shape strides(shape.size());
  dim_t stride = 1;
  for (int i = static_cast<int>(shape.size()) - 1; i >= 0; --i) {
    strides[i] = stride;
    stride *= shape[i];
  }
  return strides;
}

std::string to_string(const Shape& shape) {
  std::vector<std::string> dims;
  for (const dim_t d : shape) dims.push_back(std::to_string(d));
  return "[" + join(dims, ", ") + "]";
}

namespace {

std::atomic<std::size_t> g_allocations{0};

std::shared_ptr<void> allocate(std::size_t bytes) {
  std::shared_ptr<void> buffer = aligned_buffer(bytes);
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return buffer;
}

void check_shape(const Shape& shape) {
  for (dim_t d : shape) S2S_CHECK(d >= 0, "negative dimension in shape ", to_string(shape));
}

}  // namespace

Tensor::Tensor(Shape shape, DataType dtype) { resize(shape, dtype); }

Tensor Tensor::zeros(Shape shape, DataType dtype) {
  Tensor t(std::move(shape), dtype);
  t.fill_zero();
  return t;
}

Tensor Tensor::wrap(void* data, Shape shape, DataType dtype) {
  check_shape(shape);
  Tensor t;
  t.data_ = data;
  t.strides_ = contiguous_strides(shape);
  t.shape_ = std::move(shape);
  t.dtype_ = dtype;
  return t;
}

dim_t Tensor::dim(int axis) const {
  const int a = axis < 0 ? axis + rank() : axis;
  S2S_CHECK(a >= 0 && a < rank(), "axis ", axis, " out of range for shape ", to_string(shape_));
  return shape_[a];
}

bool Tensor::is_contiguous() const {
  dim_t expected = 1;
  for (int i = rank() - 1; i >= 0; --i) {
    if (shape_[i] != 1 && strides_[i] != expected) return false;
    expected *= shape_[i];
  }
  return true;
}

void Tensor::check_dtype(DataType expected) const {
  S2S_CHECK(dtype_ == expected, "tensor holds ", dtype_name(dtype_), ", accessed as ",
            dtype_name(expected));
}

void Tensor::resize(const Shape& shape) { resize(shape, dtype_); }

void Tensor::resize(const Shape& shape, DataType dtype) {
  check_shape(shape);
  S2S_CHECK(buffer_ || data_ == nullptr, "cannot resize a view to ", to_string(shape));
  const std::size_t bytes = static_cast<std::size_t>(num_elements(shape)) * dtype_size(dtype);
  if (!buffer_ || bytes > capacity_) {
    // A buffer that has to grow again gets half again as much room: scratch tensors follow
    // length-sorted batches, each a little longer, and every new buffer is page-faulted in afresh
    // (2 MB at a time for huge pages), a visible share of decoding a sorted input
    // (docs/performance.md, "Memory: huge pages, kept scratch, reused buffers"). Room never written
    // is never faulted in: it costs address space only.
    const std::size_t room = buffer_ ? std::max(bytes, capacity_ + capacity_ / 2) : bytes;
    buffer_ = allocate(room);
    capacity_ = room;
    data_ = buffer_.get();
  }
  shape_ = shape;
  strides_ = contiguous_strides(shape);
  dtype_ = dtype;
}

void Tensor::reserve(std::size_t bytes) {
  S2S_CHECK(buffer_ || data_ == nullptr, "cannot reserve memory for a view");
  if (buffer_ && bytes <= capacity_) return;
  buffer_ = allocate(bytes);
  capacity_ = bytes;
  data_ = buffer_.get();
  if (nbytes() > capacity_) {  // keep the shape valid for the new buffer
    shape_.assign(1, 0);
    strides_ = contiguous_strides(shape_);
  }
}

std::size_t Tensor::allocation_count() { return g_allocations.load(std::memory_order_relaxed); }

void Tensor::reshape(const Shape& shape) {
  Tensor t = reshaped(shape);
  shape_ = std::move(t.shape_);
  strides_ = std::move(t.strides_);
}

Tensor Tensor::view() const {
  Tensor t;
  t.data_ = data_;
  t.shape_ = shape_;
  t.strides_ = strides_;
  t.dtype_ = dtype_;
  return t;
}

Tensor Tensor::reshaped(const Shape& shape) const {
  S2S_CHECK(is_contiguous(), "reshape of a strided view ", to_string(shape_));
  Shape resolved = shape;
  dim_t known = 1;
  int inferred = -1;
  for (int i = 0; i < static_cast<int>(resolved.size()); ++i) {
    if (resolved[i] == -1) {
      S2S_CHECK(inferred < 0, "two inferred dimensions in ", to_string(shape));
      inferred = i;
    } else {
      known *= resolved[i];
    }
  }
  if (inferred >= 0) resolved[inferred] = known == 0 ? 0 : numel() / known;
  S2S_CHECK(num_elements(resolved) == numel(), "cannot reshape ", to_string(shape_), " to ",
            to_string(shape));
  Tensor t = view();
  t.strides_ = contiguous_strides(resolved);
  t.shape_ = std::move(resolved);
  return t;
}

Tensor Tensor::slice(int axis, dim_t begin, dim_t end) const {
  const int a = axis < 0 ? axis + rank() : axis;
  S2S_CHECK(a >= 0 && a < rank(), "slice axis ", axis, " of ", to_string(shape_));
  S2S_CHECK(0 <= begin && begin <= end && end <= shape_[a], "slice [", begin, ", ", end,
            ") of axis ", a, " of ", to_string(shape_));
  Tensor t = view();
  t.data_ = static_cast<char*>(data_) +
            static_cast<std::size_t>(begin * strides_[a]) * dtype_size(dtype_);
  t.shape_[a] = end - begin;
  return t;
}

Tensor Tensor::permuted(const std::vector<int>& order) const {
  S2S_CHECK(static_cast<int>(order.size()) == rank(), "permutation of ", order.size(),
            " axes for ", to_string(shape_));
  std::vector<bool> used(order.size(), false);
  Tensor t = view();
  for (std::size_t i = 0; i < order.size(); ++i) {
    const int a = order[i];
    S2S_CHECK(a >= 0 && a < rank() && !used[a], "axis ", a, " in a permutation of ",
              to_string(shape_));
    used[a] = true;
    t.shape_[i] = shape_[a];
    t.strides_[i] = strides_[a];
  }
  return t;
}

Tensor Tensor::clone() const {
  Tensor t(shape_, dtype_);
  t.copy_from(*this);
  return t;
}

void Tensor::copy_from(const Tensor& source) {
  S2S_CHECK(source.shape_ == shape_ && source.dtype_ == dtype_, "copy from ",
            to_string(source.shape_), " ", dtype_name(source.dtype_), " into ",
            to_string(shape_), " ", dtype_name(dtype_));
  const std::size_t esize = dtype_size(dtype_);
  if (is_contiguous() && source.is_contiguous()) {
    if (nbytes()) std::memcpy(data_, source.data_, nbytes());
    return;
  }
  // Copy innermost rows one at a time (rows are contiguous when the last stride is 1).
  const dim_t n = numel();
  if (n == 0) return;
  const dim_t inner = shape_.back();
  const bool rows = strides_.back() == 1 && source.strides_.back() == 1;
  const dim_t step = rows ? inner : 1;
  Shape index(shape_.size(), 0);
  for (dim_t done = 0; done < n; done += step) {
    dim_t dst_off = 0, src_off = 0;
    for (int i = 0; i < rank(); ++i) {
      dst_off += index[i] * strides_[i];
      src_off += index[i] * source.strides_[i];
    }
    std::memcpy(static_cast<char*>(data_) + dst_off * esize,
                static_cast<const char*>(source.data_) + src_off * esize, step * esize);
    // Advance the multi-index by `step` elements.
    for (int i = rank() - (rows ? 2 : 1); i >= 0; --i) {
      if (++index[i] < shape_[i]) break;
      index[i] = 0;
    }
  }
}

void Tensor::fill(float value) {
  S2S_CHECK(is_contiguous(), "fill of a strided view");
  float* p = data<float>();
  for (dim_t i = 0, n = numel(); i < n; ++i) p[i] = value;
}

void Tensor::fill_zero() {
  S2S_CHECK(is_contiguous(), "fill of a strided view");
  if (nbytes()) std::memset(data_, 0, nbytes());
}

}  // namespace s2s
