// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Scheduler: what runs a served model version's requests on its sessions.
// A ServedModel hands every request to its Scheduler and the gRPC layer
// never learns which one it is. Both spread runs over the sessions of every
// GPU the model is on, least-loaded GPU first (gpu_load.h):
//  - SessionPool (session_pool.h): each request runs alone on the first free
//    session, in arrival order;
//  - DynamicBatcher (dynamic_batcher.h): requests that agree on every
//    non-batch dimension run together as one batch.
// The SessionPool is the DynamicBatcher with batching off; both keep their
// requests in a RequestQueue (request_queue.h).
//
// Contract of every implementation: Submit() never blocks (beyond one short
// run when the request allows it: SchedulerRequest::may_run_inline); `done`
// is called exactly once per submitted request (possibly before Submit
// returns, on any thread); a request whose deadline passes or whose `cancelled` turns true
// before it runs is answered DEADLINE_EXCEEDED / CANCELLED without running;
// a full queue is RESOURCE_EXHAUSTED; Drain() stops accepting (UNAVAILABLE)
// and returns once every accepted request has been answered.
//
// Thread-safe.
#ifndef VKSERVE_SERVER_SCHEDULING_SCHEDULER_H_
#define VKSERVE_SERVER_SCHEDULING_SCHEDULER_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "runtime/session.h"

namespace vkserve {

// One request as a scheduler takes it. The RunRequest's views must stay
// valid until `done` is called.
struct SchedulerRequest {
  RunRequest run;
  // The request's leading (batch) dimension; 0 when the model has none.
  int64_t batch_size = 0;
  // The client's deadline (absl::InfiniteFuture() for none); the queue
  // policy's timeout may bring it closer.
  absl::Time deadline = absl::InfiniteFuture();
  // The request's "timeout" parameter, if any (the queue policy decides
  // whether it applies).
  std::optional<absl::Duration> timeout;
  // The request's "priority" parameter; 0 = the model's default level.
  uint64_t priority = 0;
  // Polled while the request waits (may be empty).
  std::function<bool()> cancelled;
  // The caller's thread may run the request itself: Submit may then block
  // for one run and call `done` before it returns. A scheduler that takes
  // it does so only when the request would otherwise start at once (an idle
  // session, nothing queued before it; SessionPool: an idle pool) and the
  // model's runs are short; it saves the hand-off to a runner thread and
  // back. Schedulers may ignore it.
  bool may_run_inline = false;
};

// How a request was run, next to its result.
struct ExecutionInfo {
  // From Submit to the start of the run that served it (or to its answer
  // when it did not run).
  uint64_t queue_ns = 0;
  // The run's batch size: the requests' batch sizes added up (1 for a
  // request without a batch dimension); 0 when the request did not run.
  int64_t execution_batch_size = 0;
  // Zero rows the run added to reach a batch size whose plan was built
  // (dynamic_batcher.h); not counted in execution_batch_size.
  int64_t padding_rows = 0;
  // Requests the run served.
  int requests = 0;
  // One request of every run that happened reports the run (its execution
  // statistics); the others have false.
  bool reports_execution = false;
  // For the reporting request: how long the run's oldest request waited
  // while its batch formed (its queue_ns).
  uint64_t forming_ns = 0;
  // The GPU (the scheduler's ModelReplica index, gpu_load.h) whose session
  // ran it; -1 when it did not run.
  int gpu = -1;
  // This request's GPU-resident inputs that lived on another GPU and were
  // copied through host memory (runtime/cross_device_inputs.h), and their bytes.
  uint64_t cross_device_copies = 0;
  uint64_t cross_device_bytes = 0;
};

// Counters at this moment.
struct SchedulerStats {
  uint64_t queued_now = 0;
  uint64_t busy_sessions = 0;
  uint64_t sessions = 0;
  // Per GPU (ModelReplica index): sessions running now, and sessions.
  std::vector<uint64_t> busy_by_gpu;
  std::vector<uint64_t> sessions_by_gpu;
};

class Scheduler {
 public:
  using Callback = std::function<void(absl::StatusOr<RunResult> result, const ExecutionInfo& info)>;

  virtual ~Scheduler() = default;

  // Queues `request` (moved in); `done` is called exactly once.
  virtual void Submit(SchedulerRequest request, Callback done) = 0;

  // Stops accepting and blocks until every accepted request is answered.
  // Requests waiting for a batch to fill run without waiting further.
  virtual void Drain() = 0;

  virtual SchedulerStats stats() const = 0;
};

}  // namespace vkserve

#endif  // VKSERVE_SERVER_SCHEDULING_SCHEDULER_H_
