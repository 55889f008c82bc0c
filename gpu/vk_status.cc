// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "gpu/vk_status.h"

#include <string>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"

namespace vkserve::gpu {
namespace {

constexpr char kDeviceLostPayload[] = "vkserve.dev/device-lost";

absl::StatusCode CodeFor(VkResult result) {
  switch (result) {
    case VK_ERROR_OUT_OF_HOST_MEMORY:
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
    case VK_ERROR_TOO_MANY_OBJECTS:
    case VK_ERROR_FRAGMENTED_POOL:
    case VK_ERROR_OUT_OF_POOL_MEMORY:
    case VK_ERROR_FRAGMENTATION:
      return absl::StatusCode::kResourceExhausted;
    case VK_ERROR_DEVICE_LOST:
      return absl::StatusCode::kUnavailable;
    case VK_TIMEOUT:
    case VK_NOT_READY:
      return absl::StatusCode::kDeadlineExceeded;
    case VK_ERROR_LAYER_NOT_PRESENT:
    case VK_ERROR_EXTENSION_NOT_PRESENT:
    case VK_ERROR_FEATURE_NOT_PRESENT:
    case VK_ERROR_INCOMPATIBLE_DRIVER:
    case VK_ERROR_FORMAT_NOT_SUPPORTED:
      return absl::StatusCode::kFailedPrecondition;
    default:
      return absl::StatusCode::kInternal;
  }
}

}  // namespace

std::string_view VkResultName(VkResult result) {
  switch (result) {
#define VKSERVE_CASE_(r) \
  case r:                \
    return #r;
    VKSERVE_CASE_(VK_SUCCESS)
    VKSERVE_CASE_(VK_NOT_READY)
    VKSERVE_CASE_(VK_TIMEOUT)
    VKSERVE_CASE_(VK_EVENT_SET)
    VKSERVE_CASE_(VK_EVENT_RESET)
    VKSERVE_CASE_(VK_INCOMPLETE)
    VKSERVE_CASE_(VK_ERROR_OUT_OF_HOST_MEMORY)
    VKSERVE_CASE_(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    VKSERVE_CASE_(VK_ERROR_INITIALIZATION_FAILED)
    VKSERVE_CASE_(VK_ERROR_DEVICE_LOST)
    VKSERVE_CASE_(VK_ERROR_MEMORY_MAP_FAILED)
    VKSERVE_CASE_(VK_ERROR_LAYER_NOT_PRESENT)
    VKSERVE_CASE_(VK_ERROR_EXTENSION_NOT_PRESENT)
    VKSERVE_CASE_(VK_ERROR_FEATURE_NOT_PRESENT)
    VKSERVE_CASE_(VK_ERROR_INCOMPATIBLE_DRIVER)
    VKSERVE_CASE_(VK_ERROR_TOO_MANY_OBJECTS)
    VKSERVE_CASE_(VK_ERROR_FORMAT_NOT_SUPPORTED)
    VKSERVE_CASE_(VK_ERROR_FRAGMENTED_POOL)
    VKSERVE_CASE_(VK_ERROR_UNKNOWN)
    VKSERVE_CASE_(VK_ERROR_OUT_OF_POOL_MEMORY)
    VKSERVE_CASE_(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    VKSERVE_CASE_(VK_ERROR_FRAGMENTATION)
    VKSERVE_CASE_(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
    VKSERVE_CASE_(VK_PIPELINE_COMPILE_REQUIRED)
#undef VKSERVE_CASE_
    default:
      return "VkResult(unknown)";
  }
}

absl::Status VkResultToStatus(VkResult result, std::string_view call) {
  std::string_view name = call.substr(0, call.find('('));
  while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
  std::string message =
      absl::StrCat(std::string(name), " failed: ", std::string(VkResultName(result)), " (",
                   static_cast<int>(result), ")");
  absl::Status status(CodeFor(result), message);
  if (result == VK_ERROR_DEVICE_LOST) status.SetPayload(kDeviceLostPayload, absl::Cord("1"));
  return status;
}

bool IsDeviceLost(const absl::Status& status) {
  return status.GetPayload(kDeviceLostPayload).has_value();
}

}  // namespace vkserve::gpu
