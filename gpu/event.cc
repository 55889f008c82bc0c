// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "gpu/event.h"

#include "gpu/vk_status.h"

namespace vkserve::gpu {

absl::StatusOr<Event> Event::Create(const Device& device) {
  VkEventCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_EVENT_CREATE_INFO;
  VkEvent event = VK_NULL_HANDLE;
  VK_RETURN_IF_ERROR(vkCreateEvent(device.handle(), &info, nullptr, &event));
  return Event(device.handle(), event);
}

absl::Status Event::Reset() {
  VK_RETURN_IF_ERROR(vkResetEvent(device_, event_.get()));
  return absl::OkStatus();
}

absl::StatusOr<bool> Event::IsSet() const {
  const VkResult result = vkGetEventStatus(device_, event_.get());
  if (result == VK_EVENT_SET) return true;
  if (result == VK_EVENT_RESET) return false;
  return VkResultToStatus(result, "vkGetEventStatus");
}

}  // namespace vkserve::gpu
