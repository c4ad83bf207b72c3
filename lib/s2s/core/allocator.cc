#include "s2s/core/allocator.h"

#include <cstdlib>  // defines __GLIBC__ on glibc systems
#include <new>

#if defined(__GLIBC__)
#include <malloc.h>
#endif
#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace s2s {

namespace {

constexpr std::size_t kAlignment = 64;
constexpr std::size_t kHugePage = std::size_t{2} << 20;

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

}  // namespace

std::shared_ptr<void> aligned_buffer(std::size_t bytes) {
  const bool huge = bytes >= kHugePage;
  const std::size_t alignment = huge ? kHugePage : kAlignment;
  const std::size_t rounded = bytes == 0 ? kAlignment : round_up(bytes, alignment);
  void* p = std::aligned_alloc(alignment, rounded);
  if (!p) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  // Advice only: EINVAL where THP is not built in, and nothing changes.
  if (huge) madvise(p, rounded, MADV_HUGEPAGE);
#endif
  return std::shared_ptr<void>(p, [](void* q) { std::free(q); });
}

void keep_large_allocations_mapped() {
#if defined(__GLIBC__)
  // Setting the threshold explicitly also turns off glibc's dynamic adjustment of it.
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
}

}  // namespace s2s
