// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// SessionPool: the Scheduler (scheduler.h) that runs every request alone. N
// sessions of one model, each driven by its own worker thread,
// fed from one bounded FIFO queue. Submit() never blocks: it either queues
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

  static absl::StatusOr<std::unique_ptr<SessionPool>> Create(std::shared_ptr<const Model> model,
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
  struct Item {
    RunRequest request;
    absl::Time deadline;
    absl::Time enqueued;
    std::function<bool()> cancelled;
    RunCallback done;
  };
  explicit SessionPool(std::shared_ptr<const Model> model, const SessionPoolOptions& options)
      : model_(std::move(model)), options_(options) {}
  void Worker(Session* session);
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
};

}  // namespace vkserve

#endif  // VKSERVE_SERVER_SESSION_POOL_H_
