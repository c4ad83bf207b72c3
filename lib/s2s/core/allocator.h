// How s2s allocates its large buffers, and how the process's C allocator treats them.
#pragma once

#include <cstddef>
#include <memory>

namespace s2s {

// A buffer of at least `bytes` (uninitialised), 64-byte aligned; freed when the last owner goes.
// Buffers of 2 MB and more are aligned to 2 MB and advised as transparent huge pages where the
// kernel offers them on request (THP "madvise" mode, the default of Debian and Ubuntu): filling a
// model's weights then takes one page fault per 2 MB instead of one per 4 KB, which was a large
// part of the load time (docs/performance.md, "Memory: huge pages, kept scratch, reused buffers"),
// and the weights streamed at every decoding step need fewer TLB entries. Where THP is off the
// advice is ignored.
std::shared_ptr<void> aligned_buffer(std::size_t bytes);

// glibc serves blocks above a threshold with mmap and unmaps them on free, but raises that
// threshold (up to 32 MB) each time such a block is freed; after that, per-batch caches of a few to
// tens of MB come from the heap, where a freed block stays resident until the heap top is trimmed,
// which raised the peak memory of a beam search by a large share; the threshold is fixed at 1 MB
// (docs/performance.md, "Memory: huge pages, kept scratch, reused buffers"). The cost is a fresh
// (page-faulted) mapping per large allocation, which decoding makes once per batch shape at most:
// decoder states are reused across batches. Call once at startup (the CLI and the bench do); it
// affects the whole process. No-op with other C libraries.
void keep_large_allocations_mapped();

// While one of these exists, large buffers (2 MB and more) that are freed are kept (up to 64 MB
// at a time), and a later request takes the smallest kept block that holds it instead of a fresh
// mapping (the pages it does not need go back to the system); the last one to go frees what is
// left. For a model's load (formats/detect.h): each weight read from the file is freed as its
// packed copy is made, and the next packed copy takes its memory. A fresh mapping is zeroed by the
// kernel page by page, and on virtual machines that hand freed memory back to the host it costs a
// host fault per page besides: with the pool a load touches much less fresh memory
// (docs/performance.md, "Memory: huge pages, kept scratch, reused buffers").
class ReuseFreedBuffers {
 public:
  ReuseFreedBuffers();
  ~ReuseFreedBuffers();
  ReuseFreedBuffers(const ReuseFreedBuffers&) = delete;
  ReuseFreedBuffers& operator=(const ReuseFreedBuffers&) = delete;
};

}  // namespace s2s
