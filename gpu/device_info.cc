// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "gpu/device_info.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gpu/matrix_extension.h"
#include "gpu/vk_cooperative_matrix_khr.h"
#include "gpu/vk_status.h"

namespace vkserve::gpu {
namespace {

bool HasExtension(const std::vector<VkExtensionProperties>& extensions, const char* name) {
  return std::any_of(extensions.begin(), extensions.end(), [name](const VkExtensionProperties& e) {
    return std::strcmp(e.extensionName, name) == 0;
  });
}

std::string Bytes(uint64_t bytes) {
  if (bytes >= (uint64_t{1} << 30)) return absl::StrFormat("%.2f GiB", bytes / double(1 << 30));
  if (bytes >= (uint64_t{1} << 20)) return absl::StrFormat("%.1f MiB", bytes / double(1 << 20));
  if (bytes >= 1024) return absl::StrFormat("%.1f KiB", bytes / 1024.0);
  return absl::StrCat(bytes, " B");
}

std::string VersionString(uint32_t v) {
  return absl::StrCat(VK_API_VERSION_MAJOR(v), ".", VK_API_VERSION_MINOR(v), ".",
                      VK_API_VERSION_PATCH(v));
}

int TypeRank(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return 3;
    default:
      return 4;
  }
}

// Whether a reported matrix is fp16 x fp16 -> `result` at subgroup scope
// (the component and scope enums of both extensions share their values).
bool F16Subgroup(VkComponentTypeNV a, VkComponentTypeNV b, VkComponentTypeNV c,
                 VkComponentTypeNV d, VkScopeNV scope, VkComponentTypeNV result) {
  return a == VK_COMPONENT_TYPE_FLOAT16_NV && b == VK_COMPONENT_TYPE_FLOAT16_NV && c == result &&
         d == result && scope == VK_SCOPE_SUBGROUP_NV;
}

// The fp16 x fp16 -> fp32 and -> fp16 subgroup shapes of VK_NV_cooperative_matrix.
absl::Status QueryNvCoopmatShapes(VkInstance instance, VkPhysicalDevice pd, DeviceInfo* info) {
  auto fn = reinterpret_cast<PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV>(
      vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesNV"));
  if (fn == nullptr) return absl::OkStatus();
  uint32_t count = 0;
  VK_RETURN_IF_ERROR(fn(pd, &count, nullptr));
  std::vector<VkCooperativeMatrixPropertiesNV> props(count);
  for (auto& p : props) p.sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV;
  VK_RETURN_IF_ERROR(fn(pd, &count, props.data()));
  for (const auto& p : props) {
    if (F16Subgroup(p.AType, p.BType, p.CType, p.DType, p.scope, VK_COMPONENT_TYPE_FLOAT32_NV)) {
      info->nv_coopmat_f16_f32_shapes.push_back({p.MSize, p.NSize, p.KSize});
    }
    if (F16Subgroup(p.AType, p.BType, p.CType, p.DType, p.scope, VK_COMPONENT_TYPE_FLOAT16_NV)) {
      info->nv_coopmat_f16_f16_shapes.push_back({p.MSize, p.NSize, p.KSize});
    }
  }
  return absl::OkStatus();
}

// The same for VK_KHR_cooperative_matrix (not saturating).
absl::Status QueryKhrCoopmatShapes(VkInstance instance, VkPhysicalDevice pd, DeviceInfo* info) {
  auto fn = reinterpret_cast<PfnCooperativeMatrixPropertiesKHR>(
      vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR"));
  if (fn == nullptr) return absl::OkStatus();
  uint32_t count = 0;
  VK_RETURN_IF_ERROR(fn(pd, &count, nullptr));
  std::vector<CooperativeMatrixPropertiesKHR> props(count);
  for (auto& p : props) {
    p = {};
    p.sType = kCooperativeMatrixPropertiesKHRType;
  }
  VK_RETURN_IF_ERROR(fn(pd, &count, props.data()));
  for (const auto& p : props) {
    if (p.saturatingAccumulation) continue;
    const auto a = static_cast<VkComponentTypeNV>(p.AType);
    const auto b = static_cast<VkComponentTypeNV>(p.BType);
    const auto c = static_cast<VkComponentTypeNV>(p.CType);
    const auto d = static_cast<VkComponentTypeNV>(p.ResultType);
    const auto scope = static_cast<VkScopeNV>(p.scope);
    if (F16Subgroup(a, b, c, d, scope, VK_COMPONENT_TYPE_FLOAT32_NV)) {
      info->khr_coopmat_f16_f32_shapes.push_back({p.MSize, p.NSize, p.KSize});
    }
    if (F16Subgroup(a, b, c, d, scope, VK_COMPONENT_TYPE_FLOAT16_NV)) {
      info->khr_coopmat_f16_f16_shapes.push_back({p.MSize, p.NSize, p.KSize});
    }
  }
  return absl::OkStatus();
}

absl::Status QueryExtensions(VkPhysicalDevice pd, DeviceInfo* info) {
  uint32_t ext_count = 0;
  VK_RETURN_IF_ERROR(vkEnumerateDeviceExtensionProperties(pd, nullptr, &ext_count, nullptr));
  std::vector<VkExtensionProperties> extensions(ext_count);
  VK_RETURN_IF_ERROR(
      vkEnumerateDeviceExtensionProperties(pd, nullptr, &ext_count, extensions.data()));
  info->push_descriptor = HasExtension(extensions, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
  info->pipeline_executable_info =
      HasExtension(extensions, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
  info->khr_cooperative_matrix = HasExtension(extensions, kKhrCooperativeMatrixExtension);
  info->nv_cooperative_matrix = HasExtension(extensions, kNvCooperativeMatrixExtension);
  info->nv_cooperative_matrix2 = HasExtension(extensions, "VK_NV_cooperative_matrix2");
  info->nv_shader_sm_builtins = HasExtension(extensions, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME);
  return absl::OkStatus();
}

// Identity, driver, subgroup and the limits vkserve plans with.
void QueryProperties(VkPhysicalDevice pd, DeviceInfo* info) {
  VkPhysicalDeviceSubgroupProperties subgroup{};
  subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
  VkPhysicalDeviceMaintenance3Properties maintenance3{};
  maintenance3.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES;
  maintenance3.pNext = &subgroup;
  VkPhysicalDeviceIDProperties id{};
  id.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES;
  id.pNext = &maintenance3;
  VkPhysicalDeviceDriverProperties driver{};
  driver.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
  driver.pNext = &id;
  // Chained only where the extension is offered (an unknown structure in
  // the chain is invalid usage).
  VkPhysicalDeviceShaderSMBuiltinsPropertiesNV sm{};
  sm.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV;
  if (info->nv_shader_sm_builtins) {
    sm.pNext = driver.pNext;
    driver.pNext = &sm;
  }
  VkPhysicalDeviceSubgroupSizeControlProperties size_control{};
  size_control.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES;
  if (info->api_version >= VK_API_VERSION_1_3) {
    size_control.pNext = driver.pNext;
    driver.pNext = &size_control;
  }
  VkPhysicalDeviceProperties2 props{};
  props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  props.pNext = &driver;
  vkGetPhysicalDeviceProperties2(pd, &props);
  // Kept only where the feature is on (QueryFeatures).
  if (size_control.requiredSubgroupSizeStages & VK_SHADER_STAGE_COMPUTE_BIT) {
    info->min_subgroup_size = size_control.minSubgroupSize;
    info->max_subgroup_size = size_control.maxSubgroupSize;
  }
  info->compute_units = sm.shaderSMCount;
  const VkPhysicalDeviceLimits& limits = props.properties.limits;

  info->name = props.properties.deviceName;
  info->type = props.properties.deviceType;
  info->vendor_id = props.properties.vendorID;
  info->device_id = props.properties.deviceID;
  info->driver_version = props.properties.driverVersion;
  info->driver_name = driver.driverName;
  info->driver_info = driver.driverInfo;
  if (info->driver_name == "llvmpipe") info->max_invocation_loop_iterations = 65535;
  std::memcpy(info->pipeline_cache_uuid.data(), props.properties.pipelineCacheUUID, VK_UUID_SIZE);
  std::memcpy(info->device_uuid.data(), id.deviceUUID, VK_UUID_SIZE);
  info->subgroup_size = subgroup.subgroupSize;
  info->subgroup_arithmetic = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                              (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT);
  info->max_shared_memory = limits.maxComputeSharedMemorySize;
  info->max_workgroup_invocations = limits.maxComputeWorkGroupInvocations;
  for (int i = 0; i < 3; ++i) {
    info->max_workgroup_size[i] = limits.maxComputeWorkGroupSize[i];
    info->max_workgroup_count[i] = limits.maxComputeWorkGroupCount[i];
  }
  info->max_push_constants = limits.maxPushConstantsSize;
  info->max_storage_buffer_range = limits.maxStorageBufferRange;
  info->max_allocation_size = maintenance3.maxMemoryAllocationSize;
  info->min_storage_buffer_offset_alignment = limits.minStorageBufferOffsetAlignment;
  info->non_coherent_atom_size = limits.nonCoherentAtomSize;
  info->timestamp_period = limits.timestampPeriod;
}

// The optional features vkserve uses (Vulkan 1.2 devices only report them),
// and the cooperative-matrix shapes where the feature is on.
absl::Status QueryFeatures(VkInstance instance, VkPhysicalDevice pd, DeviceInfo* info) {
  VkPhysicalDeviceCooperativeMatrixFeaturesNV coopmat{};
  coopmat.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV;
  CooperativeMatrixFeaturesKHR khr_coopmat{};
  khr_coopmat.sType = kCooperativeMatrixFeaturesKHRType;
  VkPhysicalDeviceVulkan12Features f12{};
  f12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  VkPhysicalDeviceVulkan13Features f13{};
  f13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES;
  if (info->api_version >= VK_API_VERSION_1_3) f12.pNext = &f13;
  // Each chained only where its extension is offered.
  if (info->nv_cooperative_matrix) {
    coopmat.pNext = f12.pNext;
    f12.pNext = &coopmat;
  }
  if (info->khr_cooperative_matrix) {
    khr_coopmat.pNext = f12.pNext;
    f12.pNext = &khr_coopmat;
  }
  VkPhysicalDeviceVulkan11Features f11{};
  f11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
  f11.pNext = &f12;
  VkPhysicalDeviceFeatures2 features{};
  features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  features.pNext = &f11;
  if (info->api_version >= VK_API_VERSION_1_2) vkGetPhysicalDeviceFeatures2(pd, &features);
  info->storage_buffer_16bit = f11.storageBuffer16BitAccess;
  info->shader_float16 = f12.shaderFloat16;
  info->shader_int64 = features.features.shaderInt64;
  info->timeline_semaphore = f12.timelineSemaphore;
  if (!f13.subgroupSizeControl) info->min_subgroup_size = info->max_subgroup_size = 0;
  info->compute_full_subgroups = f13.subgroupSizeControl && f13.computeFullSubgroups;
  info->nv_cooperative_matrix_feature = coopmat.cooperativeMatrix;
  info->khr_cooperative_matrix_feature = khr_coopmat.cooperativeMatrix;
  if (info->nv_cooperative_matrix_feature) {
    RETURN_IF_ERROR(QueryNvCoopmatShapes(instance, pd, info));
  }
  if (info->khr_cooperative_matrix_feature) {
    RETURN_IF_ERROR(QueryKhrCoopmatShapes(instance, pd, info));
  }
  // The shapes of the automatic choice (never an error) until Device::Create
  // enables one.
  const std::optional<MatrixExtension> chosen =
      *ChooseMatrixExtension(*info, MatrixExtension::kAuto);
  const bool nv = chosen == MatrixExtension::kNv;
  info->coopmat_f16_f32_shapes =
      nv ? info->nv_coopmat_f16_f32_shapes : info->khr_coopmat_f16_f32_shapes;
  info->coopmat_f16_f16_shapes =
      nv ? info->nv_coopmat_f16_f16_shapes : info->khr_coopmat_f16_f16_shapes;
  return absl::OkStatus();
}

void QueryMemory(VkPhysicalDevice pd, DeviceInfo* info) {
  VkPhysicalDeviceMemoryProperties memory{};
  vkGetPhysicalDeviceMemoryProperties(pd, &memory);
  for (uint32_t i = 0; i < memory.memoryHeapCount; ++i) {
    info->heaps.push_back({memory.memoryHeaps[i].size,
                           (memory.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) != 0});
  }
  for (uint32_t i = 0; i < memory.memoryTypeCount; ++i) {
    const VkMemoryType& t = memory.memoryTypes[i];
    info->memory_types.push_back({t.heapIndex, t.propertyFlags});
    const VkMemoryPropertyFlags want =
        VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
    if ((t.propertyFlags & want) == want) info->host_visible_device_local = true;
  }
}

// The compute queue family: a compute-only one with timestamps if there is
// one (it avoids sharing with graphics work), else the first with compute.
// False when there is none.
bool QueryComputeQueue(VkPhysicalDevice pd, DeviceInfo* info) {
  uint32_t family_count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &family_count, nullptr);
  std::vector<VkQueueFamilyProperties> families(family_count);
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &family_count, families.data());
  int compute_family = -1;
  for (uint32_t i = 0; i < family_count; ++i) {
    if (!(families[i].queueFlags & VK_QUEUE_COMPUTE_BIT)) continue;
    const bool compute_only = !(families[i].queueFlags & VK_QUEUE_GRAPHICS_BIT);
    if (compute_family < 0 || (compute_only && families[i].timestampValidBits > 0)) {
      compute_family = static_cast<int>(i);
      if (compute_only && families[i].timestampValidBits > 0) break;
    }
  }
  if (compute_family < 0) return false;
  info->compute_queue_family = static_cast<uint32_t>(compute_family);
  info->timestamp_valid_bits = families[compute_family].timestampValidBits;
  return true;
}

absl::StatusOr<DeviceInfo> QueryOne(VkInstance instance, VkPhysicalDevice pd, uint32_t index) {
  DeviceInfo info;
  info.index = index;
  info.physical_device = pd;
  RETURN_IF_ERROR(QueryExtensions(pd, &info));
  VkPhysicalDeviceProperties base{};
  vkGetPhysicalDeviceProperties(pd, &base);
  info.api_version = base.apiVersion;
  QueryProperties(pd, &info);
  RETURN_IF_ERROR(QueryFeatures(instance, pd, &info));
  QueryMemory(pd, &info);
  const bool has_compute_queue = QueryComputeQueue(pd, &info);

  if (info.api_version < VK_API_VERSION_1_2) {
    info.unusable_reason = absl::StrCat("Vulkan ", VersionString(info.api_version), " < 1.2");
  } else if (!info.timeline_semaphore) {
    info.unusable_reason = "no timeline semaphores";
  } else if (!has_compute_queue) {
    info.unusable_reason = "no compute queue";
  } else {
    info.usable = true;
  }
  return info;
}

}  // namespace

uint64_t DeviceInfo::largest_device_local_heap() const {
  uint64_t largest = 0;
  for (const MemoryHeapInfo& h : heaps) {
    if (h.device_local) largest = std::max(largest, h.size);
  }
  return largest;
}

std::string_view DeviceInfo::type_name() const {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return "virtual";
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return "cpu";
    default:
      return "other";
  }
}

std::string DeviceInfo::uuid() const {
  std::string s = "GPU-";
  for (size_t i = 0; i < device_uuid.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    absl::StrAppendFormat(&s, "%02x", device_uuid[i]);
  }
  return s;
}

std::string DeviceInfo::ToString() const {
  auto yes = [](bool b) { return b ? "yes" : "no"; };
  std::string s = absl::StrFormat("[%u] %s (%s, vendor 0x%04x, device 0x%04x)\n", index, name,
                                  type_name(), vendor_id, device_id);
  absl::StrAppendFormat(&s, "    %s\n", uuid());
  absl::StrAppendFormat(&s, "    Vulkan %s, driver %s %s\n", VersionString(api_version),
                        driver_name, driver_info);
  if (!usable) absl::StrAppendFormat(&s, "    NOT USABLE: %s\n", unusable_reason);
  absl::StrAppendFormat(
      &s, "    subgroup size %u (arithmetic %s), shared memory %s, workgroup %u invocations\n",
      subgroup_size, yes(subgroup_arithmetic), Bytes(max_shared_memory), max_workgroup_invocations);
  if (min_subgroup_size > 0 && min_subgroup_size != max_subgroup_size) {
    absl::StrAppendFormat(&s, "    subgroup sizes %u-%u on request\n", min_subgroup_size,
                          max_subgroup_size);
  }
  if (compute_units > 0) absl::StrAppendFormat(&s, "    %u SMs\n", compute_units);
  absl::StrAppendFormat(
      &s, "    max storage buffer range %s, max allocation %s, push constants %u B\n",
      Bytes(max_storage_buffer_range), Bytes(max_allocation_size), max_push_constants);
  absl::StrAppendFormat(&s, "    16-bit storage %s, float16 %s, int64 %s, push descriptors %s\n",
                        yes(storage_buffer_16bit), yes(shader_float16), yes(shader_int64),
                        yes(push_descriptor));
  absl::StrAppendFormat(&s, "    cooperative matrix: KHR %s, NV %s, NV2 %s\n",
                        yes(khr_cooperative_matrix), yes(nv_cooperative_matrix),
                        yes(nv_cooperative_matrix2));
  for (const auto& [name, shapes] :
       {std::pair{"fp32 matrix shapes (NV", &nv_coopmat_f16_f32_shapes},
        std::pair{"fp32 matrix shapes (KHR", &khr_coopmat_f16_f32_shapes},
        std::pair{"fp16 matrix shapes (NV", &nv_coopmat_f16_f16_shapes},
        std::pair{"fp16 matrix shapes (KHR", &khr_coopmat_f16_f16_shapes}}) {
    if (shapes->empty()) continue;
    absl::StrAppendFormat(&s, "    fp16 x fp16 -> %s, subgroup):", name);
    for (const MatrixShape& m : *shapes) absl::StrAppendFormat(&s, " %ux%ux%u", m.m, m.n, m.k);
    s += "\n";
  }
  absl::StrAppendFormat(&s, "    timestamps: %u valid bits, %.3f ns/tick (queue family %u)\n",
                        timestamp_valid_bits, timestamp_period, compute_queue_family);
  for (size_t i = 0; i < heaps.size(); ++i) {
    absl::StrAppendFormat(&s, "    heap %zu: %s%s; types:", i, Bytes(heaps[i].size),
                          heaps[i].device_local ? " device-local" : "");
    for (size_t t = 0; t < memory_types.size(); ++t) {
      if (memory_types[t].heap != i) continue;
      const VkMemoryPropertyFlags f = memory_types[t].flags;
      std::string flags;
      if (f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) flags += "D";
      if (f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) flags += "V";
      if (f & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) flags += "C";
      if (f & VK_MEMORY_PROPERTY_HOST_CACHED_BIT) flags += "$";
      absl::StrAppendFormat(&s, " %zu[%s]", t, flags.empty() ? "-" : flags);
    }
    s += "\n";
  }
  absl::StrAppendFormat(&s, "    host-visible device-local memory: %s\n",
                        yes(host_visible_device_local));
  return s;
}

absl::StatusOr<std::vector<DeviceInfo>> QueryDevices(VkInstance instance) {
  uint32_t count = 0;
  VK_RETURN_IF_ERROR(vkEnumeratePhysicalDevices(instance, &count, nullptr));
  std::vector<VkPhysicalDevice> devices(count);
  VK_RETURN_IF_ERROR(vkEnumeratePhysicalDevices(instance, &count, devices.data()));
  std::vector<DeviceInfo> infos;
  for (uint32_t i = 0; i < count; ++i) {
    ASSIGN_OR_RETURN(DeviceInfo info, QueryOne(instance, devices[i], i));
    infos.push_back(std::move(info));
  }
  return infos;
}

absl::StatusOr<const DeviceInfo*> SelectDevice(const std::vector<DeviceInfo>& devices,
                                               std::string_view selector) {
  std::string listing;
  for (const DeviceInfo& d : devices) {
    absl::StrAppend(&listing, listing.empty() ? "" : ", ", "[", d.index, "] ", d.name);
  }
  if (listing.empty()) listing = "none";
  const DeviceInfo* best = nullptr;
  uint32_t index = 0;
  if (selector.empty()) {
    for (const DeviceInfo& d : devices) {
      if (d.usable && (best == nullptr || TypeRank(d.type) < TypeRank(best->type))) best = &d;
    }
    if (best == nullptr) {
      return absl::NotFoundError(absl::StrCat("no usable Vulkan device; devices: ", listing));
    }
    return best;
  }
  const std::string lower = absl::AsciiStrToLower(std::string(selector));
  if (absl::StartsWith(lower, "gpu-")) {
    for (const DeviceInfo& d : devices) {
      if (absl::AsciiStrToLower(d.uuid()) == lower) best = &d;
    }
  } else if (absl::SimpleAtoi(std::string(selector), &index)) {
    for (const DeviceInfo& d : devices) {
      if (d.index == index) best = &d;
    }
  } else {
    const std::string needle = absl::AsciiStrToLower(std::string(selector));
    for (const DeviceInfo& d : devices) {
      if (absl::StrContains(absl::AsciiStrToLower(d.name), needle) &&
          (best == nullptr || TypeRank(d.type) < TypeRank(best->type))) {
        best = &d;
      }
    }
  }
  if (best == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("no Vulkan device matches '", std::string(selector), "'; devices: ", listing));
  }
  if (!best->usable) {
    return absl::FailedPreconditionError(
        absl::StrCat("device '", best->name, "' is not usable: ", best->unusable_reason));
  }
  return best;
}

}  // namespace vkserve::gpu
