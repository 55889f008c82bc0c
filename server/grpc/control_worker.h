// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ControlWorker: one thread that runs the server's slow control calls (model
// load and unload) off gRPC's threads, in arrival order, from a bounded
// queue. One thread is enough: ModelManager serializes loads and unloads
// anyway. The bound matters because these calls come from clients: a flood
// is refused (RESOURCE_EXHAUSTED) instead of queuing without limit, and no
// call leaves a thread behind (a thread per call, never joined, kept its
// stack mapped until the process ran out of memory maps).
//
// Thread-safe. Shutdown() (also run by the destructor) refuses new jobs, runs
// every queued one, then joins the thread.
#ifndef VKSERVE_SERVER_GRPC_CONTROL_WORKER_H_
#define VKSERVE_SERVER_GRPC_CONTROL_WORKER_H_

#include <cstddef>
#include <deque>
#include <functional>
#include <thread>

#include "absl/status/status.h"
#include "base/mutex.h"

namespace vkserve {

class ControlWorker {
 public:
  // `max_queued` jobs may wait while one runs; REQUIRES max_queued >= 1.
  explicit ControlWorker(size_t max_queued);
  ~ControlWorker();

  ControlWorker(const ControlWorker&) = delete;
  ControlWorker& operator=(const ControlWorker&) = delete;

  // Queues `job`. RESOURCE_EXHAUSTED when max_queued jobs wait already;
  // UNAVAILABLE after Shutdown(). A job that is refused is not run.
  absl::Status Post(std::function<void()> job);

  // Idempotent; blocks until every queued job has run and the thread ended.
  void Shutdown();

 private:
  void Loop();
  bool HasWorkOrStopping() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  const size_t max_queued_;
  mutable Mutex mutex_;
  std::deque<std::function<void()>> queue_ ABSL_GUARDED_BY(mutex_);
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  std::thread thread_;  // started last, in the constructor
};

}  // namespace vkserve

#endif  // VKSERVE_SERVER_GRPC_CONTROL_WORKER_H_
