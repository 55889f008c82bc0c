// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Host heap: what the C library's allocator holds, and handing its free
// memory back to the system. Large request buffers freed by many threads
// otherwise stay in malloc's arenas, so the process's RSS would describe the
// busiest moment rather than what is live. Thread-safe (both calls lock the
// allocator's arenas briefly).
#ifndef VKSERVE_RUNTIME_HOST_HEAP_H_
#define VKSERVE_RUNTIME_HOST_HEAP_H_

#include <cstdint>

namespace vkserve {

// Bytes of the process's heap, summed over malloc's arenas (glibc's
// mallinfo2); the three are disjoint. All zero where the C library does not
// report them.
struct HostHeapStats {
  uint64_t in_use = 0;   // allocated from the arenas and not yet freed
  uint64_t free = 0;     // freed but still held in the arenas
  uint64_t mmapped = 0;  // live large blocks mapped on their own
};

HostHeapStats ReadHostHeap();

// For a long-running server: blocks of `mmap_threshold` bytes and more
// (request and response buffers) are mapped on their own and unmapped when
// freed, rather than carved from malloc's per-thread arenas, where many
// threads freeing them at different times fragment the arenas and keep
// their pages. glibc only; a no-op elsewhere. Call once, before threads start.
void ConfigureHostHeapForServing(uint64_t mmap_threshold = uint64_t{256} << 10);

// Returns free heap memory to the system (glibc malloc_trim); a no-op
// elsewhere.
void TrimHostMemory();

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_HOST_HEAP_H_
