// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Host heap: what the C library's allocator holds, and handing its free
// memory back to the system. Large request buffers freed by many threads
// otherwise stay in malloc's arenas, so the process's RSS would describe the
// busiest moment rather than what is live. Thread-safe (both calls lock the
// allocator's arenas briefly).
#ifndef VKSERVE_BASE_HOST_HEAP_H_
#define VKSERVE_BASE_HOST_HEAP_H_

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

// Returns free heap memory to the system (glibc malloc_trim); a no-op
// elsewhere.
void TrimHostMemory();

// Bytes of the process's resident set that are neither file-backed nor
// shared (/proc/self/statm): the heap, stacks and driver allocations.
// 0 where unreadable.
uint64_t ResidentPrivateBytes();

// Trims the heap when the private resident set has grown `slack` bytes past
// what the last trim left, and at least every `period` ticks. Request and
// response buffers freed by gRPC's and the sessions' threads stay in glibc's
// per-thread arenas; trimming on growth keeps RSS near what is live without
// trimming (and re-faulting pages) on every tick. Not thread-safe: call
// Tick() from one thread (the server's housekeeping timer, once a second).
class HeapTrimmer {
 public:
  explicit HeapTrimmer(uint64_t slack = uint64_t{32} << 20, uint64_t period = 60)
      : slack_(slack), period_(period), floor_(ResidentPrivateBytes()) {}
  // Returns whether it trimmed.
  bool Tick();
  uint64_t trims() const { return trims_; }

 private:
  const uint64_t slack_;
  const uint64_t period_;
  uint64_t ticks_ = 0;
  uint64_t floor_;  // private bytes after the last trim (or at creation)
  uint64_t trims_ = 0;
};

}  // namespace vkserve

#endif  // VKSERVE_BASE_HOST_HEAP_H_
