// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/op/graph_uses.h"

#include <memory>

#include "runtime/op/op.h"

namespace vkserve {

GraphUses::GraphUses(const Graph& graph) {
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const Node& node = graph.nodes[n];
    nodes_.push_back(&node);
    for (const std::string& in : node.inputs) {
      if (!in.empty()) readers_[in].push_back(n);
    }
    for (const std::string& out : node.outputs) {
      if (!out.empty()) producer_[out] = n;
    }
  }
  for (const ValueInfo& o : graph.outputs) outputs_.insert(o.name);
}

std::optional<size_t> GraphUses::Producer(const std::string& value) const {
  auto it = producer_.find(value);
  if (it == producer_.end()) return std::nullopt;
  return it->second;
}

const std::vector<size_t>& GraphUses::Readers(const std::string& value) const {
  static const std::vector<size_t> kNone;
  auto it = readers_.find(value);
  return it == readers_.end() ? kNone : it->second;
}

std::optional<size_t> GraphUses::SoleProducer(const std::string& value, size_t reader) const {
  std::optional<size_t> p = Producer(value);
  const std::vector<size_t>& readers = Readers(value);
  if (!p || IsGraphOutput(value) || readers.size() != 1 || readers[0] != reader ||
      nodes_[*p]->outputs.size() != 1) {
    return std::nullopt;
  }
  return p;
}

std::optional<size_t> GraphUses::SoleReader(const std::string& value) const {
  const std::vector<size_t>& readers = Readers(value);
  if (IsGraphOutput(value) || readers.size() != 1) return std::nullopt;
  return readers[0];
}

const TensorDesc* FindShape(const std::map<std::string, TensorDesc>& shapes,
                            const std::string& value) {
  auto it = shapes.find(value);
  return it == shapes.end() ? nullptr : &it->second;
}

std::string UnusedValueName(const Graph& graph, const GraphUses& uses, const std::string& base) {
  std::string name = base;
  for (int i = 1; uses.Producer(name) || !uses.Readers(name).empty() ||
                  graph.initializers.count(name) || uses.IsGraphOutput(name);
       ++i) {
    name = base + "_" + std::to_string(i);
  }
  return name;
}

std::optional<float> FloatScalarInitializer(const Graph& graph, const std::string& name) {
  auto it = graph.initializers.find(name);
  if (it == graph.initializers.end() || it->second.dtype != DataType::kFloat ||
      it->second.num_elements() != 1) {
    return std::nullopt;
  }
  return static_cast<float>(it->second.GetDouble(0));
}

std::optional<float> FloatScalarAtLoad(const Graph& graph,
                                       const std::map<std::string, TensorDesc>& shapes1,
                                       const std::map<std::string, TensorDesc>& shapes3,
                                       const std::string& name) {
  if (std::optional<float> c = FloatScalarInitializer(graph, name)) return c;
  std::optional<double> seen;
  for (const std::map<std::string, TensorDesc>* shapes : {&shapes1, &shapes3}) {
    auto it = shapes->find(name);
    if (it == shapes->end()) return std::nullopt;
    const std::shared_ptr<const HostTensor>& v = it->second.value;
    if (v == nullptr || v->dtype != DataType::kFloat || v->num_elements() != 1) return std::nullopt;
    const double d = v->GetDouble(0);
    if (seen && *seen != d) return std::nullopt;
    seen = d;
  }
  return static_cast<float>(*seen);
}

void EraseNodes(const std::vector<bool>& removed, std::vector<Node>* nodes) {
  std::vector<Node> kept;
  kept.reserve(nodes->size());
  for (size_t n = 0; n < nodes->size(); ++n) {
    if (!removed[n]) kept.push_back(std::move((*nodes)[n]));
  }
  *nodes = std::move(kept);
}

void AbsorbInto(const Node& part, Node* into) {
  into->absorbed.push_back(part.name);
  into->absorbed.insert(into->absorbed.end(), part.absorbed.begin(), part.absorbed.end());
}

bool IsPlainNode(const Node& node, const char* type) {
  return node.domain.empty() && node.op_type == type && node.attributes.empty();
}

bool ReadsOnlyShape(const Node& reader, const Op& op, const std::string& value) {
  for (size_t i = 0; i < reader.inputs.size(); ++i) {
    if (reader.inputs[i] == value && !op.IsShapeOnlyInput(reader, i)) return false;
  }
  return true;
}

bool HasSubgraphs(const Graph& graph) {
  for (const Node& node : graph.nodes) {
    for (const auto& [name, a] : node.attributes) {
      if (!a.graphs.empty()) return true;
    }
  }
  return false;
}

}  // namespace vkserve
