// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/passes/pass.h"

#include <cstdio>
#include <cstdlib>

#include "base/status_macros.h"
#include "runtime/op/op.h"
#include "runtime/op/op_registry.h"
#include "runtime/passes/fusion.h"

namespace vkserve {

std::string_view PassLevelName(PassLevel level) {
  switch (level) {
    case PassLevel::kLowering:
      return "lowering";
    case PassLevel::kFusion:
      return "fusion";
    case PassLevel::kLayout:
      return "layout";
    case PassLevel::kPrecision:
      return "precision";
  }
  return "?";
}

absl::Status MatchOps(const Graph& graph, std::vector<const Op*>& ops) {
  ops.clear();
  for (const Node& node : graph.nodes) {
    ASSIGN_OR_RETURN(const Op* op, OpRegistry::Global().Find(node));
    absl::Status valid = op->Validate(node);
    if (!valid.ok()) return AnnotateNodeError(node, valid);
    ops.push_back(op);
  }
  return absl::OkStatus();
}

PassContext::PassContext(Graph* graph, std::vector<const Op*>* ops,
                         const std::vector<ValueInfo>* inputs)
    : graph_(graph), ops_(ops), inputs_(inputs) {}

PassContext::PassContext(Graph* subgraph) : graph_(subgraph) {}

const std::vector<const Op*>& PassContext::ops() const {
  if (ops_ == nullptr) {
    std::fprintf(stderr, "PassContext::ops: a subgraph has no matched ops\n");
    std::abort();
  }
  return *ops_;
}

const std::vector<ValueInfo>& PassContext::inputs() const {
  if (inputs_ == nullptr) {
    std::fprintf(stderr, "PassContext::inputs: a subgraph has no model inputs\n");
    std::abort();
  }
  return *inputs_;
}

const ValueShapes* PassContext::ShapesAt(int64_t free_dim) {
  if (in_subgraph()) return nullptr;
  auto it = shapes_.find(free_dim);
  if (it == shapes_.end()) {
    ++shape_inferences_;
    absl::StatusOr<ValueShapes> inferred =
        InferShapes(*graph_, ops(), inputs(), ShapesWithFreeDims(inputs(), free_dim));
    std::optional<ValueShapes> kept;
    if (inferred.ok()) kept = *std::move(inferred);
    it = shapes_.emplace(free_dim, std::move(kept)).first;
  }
  return it->second ? &*it->second : nullptr;
}

void PassContext::GraphChanged(bool ops_kept) {
  shapes_.clear();
  ops_current_ = ops_current_ && ops_kept;
}

absl::Status PassContext::EnsureOps() {
  if (in_subgraph() || ops_current_) return absl::OkStatus();
  ++op_matches_;
  RETURN_IF_ERROR(MatchOps(*graph_, *ops_));
  ops_current_ = true;
  return absl::OkStatus();
}

}  // namespace vkserve
