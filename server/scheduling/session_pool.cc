// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/scheduling/session_pool.h"

#include <algorithm>

#include "base/status_macros.h"

namespace vkserve {

absl::StatusOr<std::unique_ptr<SessionPool>> SessionPool::Create(
    std::shared_ptr<const Model> model, const SessionPoolOptions& options,
    const SessionOptions& session_options) {
  if (options.sessions < 1) return absl::InvalidArgumentError("a pool needs at least one session");
  return Create({ModelReplica{std::move(model), options.sessions}}, options, session_options);
}

absl::StatusOr<std::unique_ptr<SessionPool>> SessionPool::Create(
    std::vector<ModelReplica> replicas, const SessionPoolOptions& options,
    const SessionOptions& session_options) {
  if (options.max_queue < 0) return absl::InvalidArgumentError("queue size must not be negative");
  // One level: the pool serves in arrival order whatever the priority.
  ModelSettings settings;
  settings.name = options.name;
  settings.max_queue_size = options.max_queue;
  settings.default_timeout = options.default_timeout;
  settings.allow_timeout_override = options.allow_timeout_override;
  ASSIGN_OR_RETURN(std::unique_ptr<DynamicBatcher> batcher,
                   DynamicBatcher::CreateUnbatched(std::move(replicas), settings, session_options,
                                                   options.warmup, options.inline_max_run));
  return std::unique_ptr<SessionPool>(new SessionPool(std::move(batcher)));
}

void SessionPool::Submit(SchedulerRequest request, Callback done) {
  batcher_->Submit(std::move(request), std::move(done));
}

void SessionPool::Submit(RunRequest request, absl::Time deadline, std::function<bool()> cancelled,
                         RunCallback done, bool may_run_inline) {
  QueuedRequest item;
  item.request.run = std::move(request);
  item.request.cancelled = std::move(cancelled);
  item.submitted = absl::Now();
  item.deadline = deadline;
  item.done = [done = std::move(done)](absl::StatusOr<RunResult> result,
                                       const ExecutionInfo& info) {
    done(std::move(result), info.queue_ns);
  };
  batcher_->Enqueue(std::move(item), may_run_inline);
}

void SessionPool::Drain() { batcher_->Drain(); }

SchedulerStats SessionPool::stats() const { return batcher_->stats(); }

uint64_t SessionPool::inline_runs() const { return batcher_->inline_runs(); }

}  // namespace vkserve
