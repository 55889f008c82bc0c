// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The VK_KHR_cooperative_matrix declarations vkserve uses, for Vulkan
// headers older than 1.3.255 (Debian 12 ships 1.3.239), which lack them.
// Values and layouts are the registry's (vk.xml); newer headers' own
// definitions are used where present. Declarations only; thread-safe.
#ifndef VKSERVE_GPU_VK_COOPERATIVE_MATRIX_KHR_H_
#define VKSERVE_GPU_VK_COOPERATIVE_MATRIX_KHR_H_

#include <vulkan/vulkan.h>

namespace vkserve::gpu {

inline constexpr const char* kKhrCooperativeMatrixExtension = "VK_KHR_cooperative_matrix";
inline constexpr const char* kNvCooperativeMatrixExtension = "VK_NV_cooperative_matrix";

#ifdef VK_KHR_cooperative_matrix
using CooperativeMatrixFeaturesKHR = VkPhysicalDeviceCooperativeMatrixFeaturesKHR;
using CooperativeMatrixPropertiesKHR = VkCooperativeMatrixPropertiesKHR;
using PfnCooperativeMatrixPropertiesKHR = PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR;
inline constexpr VkStructureType kCooperativeMatrixFeaturesKHRType =
    VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR;
inline constexpr VkStructureType kCooperativeMatrixPropertiesKHRType =
    VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_KHR;
#else
struct CooperativeMatrixFeaturesKHR {
  VkStructureType sType;
  void* pNext;
  VkBool32 cooperativeMatrix;
  VkBool32 cooperativeMatrixRobustBufferAccess;
};
// VkComponentTypeKHR and VkScopeKHR share the NV enums' values.
struct CooperativeMatrixPropertiesKHR {
  VkStructureType sType;
  void* pNext;
  uint32_t MSize;
  uint32_t NSize;
  uint32_t KSize;
  VkComponentTypeNV AType;
  VkComponentTypeNV BType;
  VkComponentTypeNV CType;
  VkComponentTypeNV ResultType;
  VkBool32 saturatingAccumulation;
  VkScopeNV scope;
};
using PfnCooperativeMatrixPropertiesKHR = VkResult(VKAPI_PTR*)(VkPhysicalDevice, uint32_t*,
                                                               CooperativeMatrixPropertiesKHR*);
inline constexpr VkStructureType kCooperativeMatrixFeaturesKHRType =
    static_cast<VkStructureType>(1000506000);
inline constexpr VkStructureType kCooperativeMatrixPropertiesKHRType =
    static_cast<VkStructureType>(1000506001);
#endif

}  // namespace vkserve::gpu

#endif  // VKSERVE_GPU_VK_COOPERATIVE_MATRIX_KHR_H_
