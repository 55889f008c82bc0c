// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// SessionPool: the Scheduler (scheduler.h) that runs every request alone:
// the dynamic batcher with batching off (DynamicBatcher::CreateUnbatched),
// as Triton serves a model without dynamic_batching. One FIFO
// (request_queue.h, the options' queue policy) feeds the sessions of every
// GPU (gpu_load.h), least-loaded first; refusals, deadlines, cancellation
// and Drain() are the RequestQueue's.
//
// Inline runs (SchedulerRequest::may_run_inline): when the pool is idle (no
// session running, nothing queued) and the model's recent runs were short (a
// running mean under SessionPoolOptions::inline_max_run), Submit takes a
// session and runs the request on the caller's thread, then answers it
// before returning. The request would have started at once anyway, so no
// queued request is overtaken; the run-time checks, cross-device copies,
// load accounting and Drain() treat it exactly as a runner's run. It saves
// two thread hand-offs (to the runner and back).
//
// Thread-safe. Callbacks run on a runner, the timer's thread or any
// submitting thread (an inline run, a refusal, or a request that expired
// while queued); they must not block.
#ifndef VKSERVE_SERVER_SCHEDULING_SESSION_POOL_H_
#define VKSERVE_SERVER_SCHEDULING_SESSION_POOL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "runtime/session.h"
#include "server/scheduling/dynamic_batcher.h"
#include "server/scheduling/gpu_load.h"
#include "server/scheduling/scheduler.h"

namespace vkserve {

class WarmupRuns;

struct SessionPoolOptions {
  std::string name;  // model name, for messages
  int sessions = 1;
  int max_queue = 64;  // requests waiting for a session; 0 = unbounded
  // The queue policy's timeout rule (request_queue.h) for Scheduler::Submit.
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
  ~SessionPool() override = default;  // drains

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
  const Model& model() const { return batcher_->model(); }
  // Requests run on their submitting thread so far.
  uint64_t inline_runs() const;

 private:
  explicit SessionPool(std::unique_ptr<DynamicBatcher> batcher) : batcher_(std::move(batcher)) {}

  std::unique_ptr<DynamicBatcher> batcher_;
};

}  // namespace vkserve

#endif  // VKSERVE_SERVER_SCHEDULING_SESSION_POOL_H_
