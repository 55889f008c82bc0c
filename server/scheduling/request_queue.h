// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// RequestQueue: the requests a Scheduler (scheduler.h) has accepted and not
// yet answered, and every rule about them that does not depend on how they
// run. As Triton's PriorityQueue (scheduler_utils.h): one FIFO per priority
// level, each with its queue policy (dynamic_batching's default_queue_policy,
// priority_levels, default_priority_level, priority_queue_policy: max size,
// default timeout, override), level 1 served first. It decides a request's
// level and deadline, refuses it when its level is full (RESOURCE_EXHAUSTED)
// or the queue is closed (UNAVAILABLE), answers those whose deadline passes
// or that are cancelled before they run (Sweep, and CheckAtRun as a run
// starts), and counts every accepted request until it is answered, for the
// scheduler's Drain(). The outcome messages are written here once; the
// scheduler names what a request waits for ("a session", "its batch").
// Which requests run, and when, is the scheduler's (Take, then Answer).
//
// Thread-safe. Callbacks run on the thread that refuses, sweeps or answers,
// never under the queue's lock.
#ifndef VKSERVE_SERVER_SCHEDULING_REQUEST_QUEUE_H_
#define VKSERVE_SERVER_SCHEDULING_REQUEST_QUEUE_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "base/mutex.h"
#include "config/model_config.h"
#include "runtime/cross_device_inputs.h"
#include "server/scheduling/scheduler.h"

namespace vkserve {

using QueuePolicy = ModelSettings::QueuePolicy;

// How often a scheduler checks queued requests for cancellation: the
// client's flag is polled, it does not wake the scheduler.
inline constexpr absl::Duration kCancelPoll = absl::Milliseconds(5);

// One accepted request and how it is answered.
struct QueuedRequest {
  SchedulerRequest request;
  Scheduler::Callback done;
  absl::Time submitted;
  absl::Time deadline = absl::InfiniteFuture();
  int level = 0;  // index into the queue's levels, 0 = served first
  // The scheduler's own notes: the batch it may join (nullopt: runs alone),
  // whether it may go without waiting for company, and the inputs copied
  // to the GPU that runs it.
  std::optional<std::string> key;
  bool skip_wait = false;
  CrossDeviceCopies copies;
};

class RequestQueue {
 public:
  // The queues of one level, arrival order.
  using Levels = std::vector<std::deque<QueuedRequest>>;
  // (level, index) of a queued request.
  using Pick = std::pair<size_t, size_t>;

  // `settings` gives the model's name, priority levels and queue policies;
  // `waiting_for` ends the timeout message ("the request timed out waiting
  // for <waiting_for>").
  RequestQueue(const ModelSettings& settings, std::string waiting_for);

  // `request` as queued at `now`: its level and its deadline under that
  // level's policy.
  QueuedRequest Prepare(SchedulerRequest request, Scheduler::Callback done, absl::Time now) const;

  // Queues `item`, counted as accepted until answered (AwaitAnswered waits
  // for it); or answers it UNAVAILABLE when the queue is closed, or
  // RESOURCE_EXHAUSTED when its level is full, and returns false.
  bool Queue(QueuedRequest item);
  // Counts one request as accepted without queueing it, for a scheduler
  // that runs it at once on the caller's thread: only while the queue is
  // open, nothing is queued (it overtakes none) and `may_skip` (called under
  // the queue's lock) agrees. False: nothing counted; Queue it instead. The
  // scheduler answers it through Answer.
  bool Admit(const std::function<bool()>& may_skip);

  // The requests `choose` picks (in the order it lists them) from the
  // queues it is shown, under the queue's lock.
  std::vector<QueuedRequest> Take(const std::function<std::vector<Pick>(const Levels&)>& choose);

  // Answers and removes every queued request whose deadline has passed by
  // `now` or that was cancelled; returns the earliest deadline left (or an
  // earlier time). Schedulers call it on every pass, so it walks the queue
  // only when a deadline is due or kCancelPoll has passed since its last
  // walk: cancellation is polled at that period, and CheckAtRun catches a
  // request cancelled in between.
  absl::Time Sweep(absl::Time now);
  // Why a request taken from the queue must not run at `now`
  // (DEADLINE_EXCEEDED, CANCELLED), or OK.
  absl::Status CheckAtRun(const QueuedRequest& item, absl::Time now) const;

  // Answers `item` (taken, or admitted) and releases it; the last answer
  // lets AwaitAnswered return.
  void Answer(QueuedRequest& item, absl::StatusOr<RunResult> result, const ExecutionInfo& info);

  // Stops accepting (UNAVAILABLE from then on).
  void Close();
  // Blocks until every accepted request has been answered.
  void AwaitAnswered() const;

  bool closed() const;
  // How many wait now; a snapshot, read without the queue's lock.
  size_t queued() const { return queued_.load(std::memory_order_relaxed); }
  int levels() const { return static_cast<int>(policies_.size()); }

 private:
  static bool Cancelled(const QueuedRequest& item) {
    return item.request.cancelled && item.request.cancelled();
  }
  absl::Status TimedOut() const;

  const std::string name_;
  const std::string waiting_for_;
  const int priority_levels_;  // 0: none
  const int default_level_;    // index of default_priority_level
  const std::vector<QueuePolicy> policies_;

  mutable Mutex mutex_;
  Levels queues_ ABSL_GUARDED_BY(mutex_);
  // Written under mutex_; queued() reads it without.
  std::atomic<size_t> queued_ = 0;
  bool closed_ ABSL_GUARDED_BY(mutex_) = false;
  // Sweep's: no queued deadline is before `earliest_deadline_`, and no walk
  // is needed for cancellations before `next_walk_`.
  absl::Time earliest_deadline_ ABSL_GUARDED_BY(mutex_) = absl::InfiniteFuture();
  absl::Time next_walk_ ABSL_GUARDED_BY(mutex_) = absl::InfinitePast();
  // Accepted, not yet answered. Atomic so that an answer takes no lock
  // (Answer); AwaitAnswered reads it under mutex_, which the last answer
  // takes once so that the waiter looks again.
  std::atomic<uint64_t> outstanding_ = 0;
};

// Nanoseconds from `from` to `to`, 0 when negative.
uint64_t NanosBetween(absl::Time from, absl::Time to);

}  // namespace vkserve

#endif  // VKSERVE_SERVER_SCHEDULING_REQUEST_QUEUE_H_
