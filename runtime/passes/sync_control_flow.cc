// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/passes/sync_control_flow.h"

#include <map>
#include <memory>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "runtime/op/op_registry.h"
#include "runtime/plan/planner.h"

namespace vkserve {
namespace {

void CollectCaptured(const Graph& graph, std::set<std::string>& captured) {
  std::set<std::string> defined;
  for (const ValueInfo& in : graph.inputs) defined.insert(in.name);
  for (const auto& [name, t] : graph.initializers) defined.insert(name);
  auto read = [&](const std::string& name) {
    if (!name.empty() && !defined.contains(name)) captured.insert(name);
  };
  for (const Node& node : graph.nodes) {
    for (const std::string& in : node.inputs) read(in);
    std::set<std::string> inner;
    for (const auto& [attr, a] : node.attributes) {
      for (const auto& g : a.graphs) {
        if (g != nullptr) CollectCaptured(*g, inner);
      }
    }
    for (const std::string& name : inner) read(name);
    for (const std::string& out : node.outputs) defined.insert(out);
  }
  for (const ValueInfo& out : graph.outputs) read(out.name);
}

// The plain nodes an If or Loop expands into at load, into the graph: what
// the planner's expansion does at plan time, with only the initializers and
// what emitted nodes compute from them alone known on the host.
class GraphExpansion : public ExpandContext {
 public:
  GraphExpansion(const Graph& graph, const Node& node, int64_t max_fold_elements)
      : node_(node), max_fold_elements_(max_fold_elements) {
    for (const auto& [name, t] : graph.initializers) {
      known_[name] = TensorDesc{t.dtype, t.shape,
                                std::shared_ptr<const HostTensor>(&t, [](const HostTensor*) {})};
      defined_.insert(name);
    }
    for (const ValueInfo& in : graph.inputs) defined_.insert(in.name);
    for (const Node& n : graph.nodes) defined_.insert(n.outputs.begin(), n.outputs.end());
  }

  const Node& node() const override { return node_; }
  const TensorDesc* Find(const std::string& name) const override {
    if (auto it = known_.find(name); it != known_.end()) return &it->second;
    static const TensorDesc kComputedOnGpu;  // defined, no value on the host
    return defined_.contains(name) ? &kComputedOnGpu : nullptr;
  }
  absl::Status Emit(Node node) override {
    node.rewritten_from = node_.rewritten_from.empty() ? node_.name : node_.rewritten_from;
    ASSIGN_OR_RETURN(const Op* op, OpRegistry::Global().Find(node));
    if (absl::Status valid = op->Validate(node); !valid.ok()) return AnnotateNodeError(node, valid);
    if (!op->expands()) Fold(node, *op);
    defined_.insert(node.outputs.begin(), node.outputs.end());
    emitted_.push_back(std::move(node));
    return absl::OkStatus();
  }
  std::string NewName(const std::string& hint) override {
    std::string name = hint;
    for (int i = 1; defined_.contains(name); ++i) name = absl::StrCat(hint, "_", i);
    defined_.insert(name);
    return name;
  }
  std::vector<Node>& emitted() { return emitted_; }

 private:
  // Records `node`'s outputs as known when it computes them on the host from
  // known values alone (a Loop's iteration constants, its condition).
  void Fold(const Node& node, const Op& op) {
    InferContext ctx{node, {}, {}, max_fold_elements_};
    for (const std::string& in : node.inputs) {
      if (in.empty()) {
        ctx.inputs.push_back(nullptr);
        continue;
      }
      auto it = known_.find(in);
      if (it == known_.end()) return;
      ctx.inputs.push_back(&it->second);
    }
    ctx.outputs.resize(node.outputs.size());
    if (!op.Infer(ctx).ok()) return;
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      if (ctx.outputs[o].value == nullptr) return;
    }
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      if (!node.outputs[o].empty()) known_[node.outputs[o]] = std::move(ctx.outputs[o]);
    }
  }

  const Node& node_;
  int64_t max_fold_elements_;
  std::map<std::string, TensorDesc> known_;
  std::set<std::string> defined_;
  std::vector<Node> emitted_;
};

bool ResolvableAtLoad(const Graph& graph, const Node& node, const Op& op) {
  if (node.op_type != "If" && node.op_type != "Loop") return false;
  if (!node.domain.empty() && node.domain != "ai.onnx") return false;
  if (SyncNodeInside(node) == nullptr) return false;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (node.inputs[i].empty() || !op.IsHostInput(node, i)) continue;
    if (!graph.initializers.contains(node.inputs[i])) return false;
  }
  return true;
}

}  // namespace

std::set<std::string> CapturedValues(const Node& node) {
  std::set<std::string> captured;
  for (const auto& [attr, a] : node.attributes) {
    for (const auto& g : a.graphs) {
      if (g != nullptr) CollectCaptured(*g, captured);
    }
  }
  return captured;
}

const Node* SyncNodeInside(const Node& node) {
  for (const auto& [attr, a] : node.attributes) {
    for (const auto& g : a.graphs) {
      if (g == nullptr) continue;
      for (const Node& inner : g->nodes) {
        absl::StatusOr<const Op*> op = OpRegistry::Global().Find(inner);
        if (op.ok() && (*op)->sync_count_output() >= 0) return &inner;
        if (const Node* deeper = SyncNodeInside(inner)) return deeper;
      }
    }
  }
  return nullptr;
}

absl::StatusOr<int> ResolveControlFlowAtLoad(Graph* graph, const std::vector<const Op*>& ops,
                                             int64_t max_fold_elements) {
  int resolved = 0;
  std::vector<const Op*> node_ops = ops;
  for (size_t n = 0; n < graph->nodes.size();) {
    if (!ResolvableAtLoad(*graph, graph->nodes[n], *node_ops[n])) {
      ++n;
      continue;
    }
    const Node node = graph->nodes[n];
    GraphExpansion expansion(*graph, node, max_fold_elements);
    if (absl::Status s = node_ops[n]->Expand(expansion); !s.ok()) {
      return AnnotateNodeError(node, s);
    }
    std::vector<Node>& emitted = expansion.emitted();
    std::vector<const Op*> emitted_ops;
    for (const Node& e : emitted) {
      ASSIGN_OR_RETURN(const Op* op, OpRegistry::Global().Find(e));
      emitted_ops.push_back(op);
    }
    graph->nodes.erase(graph->nodes.begin() + n);
    graph->nodes.insert(graph->nodes.begin() + n, std::make_move_iterator(emitted.begin()),
                        std::make_move_iterator(emitted.end()));
    node_ops.erase(node_ops.begin() + n);
    node_ops.insert(node_ops.begin() + n, emitted_ops.begin(), emitted_ops.end());
    ++resolved;  // n stays: a nested If or Loop it emitted may resolve too
  }
  return resolved;
}

}  // namespace vkserve
