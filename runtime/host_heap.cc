// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.

#include "runtime/host_heap.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace vkserve {

HostHeapStats ReadHostHeap() {
  HostHeapStats stats;
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  const struct mallinfo2 info = mallinfo2();
  stats.in_use = info.uordblks;
  stats.free = info.fordblks;
  stats.mmapped = info.hblkhd;
#endif
  return stats;
}

void ConfigureHostHeapForServing(uint64_t mmap_threshold) {
#if defined(__GLIBC__)
  // Setting it also stops glibc from raising the threshold each time a
  // mapped block is freed, which would send later large blocks to the arenas.
  mallopt(M_MMAP_THRESHOLD, static_cast<int>(mmap_threshold));
#else
  (void)mmap_threshold;
#endif
}

void TrimHostMemory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

}  // namespace vkserve
