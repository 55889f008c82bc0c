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

}  // namespace vkserve::shaders
