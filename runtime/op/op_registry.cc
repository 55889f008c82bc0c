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

void OpRegistry::Register(OpRegistration registration) {
  registrations_.push_back(std::move(registration));
}

absl::StatusOr<const Op*> OpRegistry::Find(const Node& node) const {
  const OpRegistration* same_type = nullptr;
  for (const OpRegistration& r : registrations_) {
    if (r.domain != node.domain || r.op_type != node.op_type) continue;
    if (node.opset >= r.min_opset && node.opset <= r.max_opset) return r.op.get();
    same_type = &r;
  }
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

namespace internal {

OpRegistrar::OpRegistrar(const char* domain, const char* op_type, int64_t min_opset,
                         int64_t max_opset, std::unique_ptr<Op> op) {
  OpRegistry::Global().Register({domain, op_type, min_opset, max_opset, std::move(op)});
}

}  // namespace internal
}  // namespace vkserve
