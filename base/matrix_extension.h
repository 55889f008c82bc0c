// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// MatrixExtension: the name of a choice, which Vulkan extension runs the
// tensor-core kernels ("auto", "nv", "khr"), as the command line and the
// server's gpu.matrix_extension spell it. Here in base/ so that config/,
// which does not see gpu/, holds the same type that gpu/matrix_extension.h
// acts on (what each extension needs of a device, and the automatic
// choice). Pure functions; thread-safe.
#ifndef VKSERVE_BASE_MATRIX_EXTENSION_H_
#define VKSERVE_BASE_MATRIX_EXTENSION_H_

#include <string_view>

#include "absl/status/statusor.h"

namespace vkserve {

// kAuto: KHR where the device offers it, else NV; kNv / kKhr insist.
enum class MatrixExtension { kAuto, kNv, kKhr };

// "auto", "nv" or "khr".
std::string_view MatrixExtensionName(MatrixExtension extension);
// The extension `name` spells; INVALID_ARGUMENT naming the choices otherwise.
absl::StatusOr<MatrixExtension> ParseMatrixExtension(std::string_view name);

}  // namespace vkserve

#endif  // VKSERVE_BASE_MATRIX_EXTENSION_H_
