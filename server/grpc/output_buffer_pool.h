// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// OutputBufferPool: the host buffers that finished responses carried their
// output bytes in, kept for the next responses. A large output read back
// into a fresh buffer pays for the memory twice before a byte is copied:
// the allocator maps new pages (large blocks are mmap'd, and per-thread
// arenas cannot hold them), and every page faults and is zeroed by the
// kernel on first touch, then again by std::string::resize. On the
// development machine that made a 100 MB copy take 63 ms against 10 ms into
// memory touched before. A recycled buffer is already mapped and sized, so
// the readback is one memcpy.
//
// Buffers are std::string because protobuf's bytes fields are: a response
// takes one by move and gives it back (Give) when gRPC is done with it.
// Bounded: the pool holds at most `budget_bytes` of capacity and drops the
// least recently returned buffers beyond it; buffers under `min_bytes` are
// not kept (the allocator serves those well). Thread-safe.
#ifndef VKSERVE_SERVER_GRPC_OUTPUT_BUFFER_POOL_H_
#define VKSERVE_SERVER_GRPC_OUTPUT_BUFFER_POOL_H_

#include <cstdint>
#include <list>
#include <string>

#include "base/mutex.h"
#include "server/observability/metrics.h"

namespace vkserve {

class OutputBufferPool {
 public:
  // budget_bytes 0: nothing is kept, every Take allocates.
  explicit OutputBufferPool(uint64_t budget_bytes, uint64_t min_bytes = uint64_t{1} << 20)
      : budget_(budget_bytes), min_bytes_(min_bytes) {}
  OutputBufferPool(const OutputBufferPool&) = delete;
  OutputBufferPool& operator=(const OutputBufferPool&) = delete;

  // A buffer of size `bytes`: the smallest pooled one whose capacity holds
  // it (its contents unspecified), else a new one. The caller owns it.
  std::string Take(uint64_t bytes);
  // Hands `buffer` back for reuse (or frees it, past the budget).
  void Give(std::string&& buffer);

  OutputBufferPoolStats stats() const;
  uint64_t budget_bytes() const { return budget_; }

 private:
  const uint64_t budget_;
  const uint64_t min_bytes_;
  mutable Mutex mutex_;
  std::list<std::string> pooled_ ABSL_GUARDED_BY(mutex_);  // most recently given first
  OutputBufferPoolStats stats_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace vkserve

#endif  // VKSERVE_SERVER_GRPC_OUTPUT_BUFFER_POOL_H_
