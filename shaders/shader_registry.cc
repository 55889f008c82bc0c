// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "shaders/shader_registry.h"

namespace vkserve::shaders {

std::span<const uint32_t> Find(std::string_view name) {
  for (const internal::EmbeddedShader* s = internal::kEmbeddedShaders; !s->name.empty(); ++s) {
    if (s->name == name) return s->words;
  }
  return {};
}

std::vector<std::string_view> Names() {
  std::vector<std::string_view> names;
  for (const internal::EmbeddedShader* s = internal::kEmbeddedShaders; !s->name.empty(); ++s) {
    names.push_back(s->name);
  }
  return names;
}

bool UsesCooperativeMatrix(std::span<const uint32_t> spirv) {
  // SPIR-V: a 5-word header, then the module's OpCapability instructions
  // before any other (word 0 of an instruction: word count << 16 | opcode).
  constexpr uint32_t kOpCapability = 17;
  constexpr uint32_t kCooperativeMatrixNV = 5357;
  constexpr uint32_t kCooperativeMatrixKHR = 6022;
  size_t i = 5;
  while (i + 1 < spirv.size() && (spirv[i] & 0xffffu) == kOpCapability) {
    const uint32_t capability = spirv[i + 1];
    if (capability == kCooperativeMatrixNV || capability == kCooperativeMatrixKHR) return true;
    const uint32_t words = spirv[i] >> 16;
    if (words == 0) return false;  // malformed: embedded shaders are validated at build
    i += words;
  }
  return false;
}

}  // namespace vkserve::shaders
