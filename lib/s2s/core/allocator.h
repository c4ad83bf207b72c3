// How s2s allocates its large buffers, and how the process's C allocator treats them.
#pragma once

#include <cstddef>
#include <memory>

namespace s2s {

// A buffer of at least `bytes` (uninitialised), 64-byte aligned; freed when the last owner goes.
// Buffers of 2 MB and more are aligned to 2 MB and advised as transparent huge pages where the
// kernel offers them on request (THP "madvise" mode, the default of Debian and Ubuntu): filling
// the 240 MB of a Transformer-base model's weights then takes ~120 page faults instead of ~60,000,
// which was a third of the model's load time (bench/NOTES.md), and the weights streamed at every
// decoding step need fewer TLB entries. Where THP is off the advice is ignored.
std::shared_ptr<void> aligned_buffer(std::size_t bytes);

// glibc serves blocks above a threshold with mmap and unmaps them on free, but raises that
// threshold (up to 32 MB) each time such a block is freed; after that, per-batch caches of a
// few to tens of MB come from the heap, where a freed block stays resident until the heap top is
// trimmed. Measured on the base-sized bench model, int8, beam 4, 256 sentences, 2 threads
// (bench/NOTES.md): peak RSS 687 MB -> 421 MB with the threshold fixed at 1 MB. The cost is a
// fresh (page-faulted) mapping per large allocation, which decoding makes once per batch shape
// at most: decoder states are reused across batches. Call once at startup (the CLI and the bench
// do); it affects the whole process. No-op with other C libraries.
void keep_large_allocations_mapped();

// While one of these exists, large buffers (2 MB and more) that are freed are kept (up to 64 MB
// at a time), and a later request takes the smallest kept block that holds it instead of a fresh
// mapping (the pages it does not need go back to the system); the last one to go frees what is
// left. For a model's load (formats/detect.h): each weight read from the file is freed as its
// packed copy is made, and the next packed copy takes its memory. A fresh mapping is zeroed by the
// kernel page by page, and on virtual machines that hand freed memory back to the host it costs a
// host fault per page besides: with the pool a float32 Transformer-base load touches 300 MB of
// fresh memory, not 440 (bench/NOTES.md).
class ReuseFreedBuffers {
 public:
  ReuseFreedBuffers();
  ~ReuseFreedBuffers();
  ReuseFreedBuffers(const ReuseFreedBuffers&) = delete;
  ReuseFreedBuffers& operator=(const ReuseFreedBuffers&) = delete;
};

}  // namespace s2s
