#include "s2s/core/allocator.h"

#include <cstdlib>  // defines __GLIBC__ on glibc systems

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace s2s {

void keep_large_allocations_mapped() {
#if defined(__GLIBC__)
  // Setting the threshold explicitly also turns off glibc's dynamic adjustment of it.
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
}

}  // namespace s2s
