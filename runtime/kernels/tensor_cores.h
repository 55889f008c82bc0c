// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// What the tensor-core kernels (the cooperative-matrix GEMM tiles,
// shaders/gemm/gemm_coopmat.glsl, and flash attention,
// shaders/attention/flash_attention_cm.glsl) ask of a device beyond the
// matrix extension: they split each workgroup into subgroups of 32
// invocations, one warp of matrix fragments each. A device whose default
// subgroups are wider (AMD's 64) runs them where it can be asked for 32
// (subgroup size control); the planner asks for every pipeline that uses
// cooperative matrices. Constants and pure functions; thread-safe.
#ifndef VKSERVE_RUNTIME_KERNELS_TENSOR_CORES_H_
#define VKSERVE_RUNTIME_KERNELS_TENSOR_CORES_H_

#include <cstdint>

#include "gpu/device_info.h"

namespace vkserve {

inline constexpr uint32_t kTensorCoreSubgroupSize = 32;

// Whether `device` can run the tensor-core kernels' subgroups.
inline bool RunsTensorCoreSubgroups(const gpu::DeviceInfo& device) {
  return device.RunsSubgroupsOf(kTensorCoreSubgroupSize);
}

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_KERNELS_TENSOR_CORES_H_
