// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "gpu/device.h"

#include <optional>
#include <vector>

#include "gpu/queue.h"
#include "gpu/vk_cooperative_matrix_khr.h"
#include "gpu/vk_status.h"
#include "spdlog/spdlog.h"

namespace vkserve::gpu {

absl::StatusOr<std::unique_ptr<Device>> Device::Create(const Instance& instance,
                                                       const DeviceOptions& options) {
  ASSIGN_OR_RETURN(const DeviceInfo* selected, SelectDevice(instance.devices(), options.selector));
  auto device = std::unique_ptr<Device>(new Device());
  device->instance_ = &instance;
  device->info_ = *selected;
  device->faults_ = options.faults;
  const DeviceInfo& info = device->info_;

  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{};
  queue_info.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue_info.queueFamilyIndex = info.compute_queue_family;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;

  std::vector<const char*> extensions;
  const bool push = options.allow_push_descriptors && info.push_descriptor;
  if (push) extensions.push_back(VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);

  // Tensor-core kernels through the extension chosen: each needs the device
  // to report an fp16 x fp16 -> fp32 shape and fp16 arithmetic for the
  // shared tiles.
  ASSIGN_OR_RETURN(const std::optional<MatrixExtension> matrix,
                   ChooseMatrixExtension(info, options.matrix_extension));
  const bool coopmat = matrix.has_value();
  const bool khr = matrix == MatrixExtension::kKhr;
  VkPhysicalDeviceCooperativeMatrixFeaturesNV nv_features{};
  nv_features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV;
  nv_features.cooperativeMatrix = VK_TRUE;
  CooperativeMatrixFeaturesKHR khr_features{};
  khr_features.sType = kCooperativeMatrixFeaturesKHRType;
  khr_features.cooperativeMatrix = VK_TRUE;
  void* coopmat_features = khr ? static_cast<void*>(&khr_features) : &nv_features;
  if (coopmat) {
    extensions.push_back(khr ? kKhrCooperativeMatrixExtension : kNvCooperativeMatrixExtension);
  }

  const bool statistics = options.pipeline_statistics && info.pipeline_executable_info;
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR statistics_features{};
  statistics_features.sType =
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR;
  statistics_features.pipelineExecutableInfo = VK_TRUE;
  if (statistics) {
    extensions.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
    statistics_features.pNext = coopmat ? coopmat_features : nullptr;
  }

  VkPhysicalDeviceVulkan12Features f12{};
  f12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  if (coopmat) f12.pNext = coopmat_features;
  if (statistics) f12.pNext = &statistics_features;
  f12.timelineSemaphore = VK_TRUE;
  f12.shaderFloat16 = info.shader_float16;
  // Subgroup size control where the device has it (DeviceInfo: Vulkan
  // 1.3), for pipelines written for another subgroup size than its default.
  VkPhysicalDeviceVulkan13Features f13{};
  f13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES;
  f13.subgroupSizeControl = VK_TRUE;
  f13.computeFullSubgroups = info.compute_full_subgroups;
  if (info.min_subgroup_size > 0) {
    f13.pNext = f12.pNext;
    f12.pNext = &f13;
  }
  VkPhysicalDeviceVulkan11Features f11{};
  f11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
  f11.storageBuffer16BitAccess = info.storage_buffer_16bit;
  f11.pNext = &f12;
  VkPhysicalDeviceFeatures2 features{};
  features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  features.features.shaderInt64 = info.shader_int64;
  features.pNext = &f11;

  VkDeviceCreateInfo create{};
  create.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  create.pNext = &features;
  create.queueCreateInfoCount = 1;
  create.pQueueCreateInfos = &queue_info;
  create.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  create.ppEnabledExtensionNames = extensions.data();
  VK_RETURN_IF_ERROR(vkCreateDevice(info.physical_device, &create, nullptr, &device->device_));

  device->storage_16bit_ = info.storage_buffer_16bit;
  device->float16_ = info.shader_float16;
  device->pipeline_statistics_ = statistics;
  device->info_.cooperative_matrix_enabled = coopmat;
  device->info_.cooperative_matrix_khr = khr;
  device->info_.coopmat_f16_f32_shapes =
      khr ? info.khr_coopmat_f16_f32_shapes : info.nv_coopmat_f16_f32_shapes;
  device->info_.coopmat_f16_f16_shapes =
      khr ? info.khr_coopmat_f16_f16_shapes : info.nv_coopmat_f16_f16_shapes;
  if (!coopmat) {
    device->info_.coopmat_f16_f32_shapes.clear();
    device->info_.coopmat_f16_f16_shapes.clear();
  }
  if (coopmat) {
    spdlog::info("{}: tensor-core kernels through {}{}", info.name,
                 khr ? kKhrCooperativeMatrixExtension : kNvCooperativeMatrixExtension,
                 khr ? " (the _khr kernels)" : "");
  }
  if (push) {
    device->push_descriptor_fn_ = reinterpret_cast<PFN_vkCmdPushDescriptorSetKHR>(
        vkGetDeviceProcAddr(device->device_, "vkCmdPushDescriptorSetKHR"));
  }
  VkQueue queue = VK_NULL_HANDLE;
  vkGetDeviceQueue(device->device_, info.compute_queue_family, 0, &queue);
  ASSIGN_OR_RETURN(device->queue_, Queue::Create(*device, queue));
  return device;
}

Device::~Device() {
  if (device_ == VK_NULL_HANDLE) return;
  // Nothing may be destroyed while the GPU still uses it; a lost device
  // returns at once.
  vkDeviceWaitIdle(device_);
  queue_.reset();
  vkDestroyDevice(device_, nullptr);
}

}  // namespace vkserve::gpu
