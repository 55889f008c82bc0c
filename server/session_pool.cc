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
  if (options.max_queue < 0) return absl::InvalidArgumentError("queue size must not be negative");
  auto pool = std::unique_ptr<SessionPool>(new SessionPool(model, options));
  for (int i = 0; i < options.sessions; ++i) {
    ASSIGN_OR_RETURN(auto session, Session::Create(model, session_options));
    pool->sessions_.push_back(std::move(session));
  }
  for (auto& session : pool->sessions_) {
    pool->threads_.emplace_back([p = pool.get(), s = session.get()] { p->Worker(s); });
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
  Submit(std::move(request.run), deadline, std::move(request.cancelled),
         [batch, done = std::move(done)](absl::StatusOr<RunResult> result, uint64_t queue_ns) {
           ExecutionInfo info;
           info.queue_ns = queue_ns;
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
  done(refused, 0);
}

void SessionPool::Worker(Session* session) {
  while (true) {
    Item item;
    {
      MutexLock lock(&mutex_);
      mutex_.Await(Condition(
          +[](SessionPool* p) ABSL_EXCLUSIVE_LOCKS_REQUIRED(p->mutex_) {
            return !p->queue_.empty() || p->stopped_;
          },
          this));
      if (queue_.empty()) return;  // stopped
      item = std::move(queue_.front());
      queue_.pop_front();
      ++busy_;
    }
    const absl::Time now = absl::Now();
    const uint64_t queue_ns = static_cast<uint64_t>(absl::ToInt64Nanoseconds(now - item.enqueued));
    if (now > item.deadline) {
      item.done(absl::DeadlineExceededError("the request timed out waiting for a session"), queue_ns);
    } else if (item.cancelled && item.cancelled()) {
      item.done(absl::CancelledError("the request was cancelled before it ran"), queue_ns);
    } else {
      item.done(session->Run(item.request), queue_ns);
    }
    // Release the request and its callback (which may hold the last
    // reference to this pool's owner) before Drain() can see the session free.
    item = Item();
    MutexLock lock(&mutex_);
    --busy_;
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
        item.done(absl::CancelledError("the request was cancelled before it ran"), queue_ns);
      } else {
        item.done(absl::DeadlineExceededError("the request timed out waiting for a session"),
                  queue_ns);
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
  return {queue_.size(), busy_, sessions_.size()};
}

}  // namespace vkserve
