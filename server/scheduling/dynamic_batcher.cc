// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/scheduling/dynamic_batcher.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "base/status_macros.h"
#include "base/unshared_status.h"
#include "boost/asio/post.hpp"
#include "server/scheduling/batch_key.h"
#include "server/scheduling/warmup_runs.h"
#include "spdlog/spdlog.h"

namespace vkserve {
namespace {

// Lone requests (dynamic_batcher.h): after this many batches in a row that
// waited out the delay alone, lone requests stop waiting; one in
// kProbeEvery still waits.
constexpr int kFruitlessWaits = 8;
constexpr uint64_t kProbeEvery = 16;

// Batch sizes planned ahead at once (PlanAhead).
constexpr size_t kMaxPlansAhead = 4;

std::vector<int> SortedUnique(std::vector<int> sizes) {
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

}  // namespace

DynamicBatcher::DynamicBatcher(std::shared_ptr<const Model> model, const ModelSettings& settings,
                               std::vector<int> sessions_by_gpu, absl::Duration inline_max_run)
    : model_(std::move(model)),
      name_(settings.name),
      max_batch_size_(settings.max_batch_size),
      preferred_(SortedUnique(settings.preferred_batch_sizes)),
      max_delay_(settings.max_queue_delay),
      batching_(settings.max_batch_size > 0),
      inline_max_run_(inline_max_run),
      queue_(settings, batching_ ? "its batch" : "a session"),
      idle_(sessions_by_gpu.size()),
      load_(sessions_by_gpu),
      pacing_(static_cast<int>(sessions_by_gpu.size())),
      busy_by_gpu_(sessions_by_gpu.size(), 0) {}

absl::StatusOr<std::unique_ptr<DynamicBatcher>> DynamicBatcher::Create(
    std::shared_ptr<const Model> model, const ModelSettings& settings,
    const SessionOptions& session_options) {
  if (settings.max_batch_size < 1) {
    return absl::InvalidArgumentError("dynamic batching needs max_batch_size > 0");
  }
  return Create({ModelReplica{std::move(model), std::max(1, settings.sessions)}}, settings,
                session_options);
}

absl::StatusOr<std::unique_ptr<DynamicBatcher>> DynamicBatcher::Create(
    std::vector<ModelReplica> replicas, const ModelSettings& settings,
    const SessionOptions& session_options, std::shared_ptr<const WarmupRuns> warmup) {
  if (settings.max_batch_size < 1) {
    return absl::InvalidArgumentError("dynamic batching needs max_batch_size > 0");
  }
  return Build(std::move(replicas), settings, session_options, std::move(warmup),
               absl::ZeroDuration(), "a batcher");
}

absl::StatusOr<std::unique_ptr<DynamicBatcher>> DynamicBatcher::CreateUnbatched(
    std::vector<ModelReplica> replicas, ModelSettings settings,
    const SessionOptions& session_options, std::shared_ptr<const WarmupRuns> warmup,
    absl::Duration inline_max_run) {
  settings.max_batch_size = 0;
  settings.preferred_batch_sizes.clear();
  settings.max_queue_delay = absl::ZeroDuration();
  return Build(std::move(replicas), settings, session_options, std::move(warmup), inline_max_run,
               "a pool");
}

absl::StatusOr<std::unique_ptr<DynamicBatcher>> DynamicBatcher::Build(
    std::vector<ModelReplica> replicas, const ModelSettings& settings,
    const SessionOptions& session_options, std::shared_ptr<const WarmupRuns> warmup,
    absl::Duration inline_max_run, std::string_view scheduler) {
  ASSIGN_OR_RETURN(std::vector<int> sessions_by_gpu, SessionsByGpu(replicas, scheduler));
  auto batcher = std::unique_ptr<DynamicBatcher>(
      new DynamicBatcher(replicas.front().model, settings, sessions_by_gpu, inline_max_run));
  std::shared_ptr<const WarmupRuns> targets;
  if (batcher->batching_) {
    ASSIGN_OR_RETURN(targets, batcher->PaddingTargets(*replicas.front().model, warmup.get()));
  }
  // The warm-up's plans first, side by side (WarmupRuns::Plan): the
  // sessions' warm-up then finds them built, and records and runs them.
  for (const ModelReplica& replica : replicas) {
    if (warmup != nullptr) RETURN_IF_ERROR(warmup->Plan(*replica.model));
    if (targets != nullptr) RETURN_IF_ERROR(targets->Plan(*replica.model));
  }
  ASSIGN_OR_RETURN(ReplicaSessions made,
                   CreateSessions(replicas, session_options, [&](Session& session) {
                     if (warmup != nullptr) RETURN_IF_ERROR(warmup->RunOn(session));
                     return targets == nullptr ? absl::OkStatus() : targets->RunOn(session);
                   }));
  {
    MutexLock lock(&batcher->mutex_);
    for (size_t i = 0; i < made.sessions.size(); ++i) {
      batcher->idle_[static_cast<size_t>(made.gpu_of[i])].push_back(made.sessions[i].get());
    }
  }
  batcher->sessions_ = std::move(made.sessions);
  // Two runners per session: one runs the session's next batch while the
  // other answers its last (Run).
  batcher->runners_.emplace(2 * batcher->sessions_.size());
  batcher->work_.emplace(boost::asio::make_work_guard(batcher->io_));
  batcher->io_thread_ = std::thread([b = batcher.get()] { b->io_.run(); });
  return batcher;
}

absl::StatusOr<std::shared_ptr<const WarmupRuns>> DynamicBatcher::PaddingTargets(
    const Model& model, const WarmupRuns* warmup) const {
  // Samples differing only in batch size plan once.
  std::set<std::vector<std::vector<int64_t>>> bases;
  if (warmup != nullptr && !warmup->empty()) {
    for (std::vector<std::vector<int64_t>> shapes : warmup->Shapes()) {
      for (std::vector<int64_t>& s : shapes) {
        if (!s.empty()) s[0] = 0;
      }
      bases.insert(std::move(shapes));
    }
  } else {
    bases.insert(model.DefaultInputShapes());
  }
  // The largest batch the batcher forms is always planned, so any smaller
  // one can be padded to a planned size.
  const std::vector<int> sizes =
      preferred_.empty() ? std::vector<int>{static_cast<int>(max_batch_size_)} : preferred_;
  std::vector<std::vector<std::vector<int64_t>>> shapes;
  std::vector<std::string> labels;
  for (const std::vector<std::vector<int64_t>>& base : bases) {
    for (int size : sizes) {
      std::vector<std::vector<int64_t>> at = base;
      for (size_t i = 0; i < at.size(); ++i) {
        if (at[i].empty()) {
          return absl::InvalidArgumentError(absl::StrCat(
              "input '", model.inputs()[i].name, "' has no batch dimension to batch along"));
        }
        at[i][0] = size;
      }
      shapes.push_back(std::move(at));
      labels.push_back(absl::StrCat("warming up preferred batch size ", size));
    }
  }
  return WarmupRuns::Zeros(model, shapes, labels);
}

DynamicBatcher::~DynamicBatcher() {
  Drain();
  // Every request is answered; runners may still hand their session back.
  if (runners_) runners_->join();
  planner_.stop();  // plans not started yet are not needed any more
  planner_.join();
  work_.reset();
  io_.stop();  // drops the timer's wait
  if (io_thread_.joinable()) io_thread_.join();
}

void DynamicBatcher::Submit(SchedulerRequest request, Callback done) {
  const bool may_run_inline = request.may_run_inline;
  Enqueue(queue_.Prepare(std::move(request), std::move(done), absl::Now()), may_run_inline);
}

void DynamicBatcher::Enqueue(QueuedRequest item, bool may_run_inline) {
  if (batching_) item.key = BatchKey(*model_, item.request);
  if (may_run_inline && !batching_ && RunInline(item)) return;
  if (max_delay_ > absl::ZeroDuration()) {  // without a delay, nothing waits to skip
    MutexLock lock(&mutex_);
    if (skipping_waits_) item.skip_wait = ++lone_arrivals_ % kProbeEvery != 0;
  }
  const absl::Time deadline = item.deadline;
  if (!queue_.Queue(std::move(item))) return;
  {
    // Every session busy: the runner that frees one schedules (after this
    // request was queued, as both take mutex_), so the arrival only sees
    // that the timer will look at its deadline and poll for cancellation.
    // Under load this is most arrivals, and they leave the queue's lock to
    // the runners.
    MutexLock lock(&mutex_);
    if (load_.Pick() < 0) {
      const absl::Time now = absl::Now();
      ArmLocked(now, std::min(deadline, now + kCancelPoll));
      return;
    }
  }
  // Scheduled on this thread: a hand-off to another thread costs a small
  // model more than its run (docs/design.md, "What the one queue costs").
  Schedule();
}

bool DynamicBatcher::RunInline(QueuedRequest& item) {
  // A few timed runs first: a model's first runs (pipeline creation,
  // first-use allocations) say nothing about its steady cost. Only an idle
  // scheduler (no run, nothing queued: RequestQueue::Admit): under load the
  // runners keep the sessions busy and the caller's thread (a gRPC poller)
  // is worth more reading other requests; measured on lavapipe, 8 clients
  // ran no faster with inline runs taken whenever a session was idle.
  // Answers being written by runners do not count: their sessions are free.
  constexpr uint64_t kTimedRunsBeforeInline = 4;
  Formed formed;
  Session* session = nullptr;
  int gpu = -1;
  {
    MutexLock lock(&mutex_);
    if (busy_ > 0 || timed_runs_ < kTimedRunsBeforeInline ||
        mean_run_ >= inline_max_run_ ||
        !queue_.Admit([&]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return (gpu = load_.Pick()) >= 0; })) {
      return false;
    }
    ++inline_runs_;
    std::vector<QueuedRequest> members;
    members.push_back(std::move(item));
    formed = TakeSessionLocked(std::move(members), gpu, &session);
  }
  // The session is this thread's until Run gives it back, as a runner's
  // would be.
  Run(std::move(formed), session, gpu);
  return true;
}

void DynamicBatcher::Schedule(const Finished* finished) {
  // Answers expired requests outside mutex_: their callbacks may submit.
  absl::Time wake = queue_.Sweep(absl::Now());
  MutexLock lock(&mutex_);
  if (finished != nullptr) GiveBackLocked(*finished);
  const absl::Time now = absl::Now();
  for (;;) {
    absl::Time send_by;
    const int gpu = pacing_.Soonest(load_.LeastBusy(), BatchLimit(), &send_by);
    if (gpu < 0) break;
    absl::Time form_wake = absl::InfiniteFuture();
    std::vector<QueuedRequest> members = Form(now, send_by, &form_wake);
    if (members.empty()) {
      wake = std::min(wake, form_wake);
      break;
    }
    Session* session = nullptr;
    Formed formed = TakeSessionLocked(std::move(members), gpu, &session);
    boost::asio::post(*runners_, [this, formed = std::move(formed), session, gpu]() mutable {
      Run(std::move(formed), session, gpu);
    });
  }
  if (queue_.queued() > 0) wake = std::min(wake, now + kCancelPoll);
  ArmLocked(now, wake);
}

std::vector<QueuedRequest> DynamicBatcher::Form(absl::Time now, absl::Time send_by,
                                                absl::Time* wake) {
  // Take calls `choose` at once, on this thread, so mutex_ is still held.
  return queue_.Take([&](const RequestQueue::Levels& queues) ABSL_NO_THREAD_SAFETY_ANALYSIS {
    return Choose(queues, now, send_by, wake);
  });
}

std::vector<RequestQueue::Pick> DynamicBatcher::Choose(const RequestQueue::Levels& queues_,
                                                       absl::Time now, absl::Time send_by,
                                                       absl::Time* wake) {
  // The head: the oldest request of the highest non-empty level.
  size_t head_level = 0;
  while (head_level < queues_.size() && queues_[head_level].empty()) ++head_level;
  if (head_level == queues_.size()) return {};
  std::vector<RequestQueue::Pick> picks = {{head_level, 0}};
  const QueuedRequest& head = queues_[head_level].front();
  const int64_t limit = BatchLimit();
  int64_t total = head.request.batch_size;
  absl::Time oldest = head.submitted;
  size_t best = std::binary_search(preferred_.begin(), preferred_.end(), total) ? 1 : 0;
  bool full = !head.key || total >= limit;
  for (size_t l = head_level; l < queues_.size() && !full; ++l) {
    const std::deque<QueuedRequest>& queue = queues_[l];
    for (size_t i = l == head_level ? 1 : 0; i < queue.size() && !full; ++i) {
      const QueuedRequest& p = queue[i];
      if (!p.key || *p.key != *head.key) continue;  // forms its own batch
      if (total + p.request.batch_size > limit) {
        full = true;
        break;
      }
      picks.emplace_back(l, i);
      total += p.request.batch_size;
      oldest = std::min(oldest, p.submitted);
      if (std::binary_search(preferred_.begin(), preferred_.end(), total)) best = picks.size();
      full = total >= limit;
    }
  }
  // Another batch still holds the GPU: leaving now would only queue behind
  // it there, so this one keeps growing (batch_pacing.h). A delay of 0 asks
  // for no waiting at all.
  if (!full && !flushing_ && max_delay_ > absl::ZeroDuration() && now < send_by) {
    *wake = send_by;
    return {};
  }
  const bool waited_out = now - oldest >= max_delay_;
  const bool send_all = flushing_ || full || max_delay_ <= absl::ZeroDuration() || waited_out ||
                        (picks.size() == 1 && head.skip_wait);
  if (!send_all) {
    if (best == 0) {
      *wake = oldest + max_delay_;
      return {};
    }
    picks.resize(best);
  }
  NoteFormed(picks.size(), waited_out);
  return picks;
}

void DynamicBatcher::NoteFormed(size_t requests, bool waited_out) {
  if (requests >= 2) {
    fruitless_waits_ = 0;
    skipping_waits_ = false;
  } else if (waited_out && ++fruitless_waits_ >= kFruitlessWaits) {
    skipping_waits_ = true;
  }
}

void DynamicBatcher::ArmLocked(absl::Time now, absl::Time wake) {
  // A timer still set for an earlier time stays: when it fires, Schedule()
  // plans again. So at a high request rate the timer is not reset for every
  // request. With nothing to wait for, a set timer fires once, harmlessly.
  if (wake == absl::InfiniteFuture()) return;
  if (armed_for_ > now && armed_for_ <= wake) return;
  armed_for_ = wake;
  // The timer is the io thread's alone; posted under mutex_, the settings
  // reach it in the order they were decided, so the last one holds.
  boost::asio::post(io_, [this, wake] {
    timer_.expires_after(std::chrono::nanoseconds(NanosBetween(absl::Now(), wake)));
    timer_.async_wait([this, wake](const boost::system::error_code& error) {
      if (error == boost::asio::error::operation_aborted) return;
      {
        MutexLock lock(&mutex_);
        if (armed_for_ == wake) armed_for_ = absl::InfiniteFuture();
      }
      Schedule();
    });
  });
}

void DynamicBatcher::GiveBackLocked(const Finished& finished) {
  const size_t gpu = static_cast<size_t>(finished.gpu);
  --busy_;
  --busy_by_gpu_[gpu];
  pacing_.Finished(finished.gpu, finished.session, finished.paced);
  idle_[gpu].push_back(finished.session);
  load_.Give(finished.gpu);
  if (finished.ran > absl::ZeroDuration()) {
    // About the mean of the last eight runs (RunInline's gate).
    mean_run_ = timed_runs_ == 0 ? finished.ran : mean_run_ + (finished.ran - mean_run_) / 8;
    ++timed_runs_;
  }
}

DynamicBatcher::Formed DynamicBatcher::TakeSessionLocked(std::vector<QueuedRequest> members,
                                                         int gpu, Session** session) {
  std::vector<Session*>& idle = idle_[static_cast<size_t>(gpu)];
  *session = idle.back();
  idle.pop_back();
  load_.Take(gpu);
  ++busy_;
  ++busy_by_gpu_[static_cast<size_t>(gpu)];
  const absl::Time now = absl::Now();
  int64_t rows = 0;
  for (const QueuedRequest& p : members) rows += p.request.batch_size;
  pacing_.Started(gpu, *session, rows, now);
  return Formed{std::move(members), now};
}

void DynamicBatcher::Run(Formed formed, Session* session, int gpu) {
  const absl::Time start = absl::Now();
  // Cancelled or timed out since the batch formed: answered, not run.
  std::vector<QueuedRequest> members;
  for (QueuedRequest& p : formed.members) {
    ExecutionInfo info;
    info.queue_ns = NanosBetween(p.submitted, start);
    if (absl::Status not_now = queue_.CheckAtRun(p, start); !not_now.ok()) {
      queue_.Answer(p, std::move(not_now), info);
    } else if (absl::Status local =
                   LocalizeInputs(session->model().gpu().device, &p.request.run, &p.copies);
               !local.ok()) {
      // An input on another GPU could not be copied here (released, or its
      // read-back failed): this request fails, the batch runs without it.
      queue_.Answer(p, std::move(local), info);
    } else {
      members.push_back(std::move(p));
    }
  }
  ExecutionInfo run;
  absl::Time returned = absl::InfinitePast();
  std::vector<absl::StatusOr<RunResult>> results;
  const absl::Time ran_from = absl::Now();
  if (!members.empty()) results = RunBatch(members, session, &run, &returned);
  const BatchPacing::Ended paced = Paced(formed.formed_at, returned, run, results);
  // The results hold their own bytes and handles: the session takes its
  // next batch while this thread answers (each answer builds and sends a
  // response, which for a small model takes longer than the run).
  Finished finished{session, gpu, paced, absl::ZeroDuration()};
  if (returned != absl::InfinitePast()) finished.ran = returned - ran_from;
  Schedule(&finished);  // the session is free: the next batch may take it
  if (!members.empty()) {
    absl::Time oldest = members.front().submitted;
    for (const QueuedRequest& p : members) oldest = std::min(oldest, p.submitted);
    for (size_t i = 0; i < members.size(); ++i) {
      ExecutionInfo info;
      info.queue_ns = NanosBetween(members[i].submitted, start);
      info.execution_batch_size = run.execution_batch_size;
      info.padding_rows = run.padding_rows;
      info.requests = static_cast<int>(members.size());
      info.reports_execution = i == 0 && results[i].ok();
      info.forming_ns = NanosBetween(oldest, start);
      info.gpu = gpu;
      info.cross_device_copies = members[i].copies.copies;
      info.cross_device_bytes = members[i].copies.bytes;
      queue_.Answer(members[i], std::move(results[i]), info);
    }
  }
}

BatchPacing::Ended DynamicBatcher::Paced(absl::Time dispatched, absl::Time returned,
                                         const ExecutionInfo& run,
                                         const std::vector<absl::StatusOr<RunResult>>& results) {
  BatchPacing::Ended ended;
  for (const absl::StatusOr<RunResult>& r : results) {
    // A run that recorded its commands (the first at a size on a session)
    // or failed says little of what the next run of its size costs.
    if (!r.ok() || !r->timing.replayed) continue;
    const RunTiming& t = r->timing;
    // Session::Run began total_ns before it returned; its GPU work started
    // once the inputs were up and the commands submitted.
    const absl::Time run_began = returned - absl::Nanoseconds(static_cast<int64_t>(t.total_ns));
    ended.rows = run.execution_batch_size;
    ended.lead =
        run_began - dispatched + absl::Nanoseconds(static_cast<int64_t>(t.upload_ns + t.submit_ns));
    ended.gpu = absl::Nanoseconds(static_cast<int64_t>(t.gpu_ns));
    break;
  }
  return ended;
}

std::vector<absl::StatusOr<RunResult>> DynamicBatcher::RunBatch(std::vector<QueuedRequest>& members,
                                                                Session* session,
                                                                ExecutionInfo* info,
                                                                absl::Time* returned) {
  std::vector<BatchMember> requests;
  int64_t total = 0;
  for (const QueuedRequest& p : members) {
    requests.push_back({&p.request.run, p.request.batch_size});
    total += p.request.batch_size;
  }
  // Requests without a key run alone and are never padded.
  const int64_t rows = members.front().key ? PaddedRows(session->model(), requests, total) : total;
  if (members.size() == 1 && rows == total) {
    // Alone: its own bindings and output sink, as the session pool runs it.
    info->execution_batch_size = std::max<int64_t>(total, 1);
    std::vector<absl::StatusOr<RunResult>> results;
    results.push_back(session->Run(members[0].request.run));
    *returned = absl::Now();
    return results;
  }
  std::shared_ptr<const std::vector<uint8_t>> zeros =
      rows > total ? Zeros(PaddingBytes(requests, rows)) : nullptr;
  // Assembled on the session's GPU.
  BatchRun batch(session->model(), std::move(requests), rows, std::move(zeros));
  info->execution_batch_size = batch.batch_size();
  info->padding_rows = batch.padding();
  if (absl::Status gathered = batch.Prepare(); !gathered.ok()) {
    std::vector<absl::StatusOr<RunResult>> failed;
    for (size_t i = 0; i < members.size(); ++i) failed.push_back(UnsharedCopy(gathered));
    return failed;
  }
  absl::StatusOr<RunResult> ran = session->Run(batch.run());
  *returned = absl::Now();
  return batch.Split(std::move(ran));
}

int64_t DynamicBatcher::PaddedRows(const Model& model, const std::vector<BatchMember>& requests,
                                   int64_t total) {
  if (!CanPad(requests)) return total;
  std::vector<std::vector<int64_t>> shapes = BatchShapes(model, *requests.front().run, total);
  if (shapes.empty() || model.HasPlan(shapes)) return total;
  const int64_t limit = preferred_.empty() ? max_batch_size_ : preferred_.back();
  for (int64_t rows = total + 1; rows <= limit; ++rows) {
    for (auto& shape : shapes) shape[0] = rows;
    if (model.HasPlan(shapes)) {
      for (auto& shape : shapes) shape[0] = total;
      PlanAhead(model, std::move(shapes));
      return rows;
    }
  }
  return total;  // nothing larger is planned: planned as it runs
}

void DynamicBatcher::PlanAhead(const Model& model, std::vector<std::vector<int64_t>> shapes) {
  std::string key = absl::StrCat(reinterpret_cast<uintptr_t>(&model));
  for (const auto& shape : shapes) absl::StrAppend(&key, "|", absl::StrJoin(shape, ","));
  {
    MutexLock lock(&mutex_);
    // Bounded: a few sizes at a time; a size left out is asked for again by
    // its next batch.
    if (planning_.size() >= kMaxPlansAhead || !planning_.insert(key).second) return;
  }
  boost::asio::post(planner_, [this, &model, shapes = std::move(shapes), key = std::move(key)] {
    // A failure is not kept: a batch of this size, run unpadded once no
    // larger plan is left, reports it to its requests.
    if (absl::StatusOr<std::shared_ptr<const Plan>> plan = model.GetPlan(shapes); !plan.ok()) {
      spdlog::warn("model '{}': planning batch size {} ahead failed: {}", name_,
                   shapes.front().front(), plan.status().ToString());
    }
    MutexLock lock(&mutex_);
    planning_.erase(key);
  });
}

std::shared_ptr<const std::vector<uint8_t>> DynamicBatcher::Zeros(uint64_t bytes) {
  MutexLock lock(&mutex_);
  // Grows to the largest padding asked for: at most max_batch_size rows
  // of the model's largest input.
  if (zeros_ == nullptr || zeros_->size() < bytes) {
    zeros_ = std::make_shared<const std::vector<uint8_t>>(bytes, 0);
  }
  return zeros_;
}

bool DynamicBatcher::AwaitPlansAhead(absl::Duration timeout) const {
  MutexLock lock(&mutex_);
  return mutex_.AwaitWithTimeout(
      Condition(
          +[](const std::set<std::string>* planning) { return planning->empty(); }, &planning_),
      timeout);
}

void DynamicBatcher::Drain() {
  queue_.Close();
  {
    // Batches still forming go now, without waiting for more requests.
    MutexLock lock(&mutex_);
    flushing_ = true;
  }
  Schedule();
  queue_.AwaitAnswered();
}

uint64_t DynamicBatcher::inline_runs() const {
  MutexLock lock(&mutex_);
  return inline_runs_;
}

SchedulerStats DynamicBatcher::stats() const {
  SchedulerStats stats;
  MutexLock lock(&mutex_);
  for (int g = 0; g < load_.gpus(); ++g) {
    stats.sessions_by_gpu.push_back(static_cast<uint64_t>(load_.sessions(g)));
  }
  stats.queued_now = queue_.queued();
  stats.busy_sessions = busy_;
  stats.sessions = static_cast<uint64_t>(sessions_.size());
  stats.busy_by_gpu = busy_by_gpu_;
  return stats;
}

}  // namespace vkserve
