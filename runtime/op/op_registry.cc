// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/op/op_registry.h"

#include "absl/strings/str_cat.h"

namespace vkserve {

OpRegistry& OpRegistry::Global() {
  // Filled during static initialization, read-only afterwards.
  static OpRegistry* registry = new OpRegistry();
  return *registry;
}

absl::StatusOr<const Op*> OpRegistry::Find(const Node& node) const {
  if (const OpRegistration* r = Lookup(node)) return r->value.get();
  const OpRegistration* same_type = LastOfType(node);
  const std::string where =
      absl::StrCat(node.op_type, " (node '", node.name, "', domain '",
                   node.domain.empty() ? "ai.onnx" : node.domain, "', opset ", node.opset, ")");
  if (same_type != nullptr) {
    return absl::UnimplementedError(absl::StrCat("unsupported operator version: ", where,
                                                 "; vkserve runs opsets ", same_type->min_opset,
                                                 " to ", same_type->max_opset));
  }
  return absl::UnimplementedError(absl::StrCat(
      "unsupported operator: ", where,
      "; vkserve runs every node on the GPU and has no kernel for it (no CPU fallback)"));
}

}  // namespace vkserve
