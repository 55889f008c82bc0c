// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Small helpers for tests that build a Graph in memory and read float
// results back: header-only, so any test may include them without linking
// more.
#ifndef VKSERVE_TESTS_TESTING_GRAPH_HELPERS_H_
#define VKSERVE_TESTS_TESTING_GRAPH_HELPERS_H_

#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/ir/graph.h"

namespace vkserve::testing {

// A node of the default domain at `opset` with one output.
inline Node MakeNode(const char* name, const char* op, std::vector<std::string> inputs,
                     std::string output, int64_t opset = 13) {
  Node n;
  n.name = name;
  n.op_type = op;
  n.opset = opset;
  n.inputs = std::move(inputs);
  n.outputs = {std::move(output)};
  return n;
}

// A float32 value's type; `shape` empty: rank unknown.
inline TensorType FloatType(std::vector<Dim> shape) {
  TensorType t;
  t.dtype = DataType::kFloat;
  t.has_shape = !shape.empty();
  t.shape = std::move(shape);
  return t;
}

// The op types and the names of `g`'s nodes, in order: what a graph pass
// left.
inline std::vector<std::string> OpTypes(const Graph& g) {
  std::vector<std::string> types;
  for (const Node& n : g.nodes) types.push_back(n.op_type);
  return types;
}
inline std::vector<std::string> NodeNames(const Graph& g) {
  std::vector<std::string> names;
  for (const Node& n : g.nodes) names.push_back(n.name);
  return names;
}

// An If node whose then_branch is an empty graph: makes `g` a graph with
// subgraphs, which the passes indexing the main graph leave alone.
inline Node IfWithSubgraph(const char* name, std::string cond, std::string output) {
  Node n = MakeNode(name, "If", {std::move(cond)}, std::move(output));
  Attribute body;
  body.type = Attribute::Type::kGraph;
  body.graphs.push_back(std::make_shared<Graph>());
  n.attributes["then_branch"] = body;
  return n;
}

// A float tensor's elements (its bytes may be a view with any alignment).
inline std::vector<float> Floats(const HostTensor& t) {
  std::vector<float> v(t.data.size() / sizeof(float));
  if (!v.empty()) std::memcpy(v.data(), t.data.data(), t.data.size());
  return v;
}

}  // namespace vkserve::testing

#endif  // VKSERVE_TESTS_TESTING_GRAPH_HELPERS_H_
