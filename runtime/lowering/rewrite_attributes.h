// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Attribute checks and builders for the rewrites of ONNX Runtime's
// transformer contrib ops (FusedMatMul, the Gelu family, the Skip/Simplified
// LayerNormalizations): the stored node's attributes come from an untrusted
// file, and the replacement's are built here. Header-only, so that the
// rewrites library needs nothing beyond the graph; pure functions.
#ifndef VKSERVE_RUNTIME_LOWERING_REWRITE_ATTRIBUTES_H_
#define VKSERVE_RUNTIME_LOWERING_REWRITE_ATTRIBUTES_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "runtime/ir/graph.h"

namespace vkserve {

// INVALID_ARGUMENT when `node` has attribute `name` of another type.
inline absl::Status CheckRewriteAttribute(const Node& node, const std::string& name,
                                          Attribute::Type type) {
  const Attribute* a = node.FindAttribute(name);
  if (a != nullptr && a->type != type) {
    return absl::InvalidArgumentError(absl::StrCat("attribute '", name, "' has the wrong type"));
  }
  return absl::OkStatus();
}

// Int attribute `name` as a flag: its default when absent, INVALID_ARGUMENT
// unless 0 or 1 (or of another type).
inline absl::StatusOr<bool> GetFlagAttribute(const Node& node, const std::string& name,
                                             bool default_value) {
  if (absl::Status s = CheckRewriteAttribute(node, name, Attribute::Type::kInt); !s.ok()) return s;
  const int64_t v = node.GetInt(name, default_value ? 1 : 0);
  if (v != 0 && v != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("attribute '", name, "' must be 0 or 1, not ", v));
  }
  return v == 1;
}

inline Attribute IntAttribute(int64_t v) {
  Attribute a;
  a.type = Attribute::Type::kInt;
  a.i = v;
  return a;
}

inline Attribute FloatAttribute(float v) {
  Attribute a;
  a.type = Attribute::Type::kFloat;
  a.f = v;
  return a;
}

inline Attribute StringAttribute(std::string v) {
  Attribute a;
  a.type = Attribute::Type::kString;
  a.s = std::move(v);
  return a;
}

inline Attribute IntsAttribute(std::vector<int64_t> v) {
  Attribute a;
  a.type = Attribute::Type::kInts;
  a.ints = std::move(v);
  return a;
}

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_LOWERING_REWRITE_ATTRIBUTES_H_
