// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Event: a VkEvent the GPU sets part-way through a submission
// (CommandBuffer::SignalHost) and the host polls, so the host can start on
// the first results of a long submission before the whole of it completes
// (Session copies a large output out in chunks that way while the GPU still
// copies the next). A queue's timeline value says only when everything is
// done.
//
// Move-only, owning its VkEvent. Not thread-safe: one thread resets and polls
// it, and it must not be reset or destroyed while a submission that sets it
// is pending.
#ifndef VKSERVE_GPU_EVENT_H_
#define VKSERVE_GPU_EVENT_H_

#include <vulkan/vulkan.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gpu/device.h"
#include "gpu/handle.h"

namespace vkserve::gpu {

using EventHandle = DeviceHandle<VkEvent, vkDestroyEvent>;

class Event {
 public:
  // An unset event. REQUIRES: `device` outlives it.
  static absl::StatusOr<Event> Create(const Device& device);
  Event() = default;

  // Unsets it from the host. REQUIRES: no pending submission sets it.
  absl::Status Reset();
  // Whether the GPU has set it since the last Reset(); a lost device is an
  // error (vkGetEventStatus's).
  absl::StatusOr<bool> IsSet() const;

  VkEvent handle() const { return event_.get(); }
  explicit operator bool() const { return static_cast<bool>(event_); }

 private:
  Event(VkDevice device, VkEvent event) : device_(device), event_(device, event) {}
  VkDevice device_ = VK_NULL_HANDLE;
  EventHandle event_;
};

}  // namespace vkserve::gpu

#endif  // VKSERVE_GPU_EVENT_H_
