// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// DynamicBatcher: the Scheduler (scheduler.h) of a model version with
// dynamic_batching and max_batch_size > 0. Queued requests whose inputs
// agree on every non-batch dimension and datatype (batch_key.h) run
// together as one batch of up to max_batch_size; requests of other shapes
// form their own batches, and traced requests run alone. GPU-resident inputs
// are gathered and GPU-resident outputs sliced on the GPU
// (runtime/batch_run.h).
//
// When a session is free, the batch is formed from the oldest request of
// the highest priority level with the requests after it in priority and
// arrival order that share its key, while the sum of batch sizes fits
// max_batch_size. As in Triton's dynamic batcher, it is sent:
//  - at once when max_queue_delay is 0, when it reaches the largest
//    preferred size (max_batch_size without preferred sizes), or when the
//    oldest request has waited max_queue_delay;
//  - as its largest prefix of a preferred size, when one was reached;
//  - otherwise it waits for more requests until the oldest has waited
//    max_queue_delay (a Boost.Asio steady_timer).
// A batch keeps growing while every session is busy, and also (when
// max_queue_delay is not 0), below the largest preferred size, while another
// batch still holds the GPU, until it can just reach the GPU as that one
// ends (batch_pacing.h): past max_queue_delay, but only while the GPU is
// busy with another batch, as a Triton request waits for a busy instance.
//
// Lone requests: when the last kFruitlessWaits batches each waited the whole
// delay and still ran alone, requests are arriving one at a time and waiting
// only adds the delay to each. A request that finds a session idle and no
// other request to join then goes at once; every kProbeEvery-th such request
// still waits the delay, to notice when load returns. As soon as a batch
// forms from two or more requests, waiting resumes. max_queue_delay stays
// the upper bound it is in Triton; this only sends earlier.
//
// The requests wait in a RequestQueue (request_queue.h), the session pool's
// too: queue policy per priority level (max_queue_size, beyond it
// RESOURCE_EXHAUSTED; default timeout and override), drain. A request whose
// deadline passes or that is cancelled while its batch forms is answered
// DEADLINE_EXCEEDED / CANCELLED, never runs, and leaves the others as they
// were: it is checked when batches form and by the timer (every 5 ms while
// requests wait, and at the next deadline).
//
// Plans: at creation every session runs each preferred batch size once
// (max_batch_size without preferred sizes; zeros, the model's default
// non-batch dimensions), so the model's plans and each session's
// recordings for those sizes exist before the first request. A batch of
// another size whose plan is not built yet is padded with zero rows to the
// smallest larger size whose plan is (their outputs are dropped), and its
// own size is planned on a background thread for the batches after it:
// planning compiles pipelines, which takes seconds at FP16 (tensor-core
// tiles), and no batch waits for that. Without a larger planned size, or
// with GPU-resident inputs or outputs (gathered and sliced on the GPU), a
// batch is planned as it runs. Plans are charged to the model's
// CacheBudget, which evicts the least recently used idle ones
// (runtime/plan/plan_cache.h, runtime/exec/session_state.h).
//
// GPUs: a model on several GPUs has a ModelReplica per GPU (gpu_load.h);
// each batch goes to a free session of the least-loaded GPU, and is
// assembled on that GPU. A GPU-resident input held by another GPU is copied
// through the host first (runtime/cross_device_inputs.h).
//
// Batching off (CreateUnbatched, the SessionPool): every request runs
// alone, and an idle scheduler may run a request on the caller's thread
// (session_pool.h says when).
//
// Threads: batches form on the thread that makes them possible: the
// submitting thread as a request arrives to an idle session, the runner
// whose run frees a session, and one Asio io_context thread when the timer
// fires (it owns the timer). An arrival that finds every session busy only
// queues and sees the timer set. Two runner threads per session run batches (Session::Run blocks)
// and answer. A request thus reaches its runner in one hand-off, and no
// thread waits on another to decide. Callbacks run on any of these threads
// and must not block for long.
//
// Thread-safe.
#ifndef VKSERVE_SERVER_SCHEDULING_DYNAMIC_BATCHER_H_
#define VKSERVE_SERVER_SCHEDULING_DYNAMIC_BATCHER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "base/mutex.h"
#include "boost/asio/executor_work_guard.hpp"
#include "boost/asio/io_context.hpp"
#include "boost/asio/steady_timer.hpp"
#include "boost/asio/thread_pool.hpp"
#include "config/model_config.h"
#include "runtime/batch_run.h"
#include "runtime/session.h"
#include "server/scheduling/batch_pacing.h"
#include "server/scheduling/gpu_load.h"
#include "server/scheduling/request_queue.h"
#include "server/scheduling/scheduler.h"

