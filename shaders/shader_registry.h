// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The SPIR-V of every compute shader, compiled by glslc at build time and
// embedded in the binary. An op kernel is named "ops/" and its file name
// without ".comp", whichever folder of shaders/ holds it ("ops/relu"), a
// generated variant by its base name and suffix ("ops/gemm_64x64_f16"), a
// device self-test "gpu/<file>" (docs/shaders.md). Immutable; thread-safe.
#ifndef VKSERVE_SHADERS_SHADER_REGISTRY_H_
#define VKSERVE_SHADERS_SHADER_REGISTRY_H_

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace vkserve::shaders {

// The shader's SPIR-V words, or an empty span when there is no such shader.
std::span<const uint32_t> Find(std::string_view name);

// All embedded shader names, sorted.
std::vector<std::string_view> Names();

// Whether `spirv` declares a cooperative-matrix capability (NV or KHR): a
// tensor-core kernel.
bool UsesCooperativeMatrix(std::span<const uint32_t> spirv);

namespace internal {
struct EmbeddedShader {
  std::string_view name;
  std::span<const uint32_t> words;
};
// Generated; ends with an entry whose name is empty.
extern const EmbeddedShader kEmbeddedShaders[];
}  // namespace internal

}  // namespace vkserve::shaders

#endif  // VKSERVE_SHADERS_SHADER_REGISTRY_H_
