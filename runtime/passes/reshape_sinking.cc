// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/passes/reshape_sinking.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>

#include "runtime/op/graph_uses.h"
#include "runtime/passes/fusion.h"
#include "runtime/plan/planner.h"

namespace vkserve {
namespace {

using Shapes = std::map<std::string, TensorDesc>;

// One planned move: the Reshape at `reshape` goes below its reader at
// `reader`; for an Add, `residual` (the other operand) is reshaped first.
struct Move {
  size_t reshape = 0;
  size_t reader = 0;
  std::optional<std::string> residual;
  std::vector<int64_t> residual_shape;  // [-1, the GEMM output's other dims]
};

class Planner {
 public:
  Planner(const Graph& graph, const std::vector<const Op*>& ops, const GraphUses& uses,
          const Shapes& s1, const Shapes& s3)
      : graph_(graph), ops_(ops), uses_(uses), s1_(s1), s3_(s3) {}

  // (allowzero only says how zeros in the shape read: a Reshape that moves
  // keeps its input's shape and its shape operand, so any value is fine.)
  std::optional<Move> At(size_t r) const {
    const Node& reshape = graph_.nodes[r];
    if (!reshape.domain.empty() || reshape.op_type != "Reshape" || reshape.inputs.size() != 2 ||
        reshape.outputs.size() != 1) {
      return std::nullopt;
    }
    const std::string& y = reshape.inputs[0];
    std::optional<size_t> gemm = uses_.SoleProducer(y, r);
    if (!gemm || !ops_[*gemm]->traits().epilogue_slots) return std::nullopt;
    std::optional<size_t> reader = uses_.SoleReader(reshape.outputs[0]);
    if (!reader || graph_.nodes[*reader].outputs.size() != 1) return std::nullopt;
    Move move{r, *reader, std::nullopt, {}};
    const Node& c = graph_.nodes[*reader];
    if (IsActivationOf(c, reshape.outputs[0], *reader)) return move;
    if (!ops_[*reader]->traits().elementwise_add || c.inputs.size() != 2 ||
        c.inputs[0] == c.inputs[1]) {
      return std::nullopt;
    }
    const std::string& z = reshape.outputs[0];
    const std::string& other = c.inputs[0] == z ? c.inputs[1] : c.inputs[0];
    std::optional<size_t> other_producer = uses_.Producer(other);
    if ((other_producer && *other_producer >= *gemm) || !SameShape(other, z)) return std::nullopt;
    std::optional<std::vector<int64_t>> shape = LeadingFreeShape(y);
    if (!shape) return std::nullopt;
    move.residual = other;
    move.residual_shape = *shape;
    return move;
  }

 private:
  // `c` applies an epilogue activation to `value` with constant parameters.
  bool IsActivationOf(const Node& c, const std::string& value, size_t index) const {
    if (c.inputs.empty() || c.inputs[0] != value) return false;
    auto constant = [&](size_t i) -> const HostTensor* {
      if (i >= c.inputs.size() || c.inputs[i].empty()) return nullptr;
      auto init = graph_.initializers.find(c.inputs[i]);
      return init == graph_.initializers.end() ? nullptr : &init->second;
    };
    for (size_t i = 1; i < c.inputs.size(); ++i) {
      if (!c.inputs[i].empty() && constant(i) == nullptr) return false;
    }
    return ops_[index]->traits().EpilogueActivation(c, constant).ok();
  }

  bool SameShape(const std::string& a, const std::string& b) const {
    for (const Shapes* s : {&s1_, &s3_}) {
      auto x = s->find(a);
      auto y = s->find(b);
      if (x == s->end() || y == s->end() || x->second.shape != y->second.shape ||
          x->second.dtype != y->second.dtype) {
        return false;
      }
    }
    return true;
  }