namespace vkserve {

class WarmupRuns;

class DynamicBatcher final : public Scheduler {
 public:
  // `settings` must have max_batch_size > 0; sessions, preferred sizes,
  // delay, priorities and queue policies come from it. Fails when a session
  // cannot be created or a preferred size cannot be planned and run.
  static absl::StatusOr<std::unique_ptr<DynamicBatcher>> Create(
      std::shared_ptr<const Model> model, const ModelSettings& settings,
      const SessionOptions& session_options = {});
  // Each replica's sessions on its model's GPU (settings.sessions unused):
  // one model file loaded on each GPU. REQUIRES: at least one replica.
  // `warmup` (may be null) runs on each session as it is created, and the
  // batch sizes padding targets are then planned at its samples' shapes
  // rather than the model's defaults.
  static absl::StatusOr<std::unique_ptr<DynamicBatcher>> Create(
      std::vector<ModelReplica> replicas, const ModelSettings& settings,
      const SessionOptions& session_options = {},
      std::shared_ptr<const WarmupRuns> warmup = nullptr);
  // Batching off (session_pool.h): each request runs alone, in priority
  // and arrival order, as soon as a session is free; settings' batching
  // fields are ignored. Inline runs (SchedulerRequest::may_run_inline) are
  // taken while the mean of recent runs is below `inline_max_run` (zero:
  // never).
  static absl::StatusOr<std::unique_ptr<DynamicBatcher>> CreateUnbatched(
      std::vector<ModelReplica> replicas, ModelSettings settings,
      const SessionOptions& session_options, std::shared_ptr<const WarmupRuns> warmup,
      absl::Duration inline_max_run);
  ~DynamicBatcher() override;  // drains

  void Submit(SchedulerRequest request, Callback done) override;
  // Submit for a request whose deadline is already decided (`item` from
  // outside RequestQueue::Prepare, session_pool.h).
  void Enqueue(QueuedRequest item, bool may_run_inline);
  void Drain() override;
  SchedulerStats stats() const override;
  const Model& model() const { return *model_; }
  // Requests run on their submitting thread so far.
  uint64_t inline_runs() const;

  // Blocks until no batch size is being planned in the background
  // (PaddedRows' PlanAhead), or `timeout` passes; returns whether none is.
  // A size planned ahead may still fail to plan (logged) or be evicted by
  // the cache budget later: this says the planner is idle, not that a plan
  // exists.
  bool AwaitPlansAhead(absl::Duration timeout) const;

 private:
  // A batch on its way to a session.
  struct Formed {
    std::vector<QueuedRequest> members;
    absl::Time formed_at;
  };
  using Clock = std::chrono::steady_clock;
  // A run that ended, handing its session back.
  struct Finished {
    Session* session;
    int gpu;
    BatchPacing::Ended paced;
    absl::Duration ran;  // Session::Run's time; zero when it gave no result
  };

  DynamicBatcher(std::shared_ptr<const Model> model, const ModelSettings& settings,
                 std::vector<int> sessions_by_gpu, absl::Duration inline_max_run);
  // Create and CreateUnbatched; `scheduler` names it in messages.
  static absl::StatusOr<std::unique_ptr<DynamicBatcher>> Build(
      std::vector<ModelReplica> replicas, const ModelSettings& settings,
      const SessionOptions& session_options, std::shared_ptr<const WarmupRuns> warmup,
      absl::Duration inline_max_run, std::string_view scheduler);
  // Runs `item` on this thread when the inline rule (session_pool.h) allows;
  // false leaves it untouched.
  bool RunInline(QueuedRequest& item);
  // Zero runs at every batch size the batcher pads to, at the shapes the
  // warm-up samples use (else the model's defaults): what WarmUp plans.
  absl::StatusOr<std::shared_ptr<const WarmupRuns>> PaddingTargets(const Model& model,
                                                                   const WarmupRuns* warmup) const;

