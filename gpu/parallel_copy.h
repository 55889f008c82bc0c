// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ParallelCopy: copies large byte ranges with several threads. One thread's
// memcpy reaches only part of what the memory system delivers to several,
// and reading mapped device memory over PCIe (a BAR mapping) is bound by the
// reads one core keeps in flight. Model outputs of hundreds of MB (GPT-2's
// logits: 206 MB at batch 8) are read back this way; copies below
// `min_bytes` stay on the caller's thread, where waking workers would cost
// more than it saves.
//
// A dynamic batch's input arrives as one piece per request (a batch of 32
// resnet50 images: 32 pieces of 602 KB), each below `min_bytes`, but the
// batch is copied as a whole: CopyRegions splits the pieces together.
//
// Thread-safe: concurrent copies share the workers (each call still does
// one share of its own copy, so it always makes progress).
#ifndef VKSERVE_GPU_PARALLEL_COPY_H_
#define VKSERVE_GPU_PARALLEL_COPY_H_

#include <cstdint>
#include <deque>
#include <span>
#include <thread>
#include <vector>

#include "base/mutex.h"

namespace vkserve::gpu {

class ParallelCopy {
 public:
  // `threads`: how many threads one copy uses, the caller's included
  // (1 = plain memcpy, no workers). REQUIRES: threads >= 1.
  explicit ParallelCopy(int threads, uint64_t min_bytes = uint64_t{8} << 20);
  ~ParallelCopy();  // joins the workers; no Copy() may be running
  ParallelCopy(const ParallelCopy&) = delete;
  ParallelCopy& operator=(const ParallelCopy&) = delete;

  // One memcpy of a gather or scatter.
  struct Region {
    void* dst;
    const void* src;
    uint64_t size;
  };

  // memcpy(dst, src, size), split over the threads when size >= min_bytes.
  // REQUIRES: the ranges do not overlap.
  void Copy(void* dst, const void* src, uint64_t size);
  // Every region's memcpy, split over the threads when their sizes add up
  // to min_bytes or more. REQUIRES: no two ranges overlap.
  void CopyRegions(std::span<const Region> regions);

  int threads() const { return threads_; }

  // A thread count for this machine: half its cores, between 1 and 8.
  static int DefaultThreads();

 private:
  struct Job;
  struct Piece {
    Job* job;
    uint8_t* dst;
    const uint8_t* src;
    uint64_t size;
  };
  void WorkerLoop();
  bool HasWork() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    return stopping_ || !pieces_.empty();
  }

  const int threads_;
  const uint64_t min_bytes_;
  Mutex mutex_;
  std::deque<Piece> pieces_ ABSL_GUARDED_BY(mutex_);
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  std::vector<std::thread> workers_;
};

}  // namespace vkserve::gpu

#endif  // VKSERVE_GPU_PARALLEL_COPY_H_
