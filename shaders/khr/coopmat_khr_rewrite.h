// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// RewriteCoopmatNvToKhr: turns a SPIR-V module written against
// SPV_NV_cooperative_matrix (what Debian 12's glslang compiles) into the same
// kernel on SPV_KHR_cooperative_matrix (what AMD, Intel and NVIDIA drivers
// expose as VK_KHR_cooperative_matrix). The build runs it on every
// tensor-core shader (tools: spirv_coopmat_khr) to make the "_khr" forms.
//
// An NV matrix type has no Use; a KHR one does (A, B or accumulator), so one
// NV type becomes one KHR type per use it serves. Each value's use is
// inferred through the data flow (variables, loads, stores, phis, selects,
// access chains, composites, arithmetic, conversions, calls) from the
// multiply-adds that consume or produce it; a value the flow gives two uses
// fails the rewrite, naming it. Constants and undefs of matrix type are
// copied once per use. Loads and stores get a MemoryLayout constant in place
// of NV's column-major bool; the layout and use constants and the new types
// take fresh ids (the bound grows). Pure function; thread-safe.
#ifndef VKSERVE_SHADERS_KHR_COOPMAT_KHR_REWRITE_H_
#define VKSERVE_SHADERS_KHR_COOPMAT_KHR_REWRITE_H_

#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/statusor.h"

namespace vkserve::spirv {

// The KHR form of `words`. Fails with INVALID_ARGUMENT when the module does
// not declare the CooperativeMatrixNV capability, or uses NV matrices in a
// way the rewrite cannot express (a value of two uses, a column-major
// operand that is not a constant, an instruction on matrices it does not
// know).
absl::StatusOr<std::vector<uint32_t>> RewriteCoopmatNvToKhr(std::span<const uint32_t> words);

}  // namespace vkserve::spirv

#endif  // VKSERVE_SHADERS_KHR_COOPMAT_KHR_REWRITE_H_
