// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// RequestQueue on its own, no GPU: priority order, queue policy (max size,
// default timeout, override; timed-out requests are rejected), cancellation
// before a run, drain, and the outcome each refusal gets.
#include "server/scheduling/request_queue.h"

#include <atomic>
#include <thread>

#include "gtest/gtest.h"

namespace vkserve {
namespace {

// What one request was answered, filled in by its callback.
struct Answer {
  int calls = 0;
  absl::Status status;
  uint64_t queue_ns = 0;
};

// A request tagged with `id` (its batch_size) at `priority`.
QueuedRequest Make(const RequestQueue& queue, int id, uint64_t priority, Answer* answer,
                   absl::Time now, std::function<bool()> cancelled = nullptr) {
  SchedulerRequest request;
  request.batch_size = id;
  request.priority = priority;
  request.cancelled = std::move(cancelled);
  return queue.Prepare(
      std::move(request),
      [answer](absl::StatusOr<RunResult> result, const ExecutionInfo& info) {
        ++answer->calls;
        answer->status = result.status();
        answer->queue_ns = info.queue_ns;
      },
      now);
}

// Queues `item`, as a scheduler's Submit does.
bool Push(RequestQueue& queue, QueuedRequest item) { return queue.Queue(std::move(item)); }

// The oldest request of the highest non-empty level, if any.
std::optional<QueuedRequest> TakeHead(RequestQueue& queue) {
  std::vector<QueuedRequest> taken = queue.Take([](const RequestQueue::Levels& levels) {
    for (size_t l = 0; l < levels.size(); ++l) {
      if (!levels[l].empty()) return std::vector<RequestQueue::Pick>{{l, 0}};
    }
    return std::vector<RequestQueue::Pick>{};
  });
  if (taken.empty()) return std::nullopt;
  return std::move(taken.front());
}

ModelSettings Settings() {
  ModelSettings settings;
  settings.name = "m";
  settings.max_queue_size = 0;  // unbounded
  return settings;
}

// The ids TakeHead returns until the queue is empty.
std::vector<int64_t> Drained(RequestQueue& queue, std::vector<QueuedRequest>* taken) {
  std::vector<int64_t> ids;
  while (std::optional<QueuedRequest> item = TakeHead(queue)) {
    ids.push_back(item->request.batch_size);
    taken->push_back(std::move(*item));
  }
  return ids;
}

TEST(RequestQueueTest, HighestLevelFirstThenArrivalOrder) {
  ModelSettings settings = Settings();
  settings.priority_levels = 3;
  settings.default_priority_level = 2;
  RequestQueue queue(settings, "its batch");
  ASSERT_EQ(queue.levels(), 3);
  const absl::Time now = absl::Now();
  Answer a[6];
  // Priority 0 and out-of-range priorities wait at the default level (2).
  const uint64_t priorities[] = {3, 1, 0, 2, 1, 9};
  for (int i = 0; i < 6; ++i) {
    ASSERT_TRUE(Push(queue, Make(queue, i, priorities[i], &a[i], now)));
  }
  EXPECT_EQ(queue.queued(), 6u);
  std::vector<QueuedRequest> taken;
  EXPECT_EQ(Drained(queue, &taken), (std::vector<int64_t>{1, 4, 2, 3, 5, 0}));
  EXPECT_EQ(queue.queued(), 0u);
  for (QueuedRequest& item : taken) queue.Answer(item, absl::InternalError("x"), {});
  for (const Answer& answer : a) EXPECT_EQ(answer.calls, 1);
  queue.Close();
  queue.AwaitAnswered();  // every accepted request is answered: returns at once
}

TEST(RequestQueueTest, TakeRemovesWhatTheChooserPicks) {
  RequestQueue queue(Settings(), "its batch");
  const absl::Time now = absl::Now();
  Answer a[4];
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(Push(queue, Make(queue, i, 0, &a[i], now)));
  std::vector<QueuedRequest> picked = queue.Take([](const RequestQueue::Levels& levels) {
    EXPECT_EQ(levels.size(), 1u);
    return std::vector<RequestQueue::Pick>{{0, 2}, {0, 0}};
  });
  ASSERT_EQ(picked.size(), 2u);
  EXPECT_EQ(picked[0].request.batch_size, 2);  // in the order chosen
  EXPECT_EQ(picked[1].request.batch_size, 0);
  std::vector<QueuedRequest> rest;
  EXPECT_EQ(Drained(queue, &rest), (std::vector<int64_t>{1, 3}));
  for (auto* items : {&picked, &rest}) {
    for (QueuedRequest& item : *items) queue.Answer(item, absl::InternalError("x"), {});
  }
}

TEST(RequestQueueTest, FullLevelIsRefusedOthersStillAccept) {
  ModelSettings settings = Settings();
  settings.priority_levels = 2;
  settings.default_priority_level = 2;
  settings.priority_queue_policies[1] = {2, absl::ZeroDuration(), false};
  RequestQueue queue(settings, "its batch");
  const absl::Time now = absl::Now();
  Answer a[4];
  EXPECT_TRUE(Push(queue, Make(queue, 0, 1, &a[0], now)));
  EXPECT_TRUE(Push(queue, Make(queue, 1, 1, &a[1], now)));
  EXPECT_FALSE(Push(queue, Make(queue, 2, 1, &a[2], now)));
  EXPECT_EQ(a[2].calls, 1);
  EXPECT_EQ(a[2].status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(a[2].status.message(),
            "the queue of model 'm' is full (2 requests waiting at priority level 1)");
  EXPECT_TRUE(Push(queue, Make(queue, 3, 2, &a[3], now)));  // level 2 is unbounded
  EXPECT_EQ(queue.queued(), 3u);
  queue.Sweep(now + absl::Hours(1000));  // no deadline: nothing expires
  EXPECT_EQ(queue.queued(), 3u);
}

TEST(RequestQueueTest, OneLevelNamesNoLevelWhenFull) {
  ModelSettings settings = Settings();
  settings.max_queue_size = 1;
  RequestQueue queue(settings, "a session");
  Answer a[2];
  EXPECT_TRUE(Push(queue, Make(queue, 0, 0, &a[0], absl::Now())));
  EXPECT_FALSE(Push(queue, Make(queue, 1, 0, &a[1], absl::Now())));
  EXPECT_EQ(a[1].status.message(), "the queue of model 'm' is full (1 requests waiting)");
  EXPECT_EQ(a[0].calls, 0);
}

TEST(RequestQueueTest, PolicyTimeoutRejectsAndOverrideReplacesIt) {
  ModelSettings settings = Settings();
  settings.priority_levels = 3;
  settings.default_priority_level = 1;
  // Level 1: 10 ms, not overridable. Level 2: 10 ms, overridable. Level 3:
  // no default timeout.
  settings.priority_queue_policies[1] = {0, absl::Milliseconds(10), false};
  settings.priority_queue_policies[2] = {0, absl::Milliseconds(10), true};
  settings.priority_queue_policies[3] = {0, absl::ZeroDuration(), false};
  RequestQueue queue(settings, "a session");
  const absl::Time t0 = absl::FromUnixSeconds(1000);
  Answer a[4];
  auto with_timeout = [&](int id, uint64_t priority, absl::Duration timeout) {
    QueuedRequest item = Make(queue, id, priority, &a[id], t0);
    SchedulerRequest request = item.request;
    request.timeout = timeout;
    return queue.Prepare(std::move(request), std::move(item.done), t0);
  };
  QueuedRequest fixed = with_timeout(0, 1, absl::Seconds(1));
  QueuedRequest overridden = with_timeout(1, 2, absl::Seconds(1));
  QueuedRequest own = with_timeout(2, 3, absl::Milliseconds(30));
  QueuedRequest none = Make(queue, 3, 3, &a[3], t0);
  EXPECT_EQ(fixed.deadline, t0 + absl::Milliseconds(10));
  EXPECT_EQ(overridden.deadline, t0 + absl::Seconds(1));
  EXPECT_EQ(own.deadline, t0 + absl::Milliseconds(30));
  EXPECT_EQ(none.deadline, absl::InfiniteFuture());
  for (QueuedRequest* item : {&fixed, &overridden, &own, &none}) {
    ASSERT_TRUE(Push(queue, std::move(*item)));
  }
  // 20 ms in: only the fixed 10 ms policy has passed; the next deadline is
  // the request's own 30 ms.
  EXPECT_EQ(queue.Sweep(t0 + absl::Milliseconds(20)), t0 + absl::Milliseconds(30));
  EXPECT_EQ(a[0].calls, 1);
  EXPECT_EQ(a[0].status.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(a[0].status.message(), "the request timed out waiting for a session");
  EXPECT_EQ(a[0].queue_ns, 20'000'000u);
  EXPECT_EQ(a[1].calls + a[2].calls + a[3].calls, 0);
  EXPECT_EQ(queue.Sweep(t0 + absl::Milliseconds(40)), t0 + absl::Seconds(1));
  EXPECT_EQ(a[2].status.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(queue.queued(), 2u);
}

TEST(RequestQueueTest, CancelledBeforeItRuns) {
  RequestQueue queue(Settings(), "its batch");
  std::atomic<bool> cancel_first = false;
  std::atomic<bool> cancel_second = false;
  Answer a[2];
  const absl::Time now = absl::Now();
  ASSERT_TRUE(Push(queue, Make(queue, 0, 0, &a[0], now, [&] { return cancel_first.load(); })));
  ASSERT_TRUE(Push(queue, Make(queue, 1, 0, &a[1], now, [&] { return cancel_second.load(); })));
  // Queued: the sweep answers it.
  cancel_first = true;
  queue.Sweep(now);
  EXPECT_EQ(a[0].status.code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(a[0].status.message(), "the request was cancelled before it ran");
  // Taken, then cancelled before its run starts: the run-time check says so.
  std::optional<QueuedRequest> taken = TakeHead(queue);
  ASSERT_TRUE(taken.has_value());
  EXPECT_TRUE(queue.CheckAtRun(*taken, now).ok());
  cancel_second = true;
  EXPECT_EQ(queue.CheckAtRun(*taken, now).code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(a[1].calls, 0);  // CheckAtRun answers nothing itself
  queue.Answer(*taken, queue.CheckAtRun(*taken, now), {});
  EXPECT_EQ(a[1].calls, 1);
}

TEST(RequestQueueTest, SweepPollsCancellationAtItsPeriodAndDeadlinesWhenDue) {
  // Schedulers sweep on every pass: between walks a sweep costs nothing,
  // so a cancellation waits up to kCancelPoll, a due deadline does not.
  ModelSettings settings = Settings();
  settings.default_timeout = absl::Milliseconds(2);
  RequestQueue queue(settings, "a session");
  const absl::Time t0 = absl::FromUnixSeconds(1000);
  std::atomic<bool> cancel = false;
  Answer a[2];
  QueuedRequest cancelled = Make(queue, 0, 0, &a[0], t0, [&] { return cancel.load(); });
  cancelled.deadline = absl::InfiniteFuture();
  ASSERT_TRUE(Push(queue, std::move(cancelled)));
  EXPECT_EQ(queue.Sweep(t0), absl::InfiniteFuture());  // walks: nothing due
  cancel = true;
  EXPECT_EQ(queue.Sweep(t0 + kCancelPoll / 2), absl::InfiniteFuture());
  EXPECT_EQ(a[0].calls, 0);  // not polled yet
  // A request arriving with a deadline makes the sweep walk once it is due.
  ASSERT_TRUE(Push(queue, Make(queue, 1, 0, &a[1], t0 + kCancelPoll / 2)));
  const absl::Time due = t0 + kCancelPoll / 2 + absl::Milliseconds(2);
  EXPECT_EQ(queue.Sweep(due - absl::Nanoseconds(1)), due);
  EXPECT_EQ(a[1].calls, 0);
  queue.Sweep(due);
  EXPECT_EQ(a[1].status.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(a[0].status.code(), absl::StatusCode::kCancelled);  // the same walk
  EXPECT_EQ(queue.queued(), 0u);
}

TEST(RequestQueueTest, DrainRefusesNewAndWaitsForAccepted) {
  RequestQueue queue(Settings(), "a session");
  Answer a[3];
  ASSERT_TRUE(Push(queue, Make(queue, 0, 0, &a[0], absl::Now())));
  std::optional<QueuedRequest> running = TakeHead(queue);
  ASSERT_TRUE(running.has_value());
  std::atomic<bool> drained = false;
  std::thread drain([&] {
    queue.Close();
    queue.AwaitAnswered();
    drained = true;
  });
  while (!queue.closed()) absl::SleepFor(absl::Milliseconds(1));
  EXPECT_FALSE(Push(queue, Make(queue, 1, 0, &a[1], absl::Now())));
  EXPECT_EQ(a[1].status.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(a[1].status.message(), "the model is being unloaded");
  EXPECT_FALSE(queue.Admit([] { return true; }));  // no inline run past a drain
  absl::SleepFor(absl::Milliseconds(20));
  EXPECT_FALSE(drained.load());  // the taken request is still unanswered
  queue.Answer(*running, absl::InternalError("x"), {});
  drain.join();
  EXPECT_TRUE(drained.load());
  EXPECT_EQ(a[0].calls, 1);
}

TEST(RequestQueueTest, AdmitOnlyWhileNothingIsQueued) {
  RequestQueue queue(Settings(), "a session");
  EXPECT_FALSE(queue.Admit([] { return false; }));
  EXPECT_TRUE(queue.Admit([] { return true; }));
  Answer a;
  ASSERT_TRUE(Push(queue, Make(queue, 0, 0, &a, absl::Now())));
  int asked = 0;
  EXPECT_FALSE(queue.Admit([&] { return ++asked > 0; }));
  EXPECT_EQ(asked, 0);  // not asked: it would overtake the queued request
  queue.Sweep(absl::Now());
  std::optional<QueuedRequest> item = TakeHead(queue);
  ASSERT_TRUE(item.has_value());
  queue.Answer(*item, absl::InternalError("x"), {});
  // The admitted request is still accepted: a drain waits for its answer.
  queue.Close();
  std::atomic<bool> drained = false;
  std::thread drain([&] {
    queue.AwaitAnswered();
    drained = true;
  });
  absl::SleepFor(absl::Milliseconds(20));
  EXPECT_FALSE(drained.load());
  QueuedRequest admitted;
  admitted.done = [](absl::StatusOr<RunResult>, const ExecutionInfo&) {};
  queue.Answer(admitted, absl::InternalError("x"), {});
  drain.join();
}

}  // namespace
}  // namespace vkserve
