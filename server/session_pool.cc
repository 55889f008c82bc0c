// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/session_pool.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "gpu/status_macros.h"
#include "server/queue_policy.h"

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
    if (r.sessions < 1) return absl::InvalidArgumentError("a pool needs at least one session per GPU");
    sessions_by_gpu.push_back(r.sessions);
  }
  auto pool = std::unique_ptr<SessionPool>(
      new SessionPool(replicas.front().model, options, std::move(sessions_by_gpu)));
  std::vector<int> gpu_of;
  for (size_t g = 0; g < replicas.size(); ++g) {
    for (int i = 0; i < replicas[g].sessions; ++i) {
      ASSIGN_OR_RETURN(auto session, Session::Create(replicas[g].model, session_options));
      pool->sessions_.push_back(std::move(session));
      gpu_of.push_back(static_cast<int>(g));
    }
  }
  for (size_t i = 0; i < pool->sessions_.size(); ++i) {
    pool->threads_.emplace_back(
        [p = pool.get(), s = pool->sessions_[i].get(), g = gpu_of[i]] { p->Worker(s, g); });
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
  Enqueue(std::move(request.run), deadline, std::move(request.cancelled),
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
          });
}

void SessionPool::Submit(RunRequest request, absl::Time deadline, std::function<bool()> cancelled,
                         RunCallback done) {
  Enqueue(std::move(request), deadline, std::move(cancelled),
          [done = std::move(done)](absl::StatusOr<RunResult> result, uint64_t queue_ns, int,
                                   const CrossDeviceCopies&) { done(std::move(result), queue_ns); });
}

void SessionPool::Enqueue(RunRequest request, absl::Time deadline, std::function<bool()> cancelled,
                          InfoCallback done) {
  absl::Status refused;
  {
    MutexLock lock(&mutex_);
    if (draining_) {
      refused = absl::UnavailableError("the model is being unloaded");
    } else if (options_.max_queue > 0 && queue_.size() >= static_cast<size_t>(options_.max_queue)) {
      refused = absl::ResourceExhaustedError(absl::StrCat(
          "the queue of model '", options_.name, "' is full (", options_.max_queue,
          " requests waiting)"));
    } else {
      queue_.push_back({std::move(request), deadline, absl::Now(), std::move(cancelled), std::move(done)});
      return;
    }
  }
  done(refused, 0, -1, CrossDeviceCopies());
}

void SessionPool::Worker(Session* session, int gpu) {
  // Waits until the head request is this GPU's to take: every worker of
  // the least-loaded GPU with a free session qualifies (gpu_load.h).
  struct Turn {
    SessionPool* pool;
    int gpu;
  } turn{this, gpu};
  while (true) {
    Item item;
    {
      MutexLock lock(&mutex_);
      mutex_.Await(Condition(
          +[](Turn* t) ABSL_EXCLUSIVE_LOCKS_REQUIRED(t->pool->mutex_) {
            return t->pool->stopped_ || (!t->pool->queue_.empty() && t->pool->load_.Pick() == t->gpu);
          },
          &turn));
      if (queue_.empty()) return;  // stopped
      item = std::move(queue_.front());
      queue_.pop_front();
      ++busy_;
      load_.Take(gpu);
    }
    const absl::Time now = absl::Now();
    const uint64_t queue_ns = static_cast<uint64_t>(absl::ToInt64Nanoseconds(now - item.enqueued));
    CrossDeviceCopies copies;
    if (now > item.deadline) {
      item.done(absl::DeadlineExceededError("the request timed out waiting for a session"), queue_ns,
                -1, copies);
    } else if (item.cancelled && item.cancelled()) {
      item.done(absl::CancelledError("the request was cancelled before it ran"), queue_ns, -1, copies);
    } else if (absl::Status local = LocalizeInputs(session->model().gpu().device, &item.request, &copies);
               !local.ok()) {
      item.done(local, queue_ns, -1, copies);  // did not run
    } else {
      item.done(session->Run(item.request), queue_ns, gpu, copies);
    }
    // Release the request and its callback (which may hold the last
    // reference to this pool's owner) before Drain() can see the session free.
    item = Item();
    copies = CrossDeviceCopies();
    MutexLock lock(&mutex_);
    --busy_;
    load_.Give(gpu);
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
      +[](SessionPool* p) ABSL_EXCLUSIVE_LOCKS_REQUIRED(p->mutex_) {
        return p->queue_.empty() && p->busy_ == 0;
      },
      this));
}

SchedulerStats SessionPool::stats() const {
  MutexLock lock(&mutex_);
  SchedulerStats stats{queue_.size(), busy_, sessions_.size(), {}, {}};
  for (int g = 0; g < load_.gpus(); ++g) {
    stats.busy_by_gpu.push_back(static_cast<uint64_t>(load_.busy(g)));
    stats.sessions_by_gpu.push_back(static_cast<uint64_t>(load_.sessions(g)));
  }
  return stats;
}

}  // namespace vkserve
