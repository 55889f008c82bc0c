// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Device: a logical VkDevice on one physical device, with the features vkserve
// uses enabled, and its compute Queue. Thread-safe; must outlive everything
// created from it (allocators, pipelines, command buffers) and be outlived by
// its Instance.
#ifndef VKSERVE_GPU_DEVICE_H_
#define VKSERVE_GPU_DEVICE_H_

#include <vulkan/vulkan.h>

#include <atomic>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "gpu/device_info.h"
#include "gpu/instance.h"
#include "gpu/matrix_extension.h"

namespace vkserve::gpu {

class FaultInjector;
class Queue;

struct DeviceOptions {
  // Device index or case-insensitive name substring; empty: best available
  // (discrete, integrated, virtual, then CPU). See SelectDevice().
  std::string selector;
  // Use VK_KHR_push_descriptor when the device has it. Off forces pooled
  // descriptor sets (tests run both paths).
  bool allow_push_descriptors = true;
  // Test seam: injected allocation failures and device loss (see
  // fault_injector.h). Null in production.
  std::shared_ptr<FaultInjector> faults = nullptr;
  // Ask the driver for each pipeline's compile statistics (registers,
  // spills, shared memory: VK_KHR_pipeline_executable_properties) and log
  // them as pipelines are created. Ignored where the device lacks it.
  bool pipeline_statistics = false;
  // The extension the tensor-core kernels run through (matrix_extension.h):
  // kAuto prefers VK_KHR_cooperative_matrix, then VK_NV_cooperative_matrix;
  // kNv or kKhr on a device without it fails Create.
  MatrixExtension matrix_extension = MatrixExtension::kAuto;
};

class Device {
 public:
  // REQUIRES: `instance` outlives the returned Device.
  static absl::StatusOr<std::unique_ptr<Device>> Create(const Instance& instance,
                                                        const DeviceOptions& options = {});
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
  ~Device();

  VkDevice handle() const { return device_; }
  VkPhysicalDevice physical_device() const { return info_.physical_device; }
  const DeviceInfo& info() const { return info_; }
  // Records what a start-up probe measured (DeviceInfo::coopmat_mma_fragments).
  // Not thread-safe: call before the device is shared.
  void set_coopmat_mma_fragments(bool value) { info_.coopmat_mma_fragments = value; }
  const Instance& instance() const { return *instance_; }
  Queue& queue() const { return *queue_; }

  // Features enabled on this device (a subset of what info() reports).
  bool uses_push_descriptors() const { return push_descriptor_fn_ != nullptr; }
  bool has_16bit_storage() const { return storage_16bit_; }
  bool has_float16() const { return float16_; }
  PFN_vkCmdPushDescriptorSetKHR push_descriptor_fn() const { return push_descriptor_fn_; }
  // True when DeviceOptions::pipeline_statistics was asked for and the
  // device has VK_KHR_pipeline_executable_properties.
  bool captures_pipeline_statistics() const { return pipeline_statistics_; }

  // Device loss is sticky: once a call reported VK_ERROR_DEVICE_LOST (or a
  // FaultInjector simulated it), every later submit and wait on this device
  // reports it too, and everything created from it must be destroyed.
  void MarkLost() const { lost_.store(true, std::memory_order_release); }
  bool lost() const { return lost_.load(std::memory_order_acquire); }
  // Null unless DeviceOptions::faults was set.
  FaultInjector* faults() const { return faults_.get(); }

 private:
  Device() = default;

  const Instance* instance_ = nullptr;
  DeviceInfo info_;
  VkDevice device_ = VK_NULL_HANDLE;
  std::unique_ptr<Queue> queue_;
  PFN_vkCmdPushDescriptorSetKHR push_descriptor_fn_ = nullptr;
  bool storage_16bit_ = false;
  bool float16_ = false;
  bool pipeline_statistics_ = false;
  std::shared_ptr<FaultInjector> faults_;
  mutable std::atomic<bool> lost_{false};
};

}  // namespace vkserve::gpu

#endif  // VKSERVE_GPU_DEVICE_H_
