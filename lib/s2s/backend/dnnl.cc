#include "s2s/backend/dnnl.h"

#include "s2s/backend/cpu_isa.h"

namespace s2s::backend {

dnnl::engine& engine() {
  // The ISA first: S2S_CPU_ISA's ceiling must reach oneDNN before it makes any kernel.
  static dnnl::engine e = (cpu_isa(), dnnl::engine(dnnl::engine::kind::cpu, 0));
  return e;
}

dnnl::stream& stream() {
  // One per thread, and rightly thread_local: a oneDNN stream is the execution queue of the
  // thread that submits to it (translators on several threads, --workers, must not share one),
  // not scratch; it holds no data between calls (every op waits for its primitive).
  thread_local dnnl::stream s(engine());
  return s;
}

dnnl::memory::data_type dnnl_type(DataType dtype) {
  using dt = dnnl::memory::data_type;
  switch (dtype) {
    case DataType::f32: return dt::f32;
    case DataType::f16: return dt::f16;
    case DataType::bf16: return dt::bf16;
    case DataType::i8: return dt::s8;
    case DataType::u8: return dt::u8;
    case DataType::i32: return dt::s32;
    default: break;
  }
  throw InternalError(std::string("no oneDNN type for ") + dtype_name(dtype));
}

dnnl::memory::desc desc_of(const Tensor& t) {
  dnnl::memory::dims dims(t.shape().begin(), t.shape().end());
  dnnl::memory::dims strides(t.strides().begin(), t.strides().end());
  return dnnl::memory::desc(dims, dnnl_type(t.dtype()), strides);
}

dnnl::memory::desc desc_as(const Tensor& t, const Shape& shape) {
  S2S_CHECK(t.is_contiguous() && num_elements(shape) == t.numel(), "view ", to_string(t.shape()),
            " as ", to_string(shape));
  dnnl::memory::dims dims(shape.begin(), shape.end());
  Shape st = contiguous_strides(shape);
  dnnl::memory::dims strides(st.begin(), st.end());
  return dnnl::memory::desc(dims, dnnl_type(t.dtype()), strides);
}

dnnl::memory memory_of(const Tensor& t) { return memory_of(t, desc_of(t)); }

dnnl::memory memory_of(const Tensor& t, const dnnl::memory::desc& desc) {
  return dnnl::memory(desc, engine(), const_cast<void*>(t.raw()));
}

}  // namespace s2s::backend
