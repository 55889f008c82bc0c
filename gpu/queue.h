// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Queue: the device's compute queue with one timeline semaphore. Each
// submission signals the next timeline value; callers wait on that value
// (host side) instead of fences. A submission keeps the resources its command
// buffer retained alive until its value is reached.
//
// Thread-safe: submissions from many threads are serialized internally
// (vkQueueSubmit needs external synchronization). Device loss surfaces as a
// Status for which IsDeviceLost() is true.
#ifndef VKSERVE_GPU_QUEUE_H_
#define VKSERVE_GPU_QUEUE_H_

#include <vulkan/vulkan.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "base/mutex.h"
#include "gpu/handle.h"

namespace vkserve::gpu {

class CommandBuffer;
class Device;

class Queue {
 public:
  static absl::StatusOr<std::unique_ptr<Queue>> Create(const Device& device, VkQueue queue);
  Queue(const Queue&) = delete;
  Queue& operator=(const Queue&) = delete;
  ~Queue();

  // Submits a recorded command buffer (again, for a replay). Returns the
  // timeline value signaled when it completes. FAILED_PRECONDITION if it is
  // not recorded or its previous submission has not completed.
  absl::StatusOr<uint64_t> Submit(CommandBuffer& command_buffer);

  // Blocks until `value` is reached. DEADLINE_EXCEEDED after `timeout_ns`.
  // With `spin_ns`, first polls the timeline on this thread for up to that
  // long before sleeping in the driver: for work expected to finish within
  // microseconds, a sleeping thread's wake-up (the interrupt, then a CPU for
  // it on a loaded host) costs more than the work. CUDA's default schedule
  // spins likewise.
  absl::Status Wait(uint64_t value, uint64_t timeout_ns = UINT64_MAX, uint64_t spin_ns = 0);

  // The highest value reached so far (does not block).
  absl::StatusOr<uint64_t> CompletedValue();

  // Waits for everything submitted so far.
  absl::Status WaitIdle();

  VkSemaphore timeline() const { return timeline_.get(); }

  // Work on the queue, for a watchdog: submissions that entered Submit and
  // those that finished (reached their timeline value, or failed to
  // submit). Never blocks on the queue's lock, so it answers while a
  // submission hangs. A lost device reports nothing pending (its recovery
  // is the device set's business).
  struct Progress {
    uint64_t pending = 0;   // entered and not finished
    uint64_t finished = 0;  // grows while the queue makes progress
  };
  Progress progress() const;

 private:
  struct InFlight {
    uint64_t value;
    std::vector<std::shared_ptr<const void>> retained;
  };
  Queue(const Device& device, VkQueue queue) : device_(&device), queue_(queue) {}
  // OK for VK_SUCCESS; else the call's Status, marking the device lost on
  // VK_ERROR_DEVICE_LOST.
  absl::Status Check(VkResult result, std::string_view call) const;
  absl::Status LostStatus(std::string_view call) const;
  // Drops retained resources of completed submissions.
  void Reclaim(uint64_t completed) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  const Device* device_;
  VkQueue queue_;
  SemaphoreHandle timeline_;
  Mutex mutex_;
  uint64_t next_value_ ABSL_GUARDED_BY(mutex_) = 1;
  std::deque<InFlight> in_flight_ ABSL_GUARDED_BY(mutex_);
  // For progress(): Submit calls past their preconditions, and those that
  // returned an error (their timeline value is never signaled).
  std::atomic<uint64_t> entered_{0};
  std::atomic<uint64_t> failed_{0};
};

}  // namespace vkserve::gpu

#endif  // VKSERVE_GPU_QUEUE_H_
