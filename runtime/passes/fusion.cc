// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/passes/fusion.h"

#include <map>
#include <optional>
#include <set>

#include "runtime/op/activation.h"
#include "runtime/op/graph_uses.h"
#include "runtime/plan/planner.h"

namespace vkserve {
std::vector<std::vector<int64_t>> ShapesWithFreeDims(const std::vector<ValueInfo>& inputs,
                                                     int64_t value) {
  std::vector<std::vector<int64_t>> shapes;
  for (const ValueInfo& in : inputs) {
    std::vector<int64_t> s;
    for (const Dim& d : in.type.shape) s.push_back(d.is_fixed() ? d.value : value);
    shapes.push_back(std::move(s));
  }
  return shapes;
}

std::string FusedOpName(const Node& node) {
  const Attribute* a = node.FindAttribute(kFusedNameAttr);
  return a != nullptr && a->type == Attribute::Type::kString ? a->s : node.op_type;
}

namespace {

// One pass of epilogue fusion: each node with a fusable epilogue absorbs
// the chain of single consumers its op can compute in its store (an
// activation, a bias, a residual Add), which are then removed.
class EpilogueFusion {
 public:
  // `shapes1` and `shapes3`: every value's shape with free dimensions 1 and
  // 3 (a residual must match at both, so a broadcast that happens to
  // coincide at size 1 is never fused).
  EpilogueFusion(Graph* graph, const std::vector<const Op*>& ops, const ValueShapes& shapes1,
                 const ValueShapes& shapes3)
      : graph_(*graph),
        nodes_(graph->nodes),
        ops_(ops),
        s1_(shapes1),
        s3_(shapes3),
        removed_(nodes_.size(), false) {
    for (size_t n = 0; n < nodes_.size(); ++n) {
      for (const std::string& in : nodes_[n].inputs) {
        if (!in.empty()) consumers_[in].push_back(n);
      }
      for (const std::string& out : nodes_[n].outputs) producer_of_[out] = n;
    }
    for (const ValueInfo& o : graph->outputs) graph_outputs_.insert(o.name);
  }

  // Fuses every chain; returns the nodes removed.
  int Run() {
    for (size_t p = 0; p < nodes_.size(); ++p) FuseChain(p);
    EraseNodes(removed_, &nodes_);
    return fused_;
  }

 private:
  void FuseChain(size_t p) {
    Node& producer = nodes_[p];
    if (removed_[p] || producer.outputs.size() != 1) return;
    // Which ops have an epilogue, and where it reads a residual or bias, is
    // the op's business (OpTraits::epilogue_slots).
    const std::optional<EpilogueSlots>& slots = ops_[p]->traits().epilogue_slots;
    if (!slots) return;
    auto epilogue = GetEpilogue(producer);
    if (!epilogue.ok()) return;
    std::string name = producer.op_type;
    while (true) {
      const std::string out = producer.outputs[0];
      auto it = consumers_.find(out);
      if (graph_outputs_.count(out) || it == consumers_.end() || it->second.size() != 1) break;
      const size_t c = it->second[0];
      Node& consumer = nodes_[c];
      if (removed_[c] || consumer.outputs.size() != 1) break;
      const bool merged = MergeActivation(c, out, *epilogue, name) ||
                          MergeBias(p, c, out, *slots, *epilogue, name) ||
                          MergeResidual(p, c, out, *slots, *epilogue, name);
      if (!merged) break;
      producer.absorbed.insert(producer.absorbed.end(), consumer.absorbed.begin(),
                               consumer.absorbed.end());
      producer.outputs[0] = consumer.outputs[0];
      producer_of_[producer.outputs[0]] = p;
      removed_[c] = true;
      ++fused_;
    }
    if (name != producer.op_type) {
      SetEpilogue(*epilogue, &producer);
      Attribute a;
      a.type = Attribute::Type::kString;
      a.s = name;
      producer.attributes[kFusedNameAttr] = a;
    }
  }

  // Whatever activation the consumer's op computes on `out`, with constant
  // parameters (Clip's bounds) read from initializers; only the first.
  bool MergeActivation(size_t c, const std::string& out, Epilogue& epilogue, std::string& name) {
    const Node& consumer = nodes_[c];
    if (epilogue.activation.kind != Activation::kNone || consumer.inputs[0] != out) return false;
    auto constant = [&](size_t i) -> const HostTensor* {
      if (i >= consumer.inputs.size() || consumer.inputs[i].empty()) return nullptr;
      auto init = graph_.initializers.find(consumer.inputs[i]);
      return init == graph_.initializers.end() ? nullptr : &init->second;
    };
    auto act = ops_[c]->traits().EpilogueActivation(consumer, constant);
    if (!act.ok()) return false;
    epilogue.activation = *act;
    name += "+" + consumer.op_type;
    return true;
  }

  // The Add's other input, when the consumer is a two-input elementwise Add
  // of `out` and something else.
  std::optional<std::string> AddedTo(size_t c, const std::string& out) const {
    const Node& consumer = nodes_[c];
    if (!ops_[c]->traits().elementwise_add || consumer.inputs.size() != 2 ||
        consumer.inputs[0] == consumer.inputs[1]) {
      return std::nullopt;
    }
    return consumer.inputs[0] == out ? consumer.inputs[1] : consumer.inputs[0];
  }

