// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/grpc/output_buffer_pool.h"

namespace vkserve {

std::string OutputBufferPool::Take(uint64_t bytes) {
  std::string buffer;
  if (bytes >= min_bytes_) {
    MutexLock lock(&mutex_);
    auto best = pooled_.end();
    for (auto it = pooled_.begin(); it != pooled_.end(); ++it) {
      if (it->capacity() >= bytes && (best == pooled_.end() || it->capacity() < best->capacity()))
        best = it;
    }
    if (best != pooled_.end()) {
      buffer = std::move(*best);
      pooled_.erase(best);
      stats_.pooled_bytes -= buffer.capacity();
      --stats_.pooled_buffers;
      ++stats_.reused;
    } else {
      ++stats_.allocated;
    }
  }
  // Within the capacity: no allocation; resize only writes the bytes past
  // the buffer's old size, and the caller overwrites all of them anyway.
  buffer.resize(bytes);
  return buffer;
}

void OutputBufferPool::Give(std::string&& buffer) {
  const uint64_t capacity = buffer.capacity();
  if (capacity < min_bytes_) return;
  std::string dropped_buffer;  // freed outside the lock
  std::list<std::string> evicted;
  {
    MutexLock lock(&mutex_);
    if (capacity > budget_) {
      ++stats_.dropped;
      dropped_buffer = std::move(buffer);
    } else {
      pooled_.push_front(std::move(buffer));
      stats_.pooled_bytes += capacity;
      ++stats_.pooled_buffers;
      while (stats_.pooled_bytes > budget_) {
        stats_.pooled_bytes -= pooled_.back().capacity();
        --stats_.pooled_buffers;
        ++stats_.dropped;
        evicted.splice(evicted.end(), pooled_, std::prev(pooled_.end()));
      }
    }
  }
}

OutputBufferPoolStats OutputBufferPool::stats() const {
  MutexLock lock(&mutex_);
  return stats_;
}

}  // namespace vkserve
