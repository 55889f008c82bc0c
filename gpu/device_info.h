// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// DeviceInfo: what vkserve needs to know about a physical device — identity,
// the limits kernels are sized from, optional features, and memory layout —
// read once from the driver. Plain data; thread-compatible.
#ifndef VKSERVE_GPU_DEVICE_INFO_H_
#define VKSERVE_GPU_DEVICE_INFO_H_

#include <vulkan/vulkan.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace vkserve::gpu {

struct MemoryHeapInfo {
  uint64_t size = 0;
  bool device_local = false;
};

struct MemoryTypeInfo {
  uint32_t heap = 0;
  VkMemoryPropertyFlags flags = 0;
};

struct DeviceInfo {
  uint32_t index = 0;  // position in vkEnumeratePhysicalDevices
  VkPhysicalDevice physical_device = VK_NULL_HANDLE;
  std::string name;
  VkPhysicalDeviceType type = VK_PHYSICAL_DEVICE_TYPE_OTHER;
  uint32_t vendor_id = 0;
  uint32_t device_id = 0;
  uint32_t api_version = 0;
  uint32_t driver_version = 0;
  std::string driver_name;  // e.g. "llvmpipe", "NVIDIA"
  std::string driver_info;  // e.g. "Mesa 22.3.6 (LLVM 15.0.6)", "580.159.04"
  // Loop iterations one shader invocation may run in all before the driver
  // ends its loops early and silently: 65,535 on llvmpipe (lavapipe), which
  // gives a short answer instead of an error; no limit elsewhere. Kernels
  // whose invocations may loop longer are refused (CheckInvocationLoops).
  uint64_t max_invocation_loop_iterations = UINT64_MAX;
  std::array<uint8_t, VK_UUID_SIZE> pipeline_cache_uuid{};
  // VkPhysicalDeviceIDProperties::deviceUUID: stable across processes and
  // reboots for one GPU (on NVIDIA it is nvidia-smi's UUID). See uuid().
  std::array<uint8_t, VK_UUID_SIZE> device_uuid{};

  // Compute limits.
  uint32_t subgroup_size = 0;  // the size a pipeline gets unless it asks
  // Vulkan 1.3's subgroup size control, for compute: a pipeline may require
  // any power of two in [min_subgroup_size, max_subgroup_size] (AMD's 64-wide
  // subgroups run the 32-wide tensor-core kernels so). Zero sizes: no control.
  uint32_t min_subgroup_size = 0;
  uint32_t max_subgroup_size = 0;
  bool compute_full_subgroups = false;  // computeFullSubgroups
  // Streaming multiprocessors (VK_NV_shader_sm_builtins' shaderSMCount);
  // 0 where the device does not say. The GEMM cost model counts waves of
  // workgroups over them.
  uint32_t compute_units = 0;
  bool subgroup_arithmetic = false;  // VK_SUBGROUP_FEATURE_ARITHMETIC in compute
  uint32_t max_shared_memory = 0;    // maxComputeSharedMemorySize, bytes
  uint32_t max_workgroup_invocations = 0;
  std::array<uint32_t, 3> max_workgroup_size{};
  std::array<uint32_t, 3> max_workgroup_count{};
  uint32_t max_push_constants = 0;
  uint64_t max_storage_buffer_range = 0;  // the most one binding may cover
  uint64_t max_allocation_size = 0;       // maxMemoryAllocationSize
  uint64_t min_storage_buffer_offset_alignment = 0;
  uint64_t non_coherent_atom_size = 0;
  float timestamp_period = 0;         // ns per tick
  uint32_t timestamp_valid_bits = 0;  // on the compute queue; 0: no timestamps

