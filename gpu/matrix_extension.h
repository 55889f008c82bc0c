// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Which Vulkan extension runs the tensor-core kernels (the choice's type
// and names are base/matrix_extension.h's). VK_NV_cooperative_matrix (NVIDIA) runs the kernels as glslc compiles them;
// VK_KHR_cooperative_matrix (AMD, Intel, NVIDIA) runs their "_khr" forms,
// rewritten at build time (shaders/khr/). "auto" prefers KHR where the
// device offers it (measured faster on NVIDIA too, matrix_extension.cc) and
// takes NV elsewhere; "nv" and "khr" insist (`--matrix-extension`, the
// server's gpu.matrix_extension), e.g. to compare the two on an NVIDIA GPU
// that offers both. Pure functions; thread-safe.
#ifndef VKSERVE_GPU_MATRIX_EXTENSION_H_
#define VKSERVE_GPU_MATRIX_EXTENSION_H_

#include <optional>
#include <string_view>

#include "absl/status/statusor.h"
#include "base/matrix_extension.h"
#include "gpu/device_info.h"

namespace vkserve::gpu {

using ::vkserve::MatrixExtension;
using ::vkserve::MatrixExtensionName;
using ::vkserve::ParseMatrixExtension;

// Whether `info` can run the tensor-core kernels through `extension` (kNv or
// kKhr): the extension's cooperativeMatrix feature, fp16 arithmetic for the
// shared tiles and at least one fp16 x fp16 -> fp32 subgroup shape.
bool MatrixExtensionUsable(const DeviceInfo& info, MatrixExtension extension);

// The extension `info` runs the tensor-core kernels with when `wanted` is
// asked for: kNv or kKhr, or nullopt for none (the kernels' scalar
// emulations run). kAuto never fails; kNv or kKhr on a device that cannot
// use it fails with FAILED_PRECONDITION naming the device.
absl::StatusOr<std::optional<MatrixExtension>> ChooseMatrixExtension(const DeviceInfo& info,
                                                                     MatrixExtension wanted);

}  // namespace vkserve::gpu

#endif  // VKSERVE_GPU_MATRIX_EXTENSION_H_
