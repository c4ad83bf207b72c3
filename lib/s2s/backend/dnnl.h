// The oneDNN backend: one engine and one stream for the process, and conversions from Tensor to
// oneDNN memory. Only this file and ops/*_dnnl.cc include <dnnl.hpp>.
#pragma once

#include <dnnl.hpp>

#include "s2s/core/tensor.h"

namespace s2s::backend {

dnnl::engine& engine();
dnnl::stream& stream();

dnnl::memory::data_type dnnl_type(DataType dtype);

// A descriptor with the tensor's own shape and strides (views included).
dnnl::memory::desc desc_of(const Tensor& t);
// The same, with the tensor seen under another shape of equal element count (contiguous only).
dnnl::memory::desc desc_as(const Tensor& t, const Shape& shape);

// Memory objects over the tensor's data (no copy).
dnnl::memory memory_of(const Tensor& t);
dnnl::memory memory_of(const Tensor& t, const dnnl::memory::desc& desc);

}  // namespace s2s::backend
