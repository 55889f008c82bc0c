// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/report/node_provenance.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/ops/nn/conv_layout.h"
#include "runtime/passes/fusion.h"

namespace vkserve {
namespace {

const char* KindName(PlannedNode::Kind kind) {
  switch (kind) {
    case PlannedNode::Kind::kKernel:
      return "";
    case PlannedNode::Kind::kAlias:
      return " (alias: no dispatch)";
    case PlannedNode::Kind::kFolded:
      return " (folded at plan: no dispatch)";
    case PlannedNode::Kind::kUnread:
      return " (only its shapes are read: no dispatch)";
  }
  return "";
}

// "Conv+Relu" plus how it executes at this plan.
std::string Describe(const PlannedNode& n) {
  return absl::StrCat(FusedOpName(*n.node), KindName(n.kind));
}

}  // namespace

std::vector<StoredNode> SnapshotStoredNodes(const Graph& graph) {
  std::vector<StoredNode> stored;
  stored.reserve(graph.nodes.size());
  for (const Node& n : graph.nodes) {
    stored.push_back({n.name, n.op_type, n.domain.empty() ? "ai.onnx" : n.domain, n.opset,
                      n.since_version, n.outputs});
  }
  return stored;
}

std::vector<StoredNodeReport> TraceStoredNodes(const std::vector<StoredNode>& stored,
                                               const Plan& plan) {
  std::map<std::string, const PlannedNode*> by_name;
  std::map<std::string, std::vector<const PlannedNode*>> by_origin;
  std::map<std::string, const PlannedNode*> by_output;
  std::map<std::string, const PlannedNode*> by_absorbed;
  for (const PlannedNode& n : plan.nodes) {
    for (const std::string& a : n.node->absorbed) by_absorbed[a] = &n;
    if (n.node->rewritten_from.empty()) {
      by_name[n.node->name] = &n;
    } else {
      by_origin[n.node->rewritten_from].push_back(&n);
    }
    for (const std::string& o : n.node->outputs) {
      if (!o.empty()) by_output[o] = &n;
    }
  }
  std::vector<StoredNodeReport> reports;
  reports.reserve(stored.size());
  for (const StoredNode& s : stored) {
    StoredNodeReport r{s, "", "gpu"};
    if (auto it = by_name.find(s.name); it != by_name.end()) {
      r.runs_as = absl::StrCat("kernel ", Describe(*it->second));
    } else if (auto rw = by_origin.find(s.name); rw != by_origin.end()) {
      std::vector<std::string> parts;
      for (const PlannedNode* n : rw->second) parts.push_back(Describe(*n));
      r.runs_as = absl::StrCat("rewritten into ", absl::StrJoin(parts, ", "));
    } else if (auto ab = by_absorbed.find(s.name); ab != by_absorbed.end()) {
      r.runs_as =
          absl::StrCat("fused into '", ab->second->node->name, "' (", Describe(*ab->second), ")");
    } else {
      // A value the channels-last pass made NHWC is computed under its
      // NHWC name (a Transpose back to NCHW may produce the stored name).
      const PlannedNode* into = nullptr;
      for (const std::string& o : s.outputs) {
        if (o.empty()) continue;
        if (auto p = by_output.find(o + kNhwcValueSuffix); p != by_output.end()) {
          into = p->second;
        } else if (auto q = by_output.find(o); q != by_output.end()) {
          into = q->second;
        }
        if (into != nullptr) break;
      }
      r.runs_as = into == nullptr
                      ? "removed at load (its value is a constant or unused)"
                      : absl::StrCat("fused into '", into->node->name, "' (", Describe(*into), ")");
    }
    reports.push_back(std::move(r));
  }
  return reports;
}

}  // namespace vkserve