  // Answers expired requests, takes back `finished`'s session (if any),
  // sends every batch that may go now to a runner, and sets the timer for
  // the next look. On any thread, holding no lock.
  void Schedule(const Finished* finished = nullptr) ABSL_LOCKS_EXCLUDED(mutex_);
  // The session of a run that ended is idle again; the run's time feeds
  // RunInline's gate.
  void GiveBackLocked(const Finished& finished) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // The next batch to send now, or empty with `*wake` set to when to look
  // again (InfiniteFuture: when a request comes). Until `send_by` a batch
  // below the largest preferred size keeps growing (BatchPacing::SendBy).
  std::vector<QueuedRequest> Form(absl::Time now, absl::Time send_by, absl::Time* wake)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Form's choice among `queues` (under the queue's lock).
  std::vector<RequestQueue::Pick> Choose(const RequestQueue::Levels& queues, absl::Time now,
                                         absl::Time send_by, absl::Time* wake)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Has the timer run Schedule() at `wake` (unless it is set earlier).
  void ArmLocked(absl::Time now, absl::Time wake) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // As Triton: a batch grows up to the largest preferred size.
  int64_t BatchLimit() const { return preferred_.empty() ? max_batch_size_ : preferred_.back(); }
  // Learns from a batch about to be sent whether waiting pays (above).
  void NoteFormed(size_t requests, bool waited_out) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Takes an idle `*session` of `gpu` for `members`, counted busy.
  Formed TakeSessionLocked(std::vector<QueuedRequest> members, int gpu, Session** session)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  // On a runner thread:
  void Run(Formed formed, Session* session, int gpu);
  // Runs `members` (not empty) as one batch on `session`: a result each.
  // `info` gets the run's batch size and padding, `returned` the time
  // Session::Run returned (before its result is split among the members).
  std::vector<absl::StatusOr<RunResult>> RunBatch(std::vector<QueuedRequest>& members,
                                                  Session* session, ExecutionInfo* info,
                                                  absl::Time* returned);
  // What BatchPacing learns from a run dispatched at `dispatched` whose
  // Session::Run returned at `returned` (rows 0, nothing, when no result came
  // back or the run recorded its commands).
  static BatchPacing::Ended Paced(absl::Time dispatched, absl::Time returned,
                                  const ExecutionInfo& run,
                                  const std::vector<absl::StatusOr<RunResult>>& results);
  // The rows to run `requests` (batch sizes adding up to `total`) as on
  // `model`: `total`, or a larger size whose plan is built when `total`'s
  // is not (then `total`'s is planned ahead).
  int64_t PaddedRows(const Model& model, const std::vector<BatchMember>& requests, int64_t total);
  // Builds `model`'s plan for `shapes` on the planner thread, once at a time.
  void PlanAhead(const Model& model, std::vector<std::vector<int64_t>> shapes);
  // A block of at least `bytes` zeros, shared by the batches padding with it.
  std::shared_ptr<const std::vector<uint8_t>> Zeros(uint64_t bytes);

  const std::shared_ptr<const Model> model_;
  const std::string name_;
  const int64_t max_batch_size_;
  const std::vector<int> preferred_;  // ascending, unique
  const absl::Duration max_delay_;
  const bool batching_;  // false: CreateUnbatched
  const absl::Duration inline_max_run_;
  RequestQueue queue_;
  std::vector<std::unique_ptr<Session>> sessions_;

  boost::asio::io_context io_;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work_;
  boost::asio::steady_timer timer_{io_};
  std::optional<boost::asio::thread_pool> runners_;
  boost::asio::thread_pool planner_{1};  // PlanAhead
  std::thread io_thread_;

  // Taken before queue_'s.
  mutable Mutex mutex_;
  absl::Time armed_for_ ABSL_GUARDED_BY(mutex_) = absl::InfiniteFuture();
  bool flushing_ ABSL_GUARDED_BY(mutex_) = false;  // draining: batches go without waiting
  // Consecutive batches that waited out the delay alone.
  int fruitless_waits_ ABSL_GUARDED_BY(mutex_) = 0;
  bool skipping_waits_ ABSL_GUARDED_BY(mutex_) = false;
  uint64_t lone_arrivals_ ABSL_GUARDED_BY(mutex_) = 0;  // while skipping: picks the probes
  std::vector<std::vector<Session*>> idle_ ABSL_GUARDED_BY(mutex_);  // per GPU
  GpuLoad load_ ABSL_GUARDED_BY(mutex_);
  BatchPacing pacing_ ABSL_GUARDED_BY(mutex_);
  // Runs timed, their running mean, and inline runs (RunInline).
  uint64_t timed_runs_ ABSL_GUARDED_BY(mutex_) = 0;
  absl::Duration mean_run_ ABSL_GUARDED_BY(mutex_);
  uint64_t inline_runs_ ABSL_GUARDED_BY(mutex_) = 0;
  uint64_t busy_ ABSL_GUARDED_BY(mutex_) = 0;
  std::vector<uint64_t> busy_by_gpu_ ABSL_GUARDED_BY(mutex_);
  std::set<std::string> planning_ ABSL_GUARDED_BY(mutex_);  // PlanAhead's, by model and shapes
  std::shared_ptr<const std::vector<uint8_t>> zeros_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace vkserve

#endif  // VKSERVE_SERVER_SCHEDULING_DYNAMIC_BATCHER_H_
