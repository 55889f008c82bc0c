// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/scheduling/session_pool.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "server/scheduling/queue_policy.h"
#include "server/scheduling/warmup_runs.h"

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
  if (replicas.empty()) return absl::InvalidArgumentError("a pool needs at least one GPU");
  if (options.max_queue < 0) return absl::InvalidArgumentError("queue size must not be negative");
  std::vector<int> sessions_by_gpu;
  for (const ModelReplica& r : replicas) {
    if (r.sessions < 1)
      return absl::InvalidArgumentError("a pool needs at least one session per GPU");
    sessions_by_gpu.push_back(r.sessions);
  }
  auto pool = std::unique_ptr<SessionPool>(
      new SessionPool(replicas.front().model, options, std::move(sessions_by_gpu)));
  for (size_t g = 0; g < replicas.size(); ++g) {
    for (int i = 0; i < replicas[g].sessions; ++i) {
      ASSIGN_OR_RETURN(auto session, Session::Create(replicas[g].model, session_options));
      if (options.warmup != nullptr) RETURN_IF_ERROR(options.warmup->RunOn(*session));
      pool->sessions_.push_back(std::move(session));
      pool->gpu_of_.push_back(static_cast<int>(g));
    }
  }
  {
    MutexLock lock(&pool->mutex_);
    pool->session_busy_.assign(pool->sessions_.size(), false);
  }
  for (size_t i = 0; i < 2 * pool->sessions_.size(); ++i) {
    pool->threads_.emplace_back([p = pool.get()] { p->Worker(); });
  }
  pool->threads_.emplace_back([p = pool.get()] { p->Sweeper(); });
  return pool;
}

SessionPool::~SessionPool() {
  Drain();
  {
    MutexLock lock(&mutex_);
    stopped_ = true;
  }
  for (std::thread& t : threads_) t.join();
}

void SessionPool::Submit(SchedulerRequest request, Callback done) {
  const QueuePolicy policy{options_.max_queue, options_.default_timeout,
                           options_.allow_timeout_override};
  const absl::Time deadline = QueueDeadline(policy, absl::Now(), request);
  const int64_t batch = std::max<int64_t>(request.batch_size, 1);
  Enqueue(
      std::move(request.run), deadline, std::move(request.cancelled),
      [batch, done = std::move(done)](absl::StatusOr<RunResult> result, uint64_t queue_ns, int gpu,
                                      const CrossDeviceCopies& copies) {
        ExecutionInfo info;
        info.queue_ns = queue_ns;
        info.gpu = gpu;
        info.cross_device_copies = copies.copies;
        info.cross_device_bytes = copies.bytes;
        if (result.ok()) {
          info.execution_batch_size = batch;
          info.requests = 1;
          info.reports_execution = true;
          info.forming_ns = queue_ns;
        }
        done(std::move(result), info);
      },
      request.may_run_inline);
}

void SessionPool::Submit(RunRequest request, absl::Time deadline, std::function<bool()> cancelled,
                         RunCallback done, bool may_run_inline) {
  Enqueue(
      std::move(request), deadline, std::move(cancelled),
      [done = std::move(done)](absl::StatusOr<RunResult> result, uint64_t queue_ns, int,
                               const CrossDeviceCopies&) { done(std::move(result), queue_ns); },
      may_run_inline);
}

void SessionPool::Enqueue(RunRequest request, absl::Time deadline, std::function<bool()> cancelled,
                          InfoCallback done, bool may_run_inline) {
  absl::Status refused;
  int session = -1;
  {
    MutexLock lock(&mutex_);
    if (draining_) {
      refused = absl::UnavailableError("the model is being unloaded");
    } else if (may_run_inline && (session = TakeForInlineLocked()) >= 0) {
      // Runs below, on this thread.
    } else if (options_.max_queue > 0 && queue_.size() >= static_cast<size_t>(options_.max_queue)) {
      refused = absl::ResourceExhaustedError(absl::StrCat("the queue of model '", options_.name,
                                                          "' is full (", options_.max_queue,
                                                          " requests waiting)"));
    } else {
      queue_.push_back(
          {std::move(request), deadline, absl::Now(), std::move(cancelled), std::move(done)});
      return;
    }
  }
  if (session < 0) {
    done(refused, 0, -1, CrossDeviceCopies());
    return;
  }
  // The session is this thread's until Serve releases it, as a worker's
  // would be.
  Item item{std::move(request), deadline, absl::Now(), std::move(cancelled), std::move(done)};
  Serve(item, static_cast<size_t>(session));
  item = Item();  // as in Worker: before Drain() can see the request answered
  Answered();
}

int SessionPool::TakeSessionLocked() {
  const int gpu = load_.Pick();
  if (gpu < 0) return -1;
  for (size_t i = 0; i < sessions_.size(); ++i) {
    if (gpu_of_[i] != gpu || session_busy_[i]) continue;
    session_busy_[i] = true;
    ++busy_;
    load_.Take(gpu);
    return static_cast<int>(i);
  }
  std::abort();  // GpuLoad said `gpu` has an idle session: the two disagree
}

int SessionPool::TakeForInlineLocked() {
  // A few timed runs first: a model's first runs (pipeline creation,
  // first-use allocations) say nothing about its steady cost. Only an idle
  // pool: under load the workers keep the sessions busy and the caller's
  // thread (a gRPC poller) is worth more reading other requests; measured
  // on lavapipe, 8 clients ran no faster with inline runs taken whenever a
  // session was idle.
  // Answers being written by workers do not count: their sessions are free.
  constexpr uint64_t kTimedRunsBeforeInline = 4;
  const bool running =
      std::find(session_busy_.begin(), session_busy_.end(), true) != session_busy_.end();
  if (running || !queue_.empty() || timed_runs_ < kTimedRunsBeforeInline ||
      mean_run_ >= options_.inline_max_run) {
    return -1;
  }
  const int session = TakeSessionLocked();
  if (session >= 0) ++inline_runs_;
  return session;
}