  // [-1, d1, ..., dk] when `value` has rank >= 1 and only its first dim
  // differs between the signatures.
  std::optional<std::vector<int64_t>> LeadingFreeShape(const std::string& value) const {
    auto a = s1_.find(value);
    auto b = s3_.find(value);
    if (a == s1_.end() || b == s3_.end() || a->second.shape.empty() ||
        a->second.shape.size() != b->second.shape.size()) {
      return std::nullopt;
    }
    std::vector<int64_t> shape = a->second.shape;
    if (!std::equal(shape.begin() + 1, shape.end(), b->second.shape.begin() + 1))
      return std::nullopt;
    // -1 beside a zero is ambiguous.
    for (int64_t d : shape) {
      if (d <= 0) return std::nullopt;
    }
    shape[0] = -1;
    return shape;
  }

  const Graph& graph_;
  const std::vector<const Op*>& ops_;
  const GraphUses& uses_;
  const Shapes& s1_;
  const Shapes& s3_;
};

}  // namespace

absl::StatusOr<int> SinkReshapes(Graph* graph, const std::vector<const Op*>& ops,
                                 const ValueShapes& shapes1, const ValueShapes& shapes3) {
  const GraphUses uses(*graph);
  const Planner planner(*graph, ops, uses, shapes1, shapes3);
  // Each node's place in the new order; moved and new nodes go between.
  std::vector<double> order;
  for (size_t n = 0; n < graph->nodes.size(); ++n) order.push_back(static_cast<double>(n));
  std::vector<Node> added;
  std::vector<double> added_order;
  int moved = 0;
  // Moves are planned on the graph as it was: a node one move rewired takes
  // part in no other (defensive; the residual-before-GEMM rule already keeps
  // two moves off one Add).
  std::vector<bool> touched(graph->nodes.size(), false);
  for (size_t r = 0; r < graph->nodes.size(); ++r) {
    std::optional<Move> m = planner.At(r);
    if (!m || touched[m->reshape] || touched[m->reader]) continue;
    touched[m->reshape] = touched[m->reader] = true;
    Node& reshape = graph->nodes[m->reshape];
    Node& reader = graph->nodes[m->reader];
    const std::string y = reshape.inputs[0];
    const std::string z = reshape.outputs[0];
    // reader(y) -> t, then Reshape(t) -> the reader's old output.
    const std::string t = UnusedValueName(*graph, uses, reader.outputs[0] + "/before_reshape");
    for (std::string& in : reader.inputs) {
      if (in == z) in = y;
    }
    if (m->residual) {
      Node residual;
      residual.name = UnusedValueName(*graph, uses, reshape.name + "/residual");
      residual.op_type = "Reshape";
      residual.opset = reshape.opset;
      residual.rewritten_from = reshape.name;
      const std::string shape_name = UnusedValueName(*graph, uses, residual.name + "/shape");
      graph->initializers[shape_name] =
          HostTensor::FromInts(m->residual_shape, {static_cast<int64_t>(m->residual_shape.size())});
      residual.inputs = {*m->residual, shape_name};
      residual.outputs = {UnusedValueName(*graph, uses, residual.name)};
      for (std::string& in : reader.inputs) {
        if (in == *m->residual) in = residual.outputs[0];
      }
      std::optional<size_t> p = uses.Producer(*m->residual);
      added.push_back(std::move(residual));
      added_order.push_back(p ? static_cast<double>(*p) + 0.5 : -0.5);
    }
    reshape.inputs[0] = t;
    reshape.outputs[0] = reader.outputs[0];
    reader.outputs[0] = t;
    order[m->reshape] = static_cast<double>(m->reader) + 0.25;
    ++moved;
  }
  if (moved == 0) return 0;
  std::vector<std::pair<double, Node>> all;
  for (size_t n = 0; n < graph->nodes.size(); ++n)
    all.emplace_back(order[n], std::move(graph->nodes[n]));
  for (size_t n = 0; n < added.size(); ++n) all.emplace_back(added_order[n], std::move(added[n]));
  std::stable_sort(all.begin(), all.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  graph->nodes.clear();
  for (auto& [key, node] : all) graph->nodes.push_back(std::move(node));
  return moved;
}

}  // namespace vkserve
