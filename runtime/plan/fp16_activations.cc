// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/plan/fp16_activations.h"

#include "absl/strings/str_cat.h"
#include "runtime/ir/fp16_tensors.h"
#include "runtime/kernels/cast_op.h"
#include "runtime/op/graph_uses.h"

namespace vkserve {
namespace {

// The opset the added Casts claim: any with an int `to` attribute.
constexpr int64_t kCastOpset = 19;

// Input `i` of `node` carries data the op computes on (not a host-read
// parameter, not a shape).
bool IsDataInput(const Node& node, const Op& op, size_t i) {
  return !node.inputs[i].empty() && !op.IsHostInput(node, i) && !op.IsShapeOnlyInput(node, i);
}

Node CastNode(std::string name, const std::string& from, const std::string& to_value, DataType to,
              bool saturate, const Node& reader) {
  Node cast;
  cast.name = std::move(name);
  cast.op_type = "Cast";
  cast.opset = kCastOpset;
  cast.inputs = {from};
  cast.outputs = {to_value};
  Attribute type;
  type.type = Attribute::Type::kInt;
  type.i = static_cast<int64_t>(to);
  cast.attributes["to"] = type;
  Attribute on;
  on.type = Attribute::Type::kInt;
  on.i = 1;
  cast.attributes[Fp16Activations::kOwnAttr] = on;
  if (saturate) cast.attributes[kCastSaturateAttr] = on;
  // Shown (inspect, traces) as part of the node it serves.
  cast.rewritten_from = reader.rewritten_from.empty() ? reader.name : reader.rewritten_from;
  return cast;
}

}  // namespace

std::set<std::string> HalveInitializers(Graph* graph, const std::vector<const Op*>& ops) {
  std::set<std::string> halved;
  if (HasSubgraphs(*graph)) return halved;
  const auto takes_fp16 = [&](size_t n, size_t i) {
    const Node& node = graph->nodes[n];
    return ops[n]->traits().float16 != Float16Use::kNone && IsDataInput(node, *ops[n], i);
  };
  for (const std::string& name : FloatInitializersReadOnlyWhere(*graph, takes_fp16)) {
    ConvertToHalf(&graph->initializers[name], /*saturate=*/true);
    halved.insert(name);
  }
  return halved;
}

Fp16Activations::Fp16Activations(const Graph& graph, const std::vector<ValueInfo>& outputs,
                                 std::set<std::string> halved)
    : halved_(std::move(halved)) {
  for (const ValueInfo& out : outputs) outputs_[out.name] = out.type.dtype;
  for (const ValueInfo& in : graph.inputs) names_.insert(in.name);
  for (const auto& [name, tensor] : graph.initializers) names_.insert(name);
  for (const Node& node : graph.nodes) names_.insert(node.outputs.begin(), node.outputs.end());
}

bool Fp16Activations::HasHalvedInput(const Node& node, const Op& op) const {
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (IsDataInput(node, op, i) && halved_.contains(node.inputs[i])) return true;
  }
  return false;
}

std::string Fp16Activations::NewName(const std::string& base, const Lookup& find) {
  std::string name = absl::StrCat(kPrefix, base);
  for (int i = 1; find(name) != nullptr || names_.contains(name); ++i) {
    name = absl::StrCat(kPrefix, base, "_", i);
  }
  names_.insert(name);
  return name;
}

std::string Fp16Activations::Converted(const std::string& value, DataType to,
                                       const TensorDesc& desc, const Node& reader,
                                       const Lookup& find, std::vector<Node>* before) {
  auto& made = to == DataType::kFloat16 ? to_half_ : to_float_;
  auto it = made.find(value);
  const bool fresh = it == made.end();
  if (fresh) {
    it = made.emplace(value, NewName(to == DataType::kFloat16 ? value : value + "/fp32", find))
             .first;
    // Values known while planning (constants, folded shapes) saturate like
    // the initializers; activations convert as Cast does.
    const bool saturate = to == DataType::kFloat16 && desc.value != nullptr;
    before->push_back(CastNode(it->second, value, it->second, to, saturate, reader));
    if (to == DataType::kFloat16) halved_.insert(it->second);
  }
  return it->second;
}

std::optional<Fp16Activations::Rewrite> Fp16Activations::Plan(const Node& node, const Op& op,
                                                              const Lookup& find) {
  const Float16Use use = op.traits().float16;
  bool fp16_in = HasHalvedInput(node, op);
  // Whether this node's fp32 data inputs become fp16, or its fp16 ones fp32.
  const bool to_half = use == Float16Use::kComputes || (use == Float16Use::kMoves && fp16_in);
  const bool to_float = use == Float16Use::kNone;
  Rewrite r{{}, node};
  bool changed = false;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (!IsDataInput(node, op, i)) continue;
    const std::string& in = node.inputs[i];
    const TensorDesc* desc = find(in);
    if (desc == nullptr) continue;  // the planner reports it
    if (to_half && desc->dtype == DataType::kFloat) {
      r.node.inputs[i] = Converted(in, DataType::kFloat16, *desc, node, find, &r.before);
      changed = fp16_in = true;
    } else if (to_float && halved_.contains(in)) {
      r.node.inputs[i] = Converted(in, DataType::kFloat, *desc, node, find, &r.before);
      changed = true;
    }
  }
  if (to_float) fp16_in = false;
  if (fp16_in) {
    // An output the graph returns may come out fp16: the node writes a twin
    // that Finish converts to the declared type.
    for (std::string& out : r.node.outputs) {
      if (out.empty() || !outputs_.contains(out)) continue;
      const std::string twin = NewName(out, find);
      renamed_outputs_[twin] = out;
      out = twin;
      changed = true;
    }
  }
  if (!changed) return std::nullopt;
  return r;
}

std::vector<Node> Fp16Activations::Finish(const Node& node, const Op& op, const Lookup& find) {
  std::vector<Node> after;
  const bool from_halved = op.traits().float16 != Float16Use::kNone && HasHalvedInput(node, op);
  for (const std::string& out : node.outputs) {
    if (out.empty()) continue;
    const TensorDesc* desc = find(out);
    if (desc == nullptr) continue;
    if (from_halved && desc->dtype == DataType::kFloat16) halved_.insert(out);
    auto renamed = renamed_outputs_.find(out);
    if (renamed == renamed_outputs_.end()) continue;
    // The declared type (a Cast to the same type is a copy).
    const DataType declared = outputs_.at(renamed->second);
    const DataType to = declared == DataType::kUndefined ? desc->dtype : declared;
    after.push_back(CastNode(NewName("output/" + renamed->second, find), out, renamed->second, to,
                             false, node));
  }
  return after;
}

}  // namespace vkserve
