// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// SessionPool: the Scheduler (scheduler.h) that runs every request alone.
// The sessions of one model on one or more GPUs (a ModelReplica per GPU,
// gpu_load.h), each driven by its own worker thread, fed from one bounded
// FIFO queue: the head request goes to a free session of the least-loaded
// GPU. GPU-resident inputs held by another GPU are copied through the host
// (cross_device_inputs.h). Submit() never blocks: it either queues
// the request or answers at once (RESOURCE_EXHAUSTED when the queue is full,
// UNAVAILABLE when the pool is draining). A queued request whose deadline
// passes is answered DEADLINE_EXCEEDED without running; one whose `cancelled`
// check turns true before a session picks it up is answered CANCELLED and
// dropped. Drain() stops accepting and waits until every accepted request
// has been answered, so unloading a model or shutting down loses none.
//
// Thread-safe. Callbacks run on a worker (or sweeper) thread and must not
// block for long.
#ifndef VKSERVE_SERVER_SESSION_POOL_H_
#define VKSERVE_SERVER_SESSION_POOL_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "base/mutex.h"
#include "absl/time/time.h"
#include "runtime/session.h"
#include "server/cross_device_inputs.h"
#include "server/gpu_load.h"
#include "server/scheduler.h"

namespace vkserve {

struct SessionPoolOptions {
  std::string name;  // model name, for messages
  int sessions = 1;
  int max_queue = 64;  // requests waiting for a session; 0 = unbounded
  // The queue policy's timeout rule (queue_policy.h) for Scheduler::Submit.
  absl::Duration default_timeout = absl::ZeroDuration();  // zero: none
  bool allow_timeout_override = false;
};

class SessionPool final : public Scheduler {
 public:
  // What a request gets back: the run's result (or why it did not run) and
  // how long it waited for a session.
  using RunCallback = std::function<void(absl::StatusOr<RunResult> result, uint64_t queue_ns)>;

  // `options.sessions` sessions of `model` on its GPU.
  static absl::StatusOr<std::unique_ptr<SessionPool>> Create(std::shared_ptr<const Model> model,
                                                             const SessionPoolOptions& options,
                                                             const SessionOptions& session_options = {});
  // Each replica's sessions on its model's GPU (`options.sessions` unused).
  // The replicas are one model file loaded on each GPU: the same inputs and
  // outputs. REQUIRES: at least one replica.
  static absl::StatusOr<std::unique_ptr<SessionPool>> Create(std::vector<ModelReplica> replicas,
                                                             const SessionPoolOptions& options,
                                                             const SessionOptions& session_options = {});
  ~SessionPool() override;  // drains

  // Scheduler: the deadline follows the options' queue policy; priorities
  // are ignored (one FIFO).
  void Submit(SchedulerRequest request, Callback done) override;

  // Queues `request` (moved in). `deadline` may be absl::InfiniteFuture().
  // `cancelled` (may be empty) is polled before the run starts. `done` is
  // called exactly once, possibly before Submit returns.
  void Submit(RunRequest request, absl::Time deadline, std::function<bool()> cancelled,
              RunCallback done);

  // Stops accepting requests and blocks until all accepted ones are answered.
  void Drain() override;

  SchedulerStats stats() const override;
  const Model& model() const { return *model_; }

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
               InfoCallback done);
  void Worker(Session* session, int gpu);
  void Sweeper();

  std::shared_ptr<const Model> model_;
  const SessionPoolOptions options_;
  std::vector<std::unique_ptr<Session>> sessions_;
  std::vector<std::thread> threads_;

  mutable Mutex mutex_;
  std::deque<Item> queue_ ABSL_GUARDED_BY(mutex_);
  bool draining_ ABSL_GUARDED_BY(mutex_) = false;
  bool stopped_ ABSL_GUARDED_BY(mutex_) = false;
  uint64_t busy_ ABSL_GUARDED_BY(mutex_) = 0;
  GpuLoad load_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace vkserve

#endif  // VKSERVE_SERVER_SESSION_POOL_H_
