// How the process's C allocator treats the large tensors that decoding allocates and frees.
#pragma once

namespace s2s {

// glibc serves blocks above a threshold with mmap and unmaps them on free, but raises that
// threshold (up to 32 MB) each time such a block is freed; after that, per-batch caches of a
// few to tens of MB come from the heap, where a freed block stays resident until the heap top is
// trimmed. Measured on the base-sized bench model, int8, beam 4, 256 sentences, 2 threads
// (bench/NOTES.md): peak RSS 687 MB -> 421 MB with the threshold fixed at 1 MB. The cost is a
// fresh (page-faulted) mapping per large allocation, which decoding makes once per batch shape
// at most: decoder states are reused across batches. Call once at startup (the CLI and the bench
// do); it affects the whole process. No-op with other C libraries.
void keep_large_allocations_mapped();

}  // namespace s2s
