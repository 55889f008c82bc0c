// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Instance: the VkInstance, optionally with the Khronos validation layer and a
// debug messenger that counts (and logs) every message it receives. Tests run
// with validation on and fail on any message; see validation_message_count().
// Thread-safe after creation; must outlive every Device created from it.
#ifndef VKSERVE_GPU_INSTANCE_H_
#define VKSERVE_GPU_INSTANCE_H_

#include <vulkan/vulkan.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/mutex.h"
#include "gpu/device_info.h"

namespace vkserve::gpu {

struct InstanceOptions {
  // Enable VK_LAYER_KHRONOS_validation and count its messages. When unset,
  // the VKSERVE_VALIDATION environment variable decides ("1" or "fatal" turn
  // it on; "fatal" also aborts on the first message).
  enum class Validation { kFromEnvironment, kOff, kOn, kFatal };
  Validation validation = Validation::kFromEnvironment;
};

class Instance {
 public:
  // Creates the instance. Fails with FAILED_PRECONDITION when no Vulkan loader
  // or driver is present, or validation was asked for and the layer is missing.
  static absl::StatusOr<std::unique_ptr<Instance>> Create(const InstanceOptions& options = {});

  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;
  ~Instance();

  VkInstance handle() const { return instance_; }
  bool validation_enabled() const { return messenger_ != VK_NULL_HANDLE; }

  // Every physical device with what vkserve needs to know about it, in the
  // driver's order. Devices below Vulkan 1.2 are listed with `usable` false.
  const std::vector<DeviceInfo>& devices() const { return devices_; }

  // Messages the validation layer has sent (warnings and errors).
  int validation_message_count() const { return message_count_.load(); }
  // The text of the last few messages, for test failure output.
  std::vector<std::string> recent_validation_messages() const;

 private:
  Instance() = default;
  static VKAPI_ATTR VkBool32 VKAPI_CALL OnDebugMessage(
      VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT types,
      const VkDebugUtilsMessengerCallbackDataEXT* data, void* user_data);

  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  bool fatal_messages_ = false;
  std::vector<DeviceInfo> devices_;
  std::atomic<int> message_count_{0};
  mutable Mutex messages_mutex_;
  std::vector<std::string> messages_ ABSL_GUARDED_BY(messages_mutex_);
};

}  // namespace vkserve::gpu

#endif  // VKSERVE_GPU_INSTANCE_H_
