// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// CheckCoopmatKhrModule: the structural checks a module made by
// RewriteCoopmatNvToKhr must pass, for SPIR-V tools (Debian 12's spirv-val
// included) that predate SPV_KHR_cooperative_matrix: nothing of
// SPV_NV_cooperative_matrix is left; the KHR capability and extension are
// declared; every KHR matrix type has a constant Use (A, B or accumulator);
// every multiply-add takes A, B and accumulator types of matching M, N, K and
// gives its accumulator type; loads and stores take a constant MemoryLayout;
// loads, stores, phis, selects, copies and calls agree on the matrix types
// they pass along; ids are below the bound. The build runs it on its own
// output and the tests on every embedded KHR kernel. Pure; thread-safe.
#ifndef VKSERVE_SHADERS_KHR_COOPMAT_KHR_CHECK_H_
#define VKSERVE_SHADERS_KHR_COOPMAT_KHR_CHECK_H_

#include <cstdint>
#include <span>

#include "absl/status/status.h"

namespace vkserve::spirv {

// OK, or INVALID_ARGUMENT naming the first failed check.
absl::Status CheckCoopmatKhrModule(std::span<const uint32_t> words);

}  // namespace vkserve::spirv

#endif  // VKSERVE_SHADERS_KHR_COOPMAT_KHR_CHECK_H_
