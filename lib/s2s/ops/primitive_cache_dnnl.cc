// The primitive cache and executor shared by the ops/*_dnnl.cc files (see primitive_cache.h).
#include "s2s/ops/primitive_cache.h"

#include <omp.h>

#include <cstdint>
#include <cstring>
#include <mutex>

#include "s2s/core/threads.h"

namespace s2s::ops::detail {

namespace {

// Attention shapes grow with the step and vary with the batch, so a long run sees thousands of
// shapes; every cached primitive keeps its JIT code (~16 KB). 512 entries bound the cache to a few
// MB (4096 let peak memory more than double over a long run of short lines) for a little more time
// on such a run; when full, the cache is simply emptied (oneDNN's own primitive cache still helps).
constexpr std::size_t kMaxEntries = 512;

struct Cache {
  std::mutex mutex;
  std::unordered_map<std::string, Primitive> entries;
};

Cache& cache() {
  static Cache c;
  return c;
}

}  // namespace

dnnl::primitive_attr default_attr() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

std::string key_of(const dnnl::memory::desc& desc) {
  const dnnl_memory_desc_t& d = desc.data;
  std::string key = std::to_string(static_cast<int>(d.data_type)) + "[";
  for (int i = 0; i < d.ndims; ++i) key += std::to_string(d.dims[i]) + ",";
  key += "]/[";
  for (int i = 0; i < d.ndims; ++i) key += std::to_string(d.format_desc.blocking.strides[i]) + ",";
  return key + "]";
}

std::string key_of(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return std::to_string(bits);
}

Primitive cached_primitive(const std::string& op_key, const std::function<Primitive()>& make) {
  // oneDNN fixes some primitives' thread count at creation: one per OpenMP count in force.
  const std::string key = op_key + "@" + std::to_string(omp_get_max_threads());
  Cache& c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    auto it = c.entries.find(key);
    if (it != c.entries.end()) return it->second;
  }
  // Built outside the lock: creating a primitive can take a while and other keys need not wait.
  Primitive p = make();
  std::lock_guard<std::mutex> lock(c.mutex);
  if (c.entries.size() >= kMaxEntries) c.entries.clear();
  return c.entries.emplace(key, std::move(p)).first->second;
}

void execute(const Primitive& p, std::unordered_map<int, dnnl::memory> args, dim_t elements) {
  const std::size_t bytes = p.scratchpad.get_size();
  if (bytes > 0) {
    // One growing buffer per thread: concurrent calls never share a scratchpad. Rightly
    // thread_local: oneDNN's scratchpad lives within this one execute() (nothing in it outlasts
    // the call or changes a result), and every oneDNN op of every layer needs one.
    thread_local Tensor buffer;
    if (buffer.nbytes() < bytes) buffer.resize({static_cast<dim_t>(bytes)}, DataType::u8);
    args.emplace(DNNL_ARG_SCRATCHPAD, dnnl::memory(p.scratchpad, backend::engine(), buffer.raw()));
  }
  const ThreadCountScope serial(
      elements < kParallelElements ? 1 : 0);  // too small for a parallel region
  p.primitive.execute(backend::stream(), args);
  backend::stream().wait();
}

}  // namespace s2s::ops::detail
