// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "gpu/queue.h"

#include <chrono>

#include "gpu/command_buffer.h"
#include "gpu/device.h"
#include "gpu/fault_injector.h"
#include "gpu/vk_status.h"

namespace vkserve::gpu {
namespace {

// A spin-wait hint to the CPU (a sibling hyperthread gets the core).
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace

absl::StatusOr<std::unique_ptr<Queue>> Queue::Create(const Device& device, VkQueue queue) {
  auto q = std::unique_ptr<Queue>(new Queue(device, queue));
  VkSemaphoreTypeCreateInfo type{};
  type.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO;
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  type.initialValue = 0;
  VkSemaphoreCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
  info.pNext = &type;
  VkSemaphore semaphore = VK_NULL_HANDLE;
  VK_RETURN_IF_ERROR(vkCreateSemaphore(device.handle(), &info, nullptr, &semaphore));
  q->timeline_ = SemaphoreHandle(device.handle(), semaphore);
  return q;
}

Queue::~Queue() { (void)WaitIdle(); }

absl::StatusOr<uint64_t> Queue::Submit(CommandBuffer& command_buffer) {
  if (!command_buffer.recorded()) {
    return absl::FailedPreconditionError("Queue::Submit: command buffer is not recorded");
  }
  ASSIGN_OR_RETURN(uint64_t completed, CompletedValue());
  if (command_buffer.last_submission_ > completed) {
    return absl::FailedPreconditionError(
        "Queue::Submit: the command buffer's previous submission is still executing");
  }
  entered_.fetch_add(1);
  MutexLock lock(&mutex_);
  Reclaim(completed);
  if (device_->lost()) {
    failed_.fetch_add(1);
    return LostStatus("vkQueueSubmit");
  }
  if (FaultInjector* faults = device_->faults(); faults != nullptr && faults->OnSubmission()) {
    device_->MarkLost();
    failed_.fetch_add(1);
    return LostStatus("vkQueueSubmit (injected)");
  }
  const uint64_t value = next_value_;
  VkTimelineSemaphoreSubmitInfo timeline{};
  timeline.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO;
  timeline.signalSemaphoreValueCount = 1;
  timeline.pSignalSemaphoreValues = &value;
  VkSemaphore semaphore = timeline_.get();
  VkCommandBuffer handle = command_buffer.handle();
  VkSubmitInfo submit{};
  submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.pNext = &timeline;
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &handle;
  submit.signalSemaphoreCount = 1;
  submit.pSignalSemaphores = &semaphore;
  if (absl::Status s = Check(vkQueueSubmit(queue_, 1, &submit, VK_NULL_HANDLE), "vkQueueSubmit");
      !s.ok()) {
    failed_.fetch_add(1);
    return s;
  }
  ++next_value_;
  command_buffer.last_submission_ = value;
  if (!command_buffer.retained_.empty()) {
    in_flight_.push_back({value, command_buffer.retained_});
  }
  return value;
}

absl::Status Queue::Wait(uint64_t value, uint64_t timeout_ns, uint64_t spin_ns) {
  VkSemaphore semaphore = timeline_.get();
  if (spin_ns > 0) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(spin_ns);
    uint64_t reached = 0;
    do {
      RETURN_IF_ERROR(Check(vkGetSemaphoreCounterValue(device_->handle(), semaphore, &reached),
                            "vkGetSemaphoreCounterValue"));
      if (reached >= value) break;
      CpuRelax();
    } while (std::chrono::steady_clock::now() < until);
    // Reached or not, the blocking wait below returns at once when it is.
  }
  VkSemaphoreWaitInfo info{};
  info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
  info.semaphoreCount = 1;
  info.pSemaphores = &semaphore;
  info.pValues = &value;
  RETURN_IF_ERROR(
      Check(vkWaitSemaphores(device_->handle(), &info, timeout_ns), "vkWaitSemaphores"));
  // Work that finished after the device was lost produced nothing usable.
  if (device_->lost()) return LostStatus("vkWaitSemaphores");
  MutexLock lock(&mutex_);
  Reclaim(value);
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> Queue::CompletedValue() {
  uint64_t value = 0;
  RETURN_IF_ERROR(Check(vkGetSemaphoreCounterValue(device_->handle(), timeline_.get(), &value),
                        "vkGetSemaphoreCounterValue"));
  if (device_->lost()) return LostStatus("vkGetSemaphoreCounterValue");
  return value;
}

Queue::Progress Queue::progress() const {
  // Read failed_ before entered_: a submission counted as failed has been
  // counted as entered, so pending never goes negative.
  const uint64_t failed = failed_.load();
  const uint64_t entered = entered_.load();
  uint64_t completed = 0;
  // Successful submissions signal 1, 2, 3, ...: the counter is how many of
  // them completed. Safe from any thread (no external synchronization).
  if (device_->lost() ||
      vkGetSemaphoreCounterValue(device_->handle(), timeline_.get(), &completed) != VK_SUCCESS) {
    return {0, entered};
  }
  Progress p;
  p.finished = failed + completed;
  p.pending = entered > p.finished ? entered - p.finished : 0;
  return p;
}

absl::Status Queue::WaitIdle() {
  uint64_t last;
  {
    MutexLock lock(&mutex_);
    last = next_value_ - 1;
  }
  if (last == 0) return absl::OkStatus();
  return Wait(last);
}

absl::Status Queue::Check(VkResult result, std::string_view call) const {
  if (result == VK_SUCCESS) return absl::OkStatus();
  if (result == VK_ERROR_DEVICE_LOST) device_->MarkLost();
  return VkResultToStatus(result, call);
}

absl::Status Queue::LostStatus(std::string_view call) const {
  return VkResultToStatus(VK_ERROR_DEVICE_LOST, call);
}

void Queue::Reclaim(uint64_t completed) {
  while (!in_flight_.empty() && in_flight_.front().value <= completed) in_flight_.pop_front();
}

}  // namespace vkserve::gpu
