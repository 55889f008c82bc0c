// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.

#include "base/host_heap.h"

#include <unistd.h>

#include <cstdio>

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

void TrimHostMemory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

uint64_t ResidentPrivateBytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long long size = 0, resident = 0, shared = 0;
  const int n = std::fscanf(f, "%llu %llu %llu", &size, &resident, &shared);
  std::fclose(f);
  if (n != 3 || resident < shared) return 0;
  return static_cast<uint64_t>(resident - shared) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

bool HeapTrimmer::Tick() {
  ++ticks_;
  const uint64_t now = ResidentPrivateBytes();
  if (now <= floor_ + slack_ && ticks_ % period_ != 0) return false;
  TrimHostMemory();
  floor_ = ResidentPrivateBytes();
  ++trims_;
  return true;
}

}  // namespace vkserve
