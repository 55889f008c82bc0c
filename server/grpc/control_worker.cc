// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/grpc/control_worker.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"

namespace vkserve {

ControlWorker::ControlWorker(size_t max_queued) : max_queued_(max_queued) {
  if (max_queued_ == 0) {
    std::fprintf(stderr, "ControlWorker: max_queued must be at least 1\n");
    std::abort();
  }
  thread_ = std::thread([this] { Loop(); });
}

ControlWorker::~ControlWorker() { Shutdown(); }

absl::Status ControlWorker::Post(std::function<void()> job) {
  MutexLock lock(&mutex_);
  if (stopping_) return absl::UnavailableError("the server is shutting down");
  if (queue_.size() >= max_queued_) {
    return absl::ResourceExhaustedError(absl::StrCat("too many model load/unload calls waiting (",
                                                     max_queued_, "); retry once they finish"));
  }
  queue_.push_back(std::move(job));
  return absl::OkStatus();
}

void ControlWorker::Shutdown() {
  {
    MutexLock lock(&mutex_);
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

bool ControlWorker::HasWorkOrStopping() const { return stopping_ || !queue_.empty(); }

void ControlWorker::Loop() {
  while (true) {
    std::function<void()> job;
    {
      MutexLock lock(&mutex_);
      mutex_.Await(Condition(this, &ControlWorker::HasWorkOrStopping));
      if (queue_.empty()) return;  // stopping, and every job has run
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    job();
  }
}

}  // namespace vkserve
