// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// SessionPool: the Scheduler (scheduler.h) that runs every request alone.
// The sessions of one model on one or more GPUs (a ModelReplica per GPU,
// gpu_load.h), fed from one bounded FIFO queue by worker threads, two per
// session: the head request goes to a free session of the least-loaded
// GPU. A session is free again as soon as its run returns, so it starts the
// next request while the worker that ran it still answers the last (the
// response's output bytes); the dynamic batcher does the same. GPU-resident inputs held by another
// GPU are copied through the host (cross_device_inputs.h). Submit() never blocks: it either queues
// the request or answers at once (RESOURCE_EXHAUSTED when the queue is full,
// UNAVAILABLE when the pool is draining). A queued request whose deadline
// passes is answered DEADLINE_EXCEEDED without running; one whose `cancelled`
// check turns true before a session picks it up is answered CANCELLED and
// dropped. Drain() stops accepting and waits until every accepted request
// has been answered, so unloading a model or shutting down loses none.
//
// Inline runs (SchedulerRequest::may_run_inline): when the pool is idle (no
// session running, nothing queued) and the model's recent runs were short (a
// running mean under SessionPoolOptions::inline_max_run), Submit takes a
// session and runs the request on the caller's thread, then answers it
// before returning. The request would have started at once anyway, so no queued
// request is overtaken; the deadline and cancellation checks, the
// cross-device copies, the load accounting and Drain() treat it exactly as
// a worker's run. It saves two thread hand-offs (to the worker and back).
//
// Thread-safe. Callbacks run on a worker (or sweeper) thread, or on the
// submitting thread for an inline run or a refusal, and must not block for
// long.
#ifndef VKSERVE_SERVER_SCHEDULING_SESSION_POOL_H_
#define VKSERVE_SERVER_SCHEDULING_SESSION_POOL_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "base/mutex.h"
#include "runtime/session.h"
#include "server/scheduling/cross_device_inputs.h"
#include "server/scheduling/gpu_load.h"
#include "server/scheduling/scheduler.h"

namespace vkserve {

class WarmupRuns;

struct SessionPoolOptions {
  std::string name;  // model name, for messages
  int sessions = 1;
  int max_queue = 64;  // requests waiting for a session; 0 = unbounded
  // The queue policy's timeout rule (queue_policy.h) for Scheduler::Submit.
  absl::Duration default_timeout = absl::ZeroDuration();  // zero: none
  bool allow_timeout_override = false;
  // Run on each session as it is created, before the pool serves; a
  // failure fails Create. Null: none.
  std::shared_ptr<const WarmupRuns> warmup;
  // Inline runs are taken only while the mean of recent runs is below this
  // (and after a few runs have been timed); zero: never.
  absl::Duration inline_max_run = absl::Milliseconds(2);
};

class SessionPool final : public Scheduler {
 public:
  // What a request gets back: the run's result (or why it did not run) and
  // how long it waited for a session.
  using RunCallback = std::function<void(absl::StatusOr<RunResult> result, uint64_t queue_ns)>;

  // `options.sessions` sessions of `model` on its GPU.
  static absl::StatusOr<std::unique_ptr<SessionPool>> Create(
      std::shared_ptr<const Model> model, const SessionPoolOptions& options,
      const SessionOptions& session_options = {});
  // Each replica's sessions on its model's GPU (`options.sessions` unused).
  // The replicas are one model file loaded on each GPU: the same inputs and
  // outputs. REQUIRES: at least one replica.
  static absl::StatusOr<std::unique_ptr<SessionPool>> Create(
      std::vector<ModelReplica> replicas, const SessionPoolOptions& options,
      const SessionOptions& session_options = {});
  ~SessionPool() override;  // drains

  // Scheduler: the deadline follows the options' queue policy; priorities
  // are ignored (one FIFO).
  void Submit(SchedulerRequest request, Callback done) override;

  // Queues `request` (moved in). `deadline` may be absl::InfiniteFuture().
  // `cancelled` (may be empty) is polled before the run starts. `done` is
  // called exactly once, possibly before Submit returns (always so when the
  // request runs inline: `may_run_inline`, see above).
  void Submit(RunRequest request, absl::Time deadline, std::function<bool()> cancelled,
              RunCallback done, bool may_run_inline = false);

  // Stops accepting requests and blocks until all accepted ones are answered.
  void Drain() override;

  SchedulerStats stats() const override;
  const Model& model() const { return *model_; }
  // Requests run on their submitting thread so far.
  uint64_t inline_runs() const;

 private:
  // How a run went beyond its result: the GPU and the cross-device copies.
  using InfoCallback = std::function<void(absl::StatusOr<RunResult> result, uint64_t queue_ns,
                                          int gpu, const CrossDeviceCopies& copies)>;
  struct Item {
    RunRequest request;
    absl::Time deadline;
    absl::Time enqueued;
    std::function<bool()> cancelled;
    InfoCallback done;
  };
  SessionPool(std::shared_ptr<const Model> model, const SessionPoolOptions& options,
              std::vector<int> sessions_by_gpu)
      : model_(std::move(model)), options_(options), load_(std::move(sessions_by_gpu)) {}
  void Enqueue(RunRequest request, absl::Time deadline, std::function<bool()> cancelled,
               InfoCallback done, bool may_run_inline);
  void Worker();
  void Sweeper();
  // An idle session of the least-loaded GPU, marked busy (and the request
  // counted in busy_); -1 when none is idle.
  int TakeSessionLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // TakeSessionLocked when inline runs are allowed now, else -1.
  int TakeForInlineLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Runs `item` on `session` (taken by the caller) unless its deadline
  // passed, it was cancelled or its inputs could not be localized, gives
  // the session back, then answers. The caller then destroys `item` and
  // calls Answered().
  void Serve(Item& item, size_t session);
  // Gives `session` back, with the run's duration for the mean (zero when
  // it did not run).
  void Release(size_t session, absl::Duration run);
  // The request taken with the session is answered (busy_ drops).
  void Answered();

  std::shared_ptr<const Model> model_;
  const SessionPoolOptions options_;
  std::vector<std::unique_ptr<Session>> sessions_;
  std::vector<int> gpu_of_;  // per session; fixed after Create
  std::vector<std::thread> threads_;

  mutable Mutex mutex_;
  std::deque<Item> queue_ ABSL_GUARDED_BY(mutex_);
  bool draining_ ABSL_GUARDED_BY(mutex_) = false;
  bool stopped_ ABSL_GUARDED_BY(mutex_) = false;
  // Requests taken from the queue (or run inline) and not yet answered.
  uint64_t busy_ ABSL_GUARDED_BY(mutex_) = 0;
  std::vector<bool> session_busy_ ABSL_GUARDED_BY(mutex_);
  GpuLoad load_ ABSL_GUARDED_BY(mutex_);
  // Runs timed, and their running mean (inline runs' gate).
  uint64_t timed_runs_ ABSL_GUARDED_BY(mutex_) = 0;
  absl::Duration mean_run_ ABSL_GUARDED_BY(mutex_);
  uint64_t inline_runs_ ABSL_GUARDED_BY(mutex_) = 0;
};

}  // namespace vkserve

#endif  // VKSERVE_SERVER_SCHEDULING_SESSION_POOL_H_
