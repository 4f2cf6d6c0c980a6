#include "base/heap_policy.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace rdmabench {

void map_large_allocations() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
}

void return_free_heap() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

}  // namespace rdmabench