  static bool IsFloat(DataType t) { return t == DataType::kFloat || t == DataType::kFloat16; }

  // MatMul -> Add(bias[N]) before any activation or residual: the bias
  // becomes the op's bias input, added in the kernel's store.
  bool MergeBias(size_t p, size_t c, const std::string& out, const EpilogueSlots& slots,
                 Epilogue& epilogue, std::string& name) {
    Node& producer = nodes_[p];
    const size_t slot = static_cast<size_t>(slots.bias_input);
    if (slots.bias_input < 0 || !epilogue.empty() ||
        (producer.inputs.size() > slot && !producer.inputs[slot].empty())) {
      return false;
    }
    const std::optional<std::string> other = AddedTo(c, out);
    if (!other || !graph_.initializers.count(*other) || !s1_.count(out) || !s3_.count(out))
      return false;
    const TensorDesc& a = s1_.at(out);
    const TensorDesc& b = s3_.at(out);
    const HostTensor& bias = graph_.initializers.at(*other);
    if (a.shape.empty() || b.shape.empty() || !IsFloat(a.dtype) || bias.dtype != a.dtype ||
        bias.shape != std::vector<int64_t>{a.shape.back()} || a.shape.back() != b.shape.back()) {
      return false;
    }
    if (producer.inputs.size() <= slot) producer.inputs.resize(slot + 1);
    producer.inputs[slot] = *other;
    consumers_[*other].push_back(p);
    name += "+Add";
    return true;
  }

  // Add(out, residual) of the same shape and a float type, the residual
  // computed before the producer: added in the store, before or after the
  // activation as the graph has it.
  bool MergeResidual(size_t p, size_t c, const std::string& out, const EpilogueSlots& slots,
                     Epilogue& epilogue, std::string& name) {
    if (epilogue.residual != Epilogue::Residual::kNone) return false;
    const std::optional<std::string> other = AddedTo(c, out);
    if (!other) return false;
    auto prod = producer_of_.find(*other);
    const bool ready_before = prod == producer_of_.end() || prod->second < p;
    const bool same_shape = s1_.count(*other) && s1_.count(out) && s3_.count(*other) &&
                            s3_.count(out) && s1_.at(*other).shape == s1_.at(out).shape &&
                            s3_.at(*other).shape == s3_.at(out).shape &&
                            s1_.at(*other).dtype == s1_.at(out).dtype && IsFloat(s1_.at(out).dtype);
    if (!ready_before || !same_shape) return false;
    Node& producer = nodes_[p];
    const size_t slot = static_cast<size_t>(slots.residual_input);
    if (producer.inputs.size() <= slot) producer.inputs.resize(slot + 1);
    producer.inputs[slot] = *other;
    epilogue.residual = epilogue.activation.kind == Activation::kNone
                            ? Epilogue::Residual::kBeforeActivation
                            : Epilogue::Residual::kAfterActivation;
    epilogue.residual_input = static_cast<int>(slot);
    consumers_[*other].push_back(p);
    name += "+Add";
    return true;
  }

  Graph& graph_;
  std::vector<Node>& nodes_;
  const std::vector<const Op*>& ops_;
  const ValueShapes& s1_;
  const ValueShapes& s3_;
  std::map<std::string, std::vector<size_t>> consumers_;
  std::map<std::string, size_t> producer_of_;
  std::set<std::string> graph_outputs_;
  std::vector<bool> removed_;
  int fused_ = 0;
};

}  // namespace

absl::StatusOr<int> FuseEpilogues(Graph* graph, const std::vector<const Op*>& ops,
                                  const ValueShapes& shapes1, const ValueShapes& shapes3) {
  return EpilogueFusion(graph, ops, shapes1, shapes3).Run();
}

int LiftConstantNodes(Graph* graph) {
  std::set<std::string> graph_outputs;
  for (const ValueInfo& o : graph->outputs) graph_outputs.insert(o.name);
  int lifted = 0;
  std::vector<Node> kept;
  kept.reserve(graph->nodes.size());
  for (Node& node : graph->nodes) {
    const bool one_new_output = node.domain.empty() && node.outputs.size() == 1 &&
                                !node.outputs[0].empty() && !graph_outputs.count(node.outputs[0]) &&
                                !graph->initializers.count(node.outputs[0]);
    const Attribute* value = node.FindAttribute("value");
    if (one_new_output && node.op_type == "Constant" && node.attributes.size() == 1 &&
        value != nullptr && value->type == Attribute::Type::kTensor) {
      graph->initializers[node.outputs[0]] = value->t;
      ++lifted;
      continue;
    }
    // Nodes are in topological order, so an Identity of a lifted Constant
    // (or of an Identity) sees its input already lifted.
    if (one_new_output && node.op_type == "Identity" && node.inputs.size() == 1) {
      auto it = graph->initializers.find(node.inputs[0]);
      if (it != graph->initializers.end()) {
        HostTensor copy = it->second;
        graph->initializers[node.outputs[0]] = std::move(copy);
        ++lifted;
        continue;
      }
    }
    kept.push_back(std::move(node));
  }
  graph->nodes = std::move(kept);
  return lifted;
}

}  // namespace vkserve
