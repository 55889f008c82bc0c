// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "gpu/parallel_copy.h"

#include <algorithm>
#include <cstring>

#include "base/host_threads.h"

namespace vkserve::gpu {

// One Copy() call: its pieces still to finish, counted down under the
// copier's mutex by whoever copies them. It lives on the caller's stack, so
// it must not carry a mutex of its own: a worker could still be inside that
// mutex's unlock when the caller, seeing 0, returns.
struct ParallelCopy::Job {
  int pending = 0;  // guarded by ParallelCopy::mutex_
  static bool Done(Job* job) { return job->pending == 0; }
};

ParallelCopy::ParallelCopy(int threads, uint64_t min_bytes)
    : threads_(std::max(threads, 1)), min_bytes_(min_bytes) {
  for (int i = 1; i < threads_; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

ParallelCopy::~ParallelCopy() {
  {
    MutexLock lock(&mutex_);
    stopping_ = true;
  }
  for (std::thread& t : workers_) t.join();
}

int ParallelCopy::DefaultThreads() {
  return std::clamp(HostCores() / 2, 1, 8);
}

void ParallelCopy::Copy(void* dst, const void* src, uint64_t size) {
  const Region region{dst, src, size};
  CopyRegions(std::span<const Region>(&region, 1));
}

void ParallelCopy::CopyRegions(std::span<const Region> regions) {
  uint64_t total = 0;
  for (const Region& r : regions) total += r.size;
  if (total == 0) return;
  if (threads_ == 1 || total < min_bytes_) {
    for (const Region& r : regions) {
      // An empty range's pointers may be null, which memcpy forbids.
      if (r.size != 0) std::memcpy(r.dst, r.src, r.size);
    }
    return;
  }
  // Shares of about total / threads bytes, on 4 KiB boundaries within each
  // region (whole pages but for a region's last share); a region smaller
  // than a share is one piece.
  const uint64_t share = ((total / threads_) + 4095) & ~uint64_t{4095};
  Job job;
  Piece own{};  // the caller copies the first piece
  {
    MutexLock lock(&mutex_);
    for (const Region& r : regions) {
      auto* d = static_cast<uint8_t*>(r.dst);
      const auto* s = static_cast<const uint8_t*>(r.src);
      for (uint64_t off = 0; off < r.size; off += share) {
        const Piece piece{&job, d + off, s + off, std::min(share, r.size - off)};
        if (own.job == nullptr) {
          own = piece;
          continue;
        }
        pieces_.push_back(piece);
        ++job.pending;
      }
    }
  }
  std::memcpy(own.dst, own.src, own.size);
  // Help with whatever is still queued (this call's pieces or another's)
  // rather than sleep while workers are busy.
  for (;;) {
    Piece piece;
    {
      MutexLock lock(&mutex_);
      if (pieces_.empty()) break;
      piece = pieces_.front();
      pieces_.pop_front();
    }
    std::memcpy(piece.dst, piece.src, piece.size);
    MutexLock lock(&mutex_);
    --piece.job->pending;
  }
  MutexLock lock(&mutex_);
  mutex_.Await(Condition(&Job::Done, &job));
}

void ParallelCopy::WorkerLoop() {
  for (;;) {
    Piece piece;
    {
      MutexLock lock(&mutex_);
      mutex_.Await(Condition(this, &ParallelCopy::HasWork));
      if (pieces_.empty()) return;  // stopping, nothing left
      piece = pieces_.front();
      pieces_.pop_front();
    }
    std::memcpy(piece.dst, piece.src, piece.size);
    MutexLock lock(&mutex_);
    --piece.job->pending;
  }
}

}  // namespace vkserve::gpu
