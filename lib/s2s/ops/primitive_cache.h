// Private to the ops/*_dnnl.cc files: a process-wide cache of oneDNN primitives keyed by a string
// of the call's descriptors and options, and one way to execute them.
//
// Why a cache: the decoding loop calls the same ops with the same shapes at every step; building a
// primitive descriptor each time costs more than a small op itself. Why user scratchpads: with the
// default library scratchpad (ONEDNN_ENABLE_CONCURRENT_EXEC=OFF) a primitive must run on the
// thread that created it, but cached primitives (and PackedMatmul) are shared by worker threads.
// So every primitive is created with scratchpad_mode::user and run with a thread-local buffer.
#pragma once

#include <functional>
#include <string>
#include <unordered_map>

#include "s2s/backend/dnnl.h"
#include "s2s/ops/detail.h"

namespace s2s::ops::detail {

struct Primitive {
  dnnl::primitive primitive;
  dnnl::memory::desc scratchpad;  // what execute() must provide (often zero bytes)
};

template <typename P>
Primitive make_primitive(const typename P::primitive_desc& pd) {
  return Primitive{P(pd), pd.scratchpad_desc()};
}

// A primitive_attr with the user scratchpad mode every s2s primitive uses.
dnnl::primitive_attr default_attr();

// "f32[2,3]/[3,1]": dims and strides of a plain (strided) descriptor, for cache keys.
std::string key_of(const dnnl::memory::desc& desc);
// The exact bits of a float option baked into a primitive (alpha, epsilon), for cache keys.
std::string key_of(float value);

// The primitive stored under `key`, built with make() on first use. Thread-safe; two threads
// asking for a new key at once may both build it, and one result is kept.
Primitive cached_primitive(const std::string& key, const std::function<Primitive()>& make);

// Runs the primitive on the backend stream with a thread-local scratchpad, and waits.
// `elements`: the size of the op's output; below kParallelElements it runs on the calling thread
// alone (oneDNN reads the OpenMP thread count at execution): a parallel region costs more than
// such an op does (a one-row layer norm is several times faster on one thread than on two:
// docs/performance.md, "Small ops on one thread").
void execute(const Primitive& p, std::unordered_map<int, dnnl::memory> args,
             dim_t elements = kParallelElements);

}  // namespace s2s::ops::detail
