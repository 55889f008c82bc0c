// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// SessionState: everything a Session holds for one plan (input-shape
// signature) — activation arena, input/output and staging buffers, the
// recorded command buffer. StateCache: one session's states by signature,
// charged to the model's CacheBudget, which evicts idle ones least recently
// used first. The state of the run in flight is busy and never evicted; an
// idle state's GPU work is complete (Session::Run waits for it), and its
// command buffer waits once more before it is freed.
//
// StateCache is thread-safe (the budget evicts from any thread); a
// SessionState is used by its session's thread while acquired. Create the
// cache with std::make_shared (the budget holds it weakly).
#ifndef VKSERVE_RUNTIME_EXEC_SESSION_STATE_H_
#define VKSERVE_RUNTIME_EXEC_SESSION_STATE_H_

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "gpu/allocator.h"
#include "gpu/cache_budget.h"
#include "gpu/command_buffer.h"
#include "runtime/exec/chunked_readback.h"
#include "runtime/plan/plan.h"

namespace vkserve {

struct SessionState {
  std::shared_ptr<const Plan> plan;
  gpu::Buffer arena;
  std::vector<gpu::Buffer> inputs;         // per model input; empty when size 0
  std::vector<gpu::Buffer> input_staging;  // when inputs are not host-writable
  std::vector<gpu::Buffer> outputs;        // per model output
  // Per output, when outputs are not host-readable: the host-cached staging
  // buffer the GPU copies it into. Shared with the RunOutputs that view it
  // (SessionOptions::view_readback_bytes); a buffer still viewed at the next
  // run is replaced, never overwritten.
  std::vector<std::shared_ptr<gpu::Buffer>> readback;
  // Per staged output: how many views of readback[o] callers still hold
  // (a view's release decrements it with release order).
  std::vector<std::shared_ptr<std::atomic<int>>> readback_views;
  // Per output: the chunks its readback is staged in (chunked_readback.h).
  std::vector<ReadbackChunks> readback_chunks;
  std::unique_ptr<gpu::CommandBuffer> command_buffer;
  // What the current recording bound; a run binding anything else re-records.
  bool recorded = false;
  gpu::Timing recorded_timing = gpu::Timing::kSpans;  // per dispatch only for profiles
  std::vector<gpu::BufferRange> bound_inputs;
  std::vector<bool> bound_host_outputs;
  // Timed spans of the recording that move the run's inputs in (first) and
  // its outputs out (last): the rest are the model's own work.
  size_t upload_spans = 0, readback_spans = 0;
  // The last run's GPU time (timestamps; 0 when unknown): how long the next
  // run's wait is expected to take.
  uint64_t last_gpu_ns = 0;

  // Its buffers by where they live, and an estimate of the recording.
  CacheCost Cost() const;
  // What Cost() will be once allocated for `plan`, before allocating.
  static CacheCost Estimate(const Plan& plan);
};

class StateCache : public CacheBudget::Owner, public std::enable_shared_from_this<StateCache> {
 public:
  explicit StateCache(std::shared_ptr<CacheBudget> budget) : budget_(std::move(budget)) {}
  ~StateCache() override;

  // The cached state for `key`, now busy; nullptr when none is cached.
  SessionState* Acquire(const std::string& key);
  // Caches `state` under `key`, busy; returns it. REQUIRES: none cached.
  SessionState* Insert(const std::string& key, std::unique_ptr<SessionState> state);
  // The run of `key`'s state is over: idle again, its cost updated. The
  // caller enforces the budget next (which may evict it, when it alone
  // exceeds the budget).
  void Release(const std::string& key);

  bool EvictIfIdle(const std::string& key, uint64_t id) override;
  size_t size() const;
  CacheBudget& budget() const { return *budget_; }

 private:
  struct Entry {
    std::unique_ptr<SessionState> state;
    uint64_t id = 0;
    bool busy = false;
  };
  const std::shared_ptr<CacheBudget> budget_;
  mutable Mutex mutex_;
  std::map<std::string, Entry> states_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_EXEC_SESSION_STATE_H_
