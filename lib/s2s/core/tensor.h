// Tensor: a shape, strides and an element type over a 64-byte-aligned buffer.
//
// A Tensor either owns its buffer or is a view into another tensor's buffer (or into memory the
// caller keeps alive, e.g. a mapped file). Owned tensors are always contiguous; views may be
// strided (for instance the first `len` positions of a key/value cache). Tensors are move-only:
// copying data is always explicit (`clone`, `copy_from`).
//
// resize() keeps the buffer when the new size fits its capacity, so scratch tensors reused across
// decoding steps never allocate once they have reached their largest size.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "s2s/core/dtype.h"
#include "s2s/core/error.h"
#include "s2s/core/shape.h"

namespace s2s {

class Tensor {
 public:
  Tensor() = default;
  // An owned, uninitialised tensor.
  explicit Tensor(Shape shape, DataType dtype = DataType::f32);
  Tensor(Tensor&&) noexcept = default;
  Tensor& operator=(Tensor&&) noexcept = default;
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;

  static Tensor zeros(Shape shape, DataType dtype = DataType::f32);
  // A non-owning view of caller memory; the caller keeps it alive.
  static Tensor wrap(void* data, Shape shape, DataType dtype);

  const Shape& shape() const { return shape_; }
  const Shape& strides() const { return strides_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  // dim(-1) is the last axis.
  dim_t dim(int axis) const;
  dim_t numel() const { return num_elements(shape_); }
  DataType dtype() const { return dtype_; }
  std::size_t nbytes() const { return static_cast<std::size_t>(numel()) * dtype_size(dtype_); }
  bool empty() const { return numel() == 0; }
  bool is_contiguous() const;
  bool owns_buffer() const { return static_cast<bool>(buffer_); }
  std::size_t capacity() const { return capacity_; }  // bytes of the owned buffer

  template <typename T>
  T* data() {
    check_dtype(dtype_of<T>());
    return static_cast<T*>(data_);
  }
  template <typename T>
  const T* data() const {
    check_dtype(dtype_of<T>());
    return static_cast<const T*>(data_);
  }
  void* raw() { return data_; }
  const void* raw() const { return data_; }

  // Reshapes an owned tensor, reusing its buffer when the new size fits the capacity.
  // Contents are unspecified afterwards. Views cannot be resized.
  void resize(const Shape& shape);
  // Same, and the dtype may change.
  void resize(const Shape& shape, DataType dtype);

  // Makes an owned (or default-constructed) tensor's buffer hold at least `bytes`, so that
  // later resizes up to that size reuse it. Contents are unspecified afterwards.
  void reserve(std::size_t bytes);

  // Gives a contiguous tensor (owned or view) another shape with the same element count,
  // keeping its data.
  void reshape(const Shape& shape);

  // Views (the tensor must outlive them).
  Tensor view() const;
  Tensor reshaped(const Shape& shape) const;                   // contiguous only; one dim may be -1
  Tensor slice(int axis, dim_t begin, dim_t end) const;        // strided view along one axis
  // Strided view with the axes reordered: axis i of the view is axis order[i] of this tensor.
  Tensor permuted(const std::vector<int>& order) const;

  // How many buffers tensors have allocated in this process (tests check that decoding steps
  // allocate none once a batch has started).
  static std::size_t allocation_count();

  Tensor clone() const;                  // owned contiguous copy
  void copy_from(const Tensor& source);  // same shape and dtype; either may be strided
  void fill(float value);                // f32 only
  void fill_zero();

 private:
  void check_dtype(DataType expected) const;

  std::shared_ptr<void> buffer_;  // null for views
  std::size_t capacity_ = 0;      // bytes of buffer_
  void* data_ = nullptr;
  Shape shape_;
  Shape strides_;
  DataType dtype_ = DataType::f32;
};

}  // namespace s2s
