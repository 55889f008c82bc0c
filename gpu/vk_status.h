// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Conversion of VkResult into absl::Status. Every Vulkan call whose result can
// fail goes through VK_RETURN_IF_ERROR, so errors name the call and the
// result. Codes follow gRPC: out-of-memory is RESOURCE_EXHAUSTED, device loss
// is UNAVAILABLE carrying a payload that IsDeviceLost() recognizes, so a
// caller (a session pool) can drop the device and recreate it.
// Stateless; thread-safe.
#ifndef VKSERVE_GPU_VK_STATUS_H_
#define VKSERVE_GPU_VK_STATUS_H_

#include <vulkan/vulkan.h>

#include <string_view>

#include "absl/status/status.h"
#include "base/status_macros.h"

namespace vkserve::gpu {

// "VK_ERROR_OUT_OF_DEVICE_MEMORY" etc.; "VkResult(<n>)" for unknown values.
std::string_view VkResultName(VkResult result);

// A Status for a failed Vulkan call. `call` is the call's source text; only
// the function name (up to the first '(') goes into the message.
// REQUIRES: result != VK_SUCCESS.
absl::Status VkResultToStatus(VkResult result, std::string_view call);

// True when `status` came from VK_ERROR_DEVICE_LOST: the device is unusable
// and everything created from it must be destroyed.
bool IsDeviceLost(const absl::Status& status);

}  // namespace vkserve::gpu

// Evaluates a Vulkan call; returns a Status naming it unless it succeeded.
#define VK_RETURN_IF_ERROR(call)                                          \
  do {                                                                    \
    VkResult vkserve_vk_result_ = (call);                                 \
    if (vkserve_vk_result_ != VK_SUCCESS)                                 \
      return ::vkserve::gpu::VkResultToStatus(vkserve_vk_result_, #call); \
  } while (0)

#endif  // VKSERVE_GPU_VK_STATUS_H_