  // Optional features.
  bool storage_buffer_16bit = false;  // storageBuffer16BitAccess
  bool shader_float16 = false;
  bool shader_int64 = false;
  bool timeline_semaphore = false;
  bool push_descriptor = false;           // VK_KHR_push_descriptor
  bool pipeline_executable_info = false;  // VK_KHR_pipeline_executable_properties
  bool khr_cooperative_matrix = false;
  bool nv_cooperative_matrix = false;
  bool nv_cooperative_matrix2 = false;
  bool nv_shader_sm_builtins = false;  // VK_NV_shader_sm_builtins (compute_units)
  // Each extension's cooperativeMatrix feature, and the shapes it reports
  // with fp16 A and B, fp32 C and result, at subgroup scope
  // (vkGetPhysicalDeviceCooperativeMatrixPropertiesNV / ...KHR). The GEMM
  // engine picks its tensor-core kernels from the shapes of the extension in
  // use; nothing assumes a shape.
  struct MatrixShape {
    uint32_t m = 0, n = 0, k = 0;
  };
  bool nv_cooperative_matrix_feature = false;
  bool khr_cooperative_matrix_feature = false;
  std::vector<MatrixShape> nv_coopmat_f16_f32_shapes;
  std::vector<MatrixShape> khr_coopmat_f16_f32_shapes;
  // The shapes of the extension the kernels use: QueryDevices fills in those
  // of the automatic choice (gpu/matrix_extension.h), Device::Create those of
  // the one it enabled.
  std::vector<MatrixShape> coopmat_f16_f32_shapes;
  // The same with fp16 C and result (fp16 accumulation, the "_acc16" GEMM
  // variants), per extension and of the chosen one: separate lists, as a
  // device may rate or offer them apart.
  std::vector<MatrixShape> nv_coopmat_f16_f16_shapes;
  std::vector<MatrixShape> khr_coopmat_f16_f16_shapes;
  std::vector<MatrixShape> coopmat_f16_f16_shapes;
  // Set by Device::Create when it enabled a cooperative-matrix extension;
  // cooperative_matrix_khr when that is VK_KHR_cooperative_matrix, whose
  // kernels are the "_khr" forms.
  bool cooperative_matrix_enabled = false;
  bool cooperative_matrix_khr = false;
  // The enabled extension's 16x16 fp32 accumulator and fp16 A fragments
  // hold a lane's elements where NVIDIA's mma.sync m16n8k16 puts them
  // (shaders/attention/flash_attention_cm_regs.glsl): measured by a probe
  // (runtime/kernels/tensor_core_layout.h) at start-up, never assumed.
  bool coopmat_mma_fragments = false;

  // Whether compute pipelines can run with subgroups of `size`: the default
  // size, or one subgroup size control can require.
  bool RunsSubgroupsOf(uint32_t size) const {
    return size == subgroup_size ||
           (min_subgroup_size > 0 && min_subgroup_size <= size && size <= max_subgroup_size);
  }

  std::vector<MemoryHeapInfo> heaps;
  std::vector<MemoryTypeInfo> memory_types;
  // Some memory type is DEVICE_LOCAL and HOST_VISIBLE on a device-local heap
  // (resizable BAR / unified memory): uploads can skip staging.
  bool host_visible_device_local = false;

  uint32_t compute_queue_family = 0;  // prefers a compute-only family

  // Vulkan 1.2 with timeline semaphores and a compute queue. When false,
  // `unusable_reason` says why.
  bool usable = false;
  std::string unusable_reason;

  // device_uuid as "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (lower-case
  // hex, nvidia-smi's form): the `gpu` label of per-GPU metrics, and a
  // device selector.
  std::string uuid() const;
  std::string_view type_name() const;  // "discrete", "integrated", "virtual", "cpu", "other"
  // Bytes of the largest device-local heap (0 when none is): what budgets
  // sized from the device's memory start from.
  uint64_t largest_device_local_heap() const;
  // Multi-line human-readable summary, as printed by `vkserve devices`.
  std::string ToString() const;
};

// Reads every physical device of `instance`.
absl::StatusOr<std::vector<DeviceInfo>> QueryDevices(VkInstance instance);

// Picks a device. An empty selector prefers a usable discrete GPU, then
// integrated, then virtual, then a CPU device (lavapipe). A selector of digits
// is an index; "GPU-" followed by a UUID (case-insensitive) is that device's
// uuid(); anything else matches a case-insensitive substring of the name.
// Fails with NOT_FOUND naming the selector and listing the devices.
absl::StatusOr<const DeviceInfo*> SelectDevice(const std::vector<DeviceInfo>& devices,
                                               std::string_view selector);

}  // namespace vkserve::gpu

#endif  // VKSERVE_GPU_DEVICE_INFO_H_
