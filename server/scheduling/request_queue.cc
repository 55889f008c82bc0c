// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/scheduling/request_queue.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"

namespace vkserve {
namespace {

// The queue policy of each level, index 0 = level 1; one entry, the
// default policy, when the model has no priority levels.
std::vector<QueuePolicy> LevelPolicies(const ModelSettings& settings) {
  const QueuePolicy fallback{settings.max_queue_size, settings.default_timeout,
                             settings.allow_timeout_override};
  std::vector<QueuePolicy> levels(static_cast<size_t>(std::max(1, settings.priority_levels)),
                                  fallback);
  for (const auto& [level, policy] : settings.priority_queue_policies) {
    if (level >= 1 && level <= static_cast<int>(levels.size())) {
      levels[static_cast<size_t>(level - 1)] = policy;
    }
  }
  return levels;
}

}  // namespace

uint64_t NanosBetween(absl::Time from, absl::Time to) {
  return static_cast<uint64_t>(std::max<int64_t>(absl::ToInt64Nanoseconds(to - from), 0));
}

RequestQueue::RequestQueue(const ModelSettings& settings, std::string waiting_for)
    : name_(settings.name),
      waiting_for_(std::move(waiting_for)),
      priority_levels_(settings.priority_levels),
      default_level_(std::max(settings.default_priority_level, 1) - 1),
      policies_(LevelPolicies(settings)),
      queues_(policies_.size()) {}

QueuedRequest RequestQueue::Prepare(SchedulerRequest request, Scheduler::Callback done,
                                    absl::Time now) const {
  QueuedRequest item;
  item.submitted = now;
  // 0 and out-of-range priorities take default_priority_level (Triton's
  // rule).
  const bool own_level = request.priority > 0 && priority_levels_ > 0 &&
                         request.priority <= static_cast<uint64_t>(priority_levels_);
  item.level = priority_levels_ <= 0 ? 0
               : own_level           ? static_cast<int>(request.priority) - 1
                                     : default_level_;
  // The client's deadline, brought closer by the policy's default timeout,
  // which the request's own "timeout" replaces when the policy has none or
  // allows overriding it.
  const QueuePolicy& policy = policies_[static_cast<size_t>(item.level)];
  std::optional<absl::Duration> timeout;
  if (policy.default_timeout > absl::ZeroDuration()) timeout = policy.default_timeout;
  if (request.timeout && (!timeout || policy.allow_timeout_override)) timeout = request.timeout;
  item.deadline = request.deadline;
  if (timeout) item.deadline = std::min(item.deadline, now + *timeout);
  item.request = std::move(request);
  item.done = std::move(done);
  return item;
}

bool RequestQueue::Queue(QueuedRequest item) {
  const QueuePolicy& policy = policies_[static_cast<size_t>(item.level)];
  absl::Status refused;
  {
    MutexLock lock(&mutex_);
    ++outstanding_;  // answered below if refused, as every accepted request is
    std::deque<QueuedRequest>& queue = queues_[static_cast<size_t>(item.level)];
    if (closed_) {
      refused = absl::UnavailableError("the model is being unloaded");
    } else if (policy.max_queue_size <= 0 ||
               static_cast<int64_t>(queue.size()) < policy.max_queue_size) {
      earliest_deadline_ = std::min(earliest_deadline_, item.deadline);
      queue.push_back(std::move(item));
      ++queued_;
      return true;
    } else {
      const std::string level =
          policies_.size() > 1 ? absl::StrCat(" at priority level ", item.level + 1) : "";
      refused = absl::ResourceExhaustedError(absl::StrCat("the queue of model '", name_,
                                                          "' is full (", policy.max_queue_size,
                                                          " requests waiting", level, ")"));
    }
  }
  Answer(item, std::move(refused), ExecutionInfo{});
  return false;
}

bool RequestQueue::Admit(const std::function<bool()>& may_skip) {
  MutexLock lock(&mutex_);
  if (closed_ || queued_ > 0 || !may_skip()) return false;
  ++outstanding_;
  return true;
}

std::vector<QueuedRequest> RequestQueue::Take(
    const std::function<std::vector<Pick>(const Levels&)>& choose) {
  MutexLock lock(&mutex_);
  std::vector<Pick> picks = choose(queues_);
  std::vector<QueuedRequest> taken;
  for (auto [l, i] : picks) taken.push_back(std::move(queues_[l][i]));
  // Erased back to front so that earlier indices stay valid.
  std::sort(picks.begin(), picks.end());
  for (auto it = picks.rbegin(); it != picks.rend(); ++it) {
    queues_[it->first].erase(queues_[it->first].begin() + static_cast<std::ptrdiff_t>(it->second));
  }
  queued_ -= picks.size();
  return taken;
}

absl::Time RequestQueue::Sweep(absl::Time now) {
  absl::Time earliest = absl::InfiniteFuture();
  std::vector<QueuedRequest> expired;
  {
    MutexLock lock(&mutex_);
    if (now < next_walk_ && now < earliest_deadline_) return earliest_deadline_;
    next_walk_ = now + kCancelPoll;
    for (std::deque<QueuedRequest>& queue : queues_) {
      for (auto it = queue.begin(); it != queue.end();) {
        if (it->deadline <= now || Cancelled(*it)) {
          expired.push_back(std::move(*it));
          it = queue.erase(it);
        } else {
          earliest = std::min(earliest, it->deadline);
          ++it;
        }
      }
    }
    queued_ -= expired.size();
    earliest_deadline_ = earliest;
  }
  for (QueuedRequest& item : expired) {
    ExecutionInfo info;
    info.queue_ns = NanosBetween(item.submitted, now);
    Answer(item,
           Cancelled(item) ? absl::CancelledError("the request was cancelled before it ran")
                           : TimedOut(),
           info);
  }
  return earliest;
}

absl::Status RequestQueue::CheckAtRun(const QueuedRequest& item, absl::Time now) const {
  if (item.deadline <= now) return TimedOut();
  if (Cancelled(item)) return absl::CancelledError("the request was cancelled before it ran");
  return absl::OkStatus();
}

absl::Status RequestQueue::TimedOut() const {
  return absl::DeadlineExceededError(
      absl::StrCat("the request timed out waiting for ", waiting_for_));
}

void RequestQueue::Answer(QueuedRequest& item, absl::StatusOr<RunResult> result,
                          const ExecutionInfo& info) {
  Scheduler::Callback done = std::move(item.done);
  done(std::move(result), info);
  // Release the callback and the request (which may hold the last reference
  // to the scheduler's owner) before Drain() can see the request answered.
  done = nullptr;
  item = QueuedRequest();
  if (outstanding_.fetch_sub(1) == 1) {
    // The last one: AwaitAnswered's condition is evaluated again as the
    // lock is released.
    MutexLock lock(&mutex_);
  }
}

void RequestQueue::Close() {
  MutexLock lock(&mutex_);
  closed_ = true;
}

void RequestQueue::AwaitAnswered() const {
  MutexLock lock(&mutex_);
  mutex_.Await(Condition(
      +[](const std::atomic<uint64_t>* outstanding) { return outstanding->load() == 0; },
      &outstanding_));
}

bool RequestQueue::closed() const {
  MutexLock lock(&mutex_);
  return closed_;
}

}  // namespace vkserve
