// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// DeviceHandle<T, Destroy>: the single owner of one Vulkan object created from
// a VkDevice. Move-only; destroys the object with `Destroy` when it goes out
// of scope. Not thread-safe: like the Vulkan object itself, it must not be
// destroyed while another thread or the GPU still uses it (a submission keeps
// what it uses alive; see queue.h).
#ifndef VKSERVE_GPU_HANDLE_H_
#define VKSERVE_GPU_HANDLE_H_

#include <vulkan/vulkan.h>

#include <utility>

namespace vkserve::gpu {

template <typename T, void (*Destroy)(VkDevice, T, const VkAllocationCallbacks*)>
class DeviceHandle {
 public:
  DeviceHandle() = default;
  // Takes ownership of `handle`, which was created from `device`.
  DeviceHandle(VkDevice device, T handle) : device_(device), handle_(handle) {}
  DeviceHandle(const DeviceHandle&) = delete;
  DeviceHandle& operator=(const DeviceHandle&) = delete;
  DeviceHandle(DeviceHandle&& other) noexcept
      : device_(other.device_), handle_(std::exchange(other.handle_, VK_NULL_HANDLE)) {}
  DeviceHandle& operator=(DeviceHandle&& other) noexcept {
    if (this != &other) {
      reset();
      device_ = other.device_;
      handle_ = std::exchange(other.handle_, VK_NULL_HANDLE);
    }
    return *this;
  }
  ~DeviceHandle() { reset(); }

  T get() const { return handle_; }
  explicit operator bool() const { return handle_ != VK_NULL_HANDLE; }

  void reset() {
    if (handle_ != VK_NULL_HANDLE) Destroy(device_, handle_, nullptr);
    handle_ = VK_NULL_HANDLE;
  }

 private:
  VkDevice device_ = VK_NULL_HANDLE;
  T handle_ = VK_NULL_HANDLE;
};

using BufferHandle = DeviceHandle<VkBuffer, vkDestroyBuffer>;
using MemoryHandle = DeviceHandle<VkDeviceMemory, vkFreeMemory>;
using ShaderModuleHandle = DeviceHandle<VkShaderModule, vkDestroyShaderModule>;
using PipelineHandle = DeviceHandle<VkPipeline, vkDestroyPipeline>;
using PipelineLayoutHandle = DeviceHandle<VkPipelineLayout, vkDestroyPipelineLayout>;
using PipelineCacheHandle = DeviceHandle<VkPipelineCache, vkDestroyPipelineCache>;
using DescriptorSetLayoutHandle = DeviceHandle<VkDescriptorSetLayout, vkDestroyDescriptorSetLayout>;
using DescriptorPoolHandle = DeviceHandle<VkDescriptorPool, vkDestroyDescriptorPool>;
using CommandPoolHandle = DeviceHandle<VkCommandPool, vkDestroyCommandPool>;
using QueryPoolHandle = DeviceHandle<VkQueryPool, vkDestroyQueryPool>;
using SemaphoreHandle = DeviceHandle<VkSemaphore, vkDestroySemaphore>;

}  // namespace vkserve::gpu

#endif  // VKSERVE_GPU_HANDLE_H_