void SessionPool::Serve(Item& item, size_t index) {
  Session* session = sessions_[index].get();
  const absl::Time now = absl::Now();
  const uint64_t queue_ns = static_cast<uint64_t>(absl::ToInt64Nanoseconds(now - item.enqueued));
  CrossDeviceCopies copies;
  absl::StatusOr<RunResult> result;
  int gpu = -1;  // the GPU it ran on, if it ran
  absl::Duration run;
  if (now > item.deadline) {
    result = absl::DeadlineExceededError("the request timed out waiting for a session");
  } else if (item.cancelled && item.cancelled()) {
    result = absl::CancelledError("the request was cancelled before it ran");
  } else if (absl::Status local =
                 LocalizeInputs(session->model().gpu().device, &item.request, &copies);
             !local.ok()) {
    result = std::move(local);  // did not run
  } else {
    result = session->Run(item.request);
    run = absl::Now() - now;
    gpu = gpu_of_[index];
  }
  // The result owns its bytes (host outputs) or shares its buffers (GPU
  // outputs): answering needs nothing of the session.
  Release(index, run);
  item.done(std::move(result), queue_ns, gpu, copies);
}

void SessionPool::Release(size_t index, absl::Duration run) {
  MutexLock lock(&mutex_);
  session_busy_[index] = false;
  load_.Give(gpu_of_[index]);
  if (run > absl::ZeroDuration()) {
    // About the mean of the last eight runs.
    mean_run_ = timed_runs_ == 0 ? run : mean_run_ + (run - mean_run_) / 8;
    ++timed_runs_;
  }
}

void SessionPool::Answered() {
  MutexLock lock(&mutex_);
  --busy_;
}

void SessionPool::Worker() {
  // Waits until the head request can have a session: an idle one of the
  // least-loaded GPU (gpu_load.h); an inline run may hold one meanwhile.
  while (true) {
    Item item;
    int session = -1;
    {
      MutexLock lock(&mutex_);
      mutex_.Await(Condition(
          +[](SessionPool* p) ABSL_EXCLUSIVE_LOCKS_REQUIRED(p->mutex_) {
            return p->stopped_ || (!p->queue_.empty() && p->load_.Pick() >= 0);
          },
          this));
      if (stopped_) return;  // Drain() returned first: nothing is queued
      item = std::move(queue_.front());
      queue_.pop_front();
      session = TakeSessionLocked();
    }
    Serve(item, static_cast<size_t>(session));
    // Release the request and its callback (which may hold the last
    // reference to this pool's owner) before Drain() can see it answered.
    item = Item();
    Answered();
  }
}

void SessionPool::Sweeper() {
  // Answers queued requests whose deadline passed or that were cancelled,
  // without waiting for a session to free up.
  while (true) {
    std::vector<Item> expired;
    {
      MutexLock lock(&mutex_);
      if (stopped_) return;
      absl::Time next = absl::Now() + absl::Milliseconds(5);
      const absl::Time now = absl::Now();
      for (auto it = queue_.begin(); it != queue_.end();) {
        if (it->deadline < now || (it->cancelled && it->cancelled())) {
          expired.push_back(std::move(*it));
          it = queue_.erase(it);
        } else {
          next = std::min(next, it->deadline);
          ++it;
        }
      }
      if (expired.empty()) {
        mutex_.AwaitWithDeadline(Condition(&stopped_), next);
        continue;
      }
      busy_ += expired.size();  // so Drain() waits for these answers too
    }
    for (Item& item : expired) {
      const uint64_t queue_ns =
          static_cast<uint64_t>(absl::ToInt64Nanoseconds(absl::Now() - item.enqueued));
      if (item.cancelled && item.cancelled()) {
        item.done(absl::CancelledError("the request was cancelled before it ran"), queue_ns, -1,
                  CrossDeviceCopies());
      } else {
        item.done(absl::DeadlineExceededError("the request timed out waiting for a session"),
                  queue_ns, -1, CrossDeviceCopies());
      }
    }
    const size_t answered = expired.size();
    expired.clear();
    MutexLock lock(&mutex_);
    busy_ -= answered;
  }
}

void SessionPool::Drain() {
  MutexLock lock(&mutex_);
  draining_ = true;
  mutex_.Await(Condition(
      +[](SessionPool* p)
           ABSL_EXCLUSIVE_LOCKS_REQUIRED(p->mutex_) { return p->queue_.empty() && p->busy_ == 0; },
      this));
}

uint64_t SessionPool::inline_runs() const {
  MutexLock lock(&mutex_);
  return inline_runs_;
}

SchedulerStats SessionPool::stats() const {
  MutexLock lock(&mutex_);
  SchedulerStats stats{queue_.size(), 0, sessions_.size(), {}, {}};
  for (int g = 0; g < load_.gpus(); ++g) {
    stats.busy_sessions += static_cast<uint64_t>(load_.busy(g));
    stats.busy_by_gpu.push_back(static_cast<uint64_t>(load_.busy(g)));
    stats.sessions_by_gpu.push_back(static_cast<uint64_t>(load_.sessions(g)));
  }
  return stats;
}

}  // namespace vkserve
