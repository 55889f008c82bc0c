// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "base/parallel_for.h"

#include <atomic>
#include <deque>
#include <memory>
#include <thread>

#include "base/host_threads.h"
#include "base/mutex.h"

namespace vkserve {
namespace {

// One ParallelFor call: its indices are claimed through `next`, so a
// worker and the caller never run the same one.
struct Batch {
  Batch(int count, absl::FunctionRef<void(int)> fn) : count(count), fn(fn) {}

  // Runs indices until none is left unclaimed.
  void RunClaimed() {
    for (int i = next.fetch_add(1); i < count; i = next.fetch_add(1)) {
      fn(i);
      MutexLock lock(&mutex);
      ++done;
    }
  }
  bool Exhausted() const { return next.load() >= count; }
  bool Finished() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex) { return done == count; }

  const int count;
  const absl::FunctionRef<void(int)> fn;
  std::atomic<int> next{0};
  Mutex mutex;
  int done ABSL_GUARDED_BY(mutex) = 0;
};

class Pool {
 public:
  explicit Pool(int workers) : workers_(workers) {
    for (int i = 0; i < workers; ++i) std::thread([this] { WorkerLoop(); }).detach();
  }

  int workers() const { return workers_; }

  void Post(std::shared_ptr<Batch> batch) {
    MutexLock lock(&mutex_);
    queue_.push_back(std::move(batch));
  }

 private:
  bool HasWork() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return !queue_.empty(); }

  // Workers live as long as the process: the pool is never destroyed, so
  // nothing runs during static destruction.
  void WorkerLoop() {
    for (;;) {
      std::shared_ptr<Batch> batch;
      {
        MutexLock lock(&mutex_);
        mutex_.Await(Condition(this, &Pool::HasWork));
        batch = queue_.front();
        // A batch whose indices are all claimed leaves the queue; its last
        // runners still hold it.
        if (batch->Exhausted()) {
          queue_.pop_front();
          continue;
        }
      }
      batch->RunClaimed();
    }
  }

  const int workers_;
  Mutex mutex_;
  std::deque<std::shared_ptr<Batch>> queue_ ABSL_GUARDED_BY(mutex_);
};

Pool* SharedPool() {
  static Pool* const pool = new Pool(HostCores() - 1);
  return pool;
}

}  // namespace

void ParallelFor(int count, absl::FunctionRef<void(int)> fn) {
  if (count <= 0) return;
  if (count == 1 || SharedPool()->workers() == 0) {
    for (int i = 0; i < count; ++i) fn(i);
    return;
  }
  auto batch = std::make_shared<Batch>(count, fn);
  SharedPool()->Post(batch);
  batch->RunClaimed();
  MutexLock lock(&batch->mutex);
  batch->mutex.Await(Condition(batch.get(), &Batch::Finished));
}

}  // namespace vkserve
