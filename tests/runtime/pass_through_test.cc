// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// runtime/passes/pass_through.h on graphs built here: Identity and one-input
// Concat nodes go, their readers read the source (through chains), a node
// whose output is a graph output stays, so do a Concat of two inputs and
// every node of a graph with a subgraph; removed nodes are recorded as
// absorbed by the first reader, for inspect.
#include "runtime/passes/pass_through.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/ir/graph.h"
#include "runtime/op/op_registry.h"
#include "tests/testing/graph_helpers.h"

namespace vkserve {
namespace {

using testing::IfWithSubgraph;
using testing::MakeNode;
using testing::OpTypes;

Node ConcatNode(const char* name, std::vector<std::string> inputs, std::string output) {
  Node n = MakeNode(name, "Concat", std::move(inputs), std::move(output));
  Attribute axis;
  axis.type = Attribute::Type::kInt;
  axis.i = -2;
  n.attributes["axis"] = axis;
  return n;
}

// `g` with each node's op (the registry's).
int Drop(Graph* g) {
  std::vector<const Op*> ops;
  for (const Node& node : g->nodes) {
    absl::StatusOr<const Op*> op = OpRegistry::Global().Find(node);
    if (!op.ok()) {
      ADD_FAILURE() << op.status();
      return -1;
    }
    ops.push_back(*op);
  }
  return DropPassThroughNodes(g, ops);
}

// x -> Transpose -> k -> Concat(k) -> kc -> Identity -> ki -> Mul(ki, ki) -> y
//                                    kc -> Relu -> r (a graph output)
Graph CacheGraph() {
  Graph g;
  g.inputs.push_back({"x", {}});
  g.outputs.push_back({"y", {}});
  g.outputs.push_back({"r", {}});
  g.nodes.push_back(MakeNode("t", "Transpose", {"x"}, "k"));
  g.nodes.push_back(ConcatNode("cache", {"k"}, "kc"));
  g.nodes.push_back(MakeNode("id", "Identity", {"kc"}, "ki"));
  g.nodes.push_back(MakeNode("square", "Mul", {"ki", "ki"}, "y"));
  g.nodes.push_back(MakeNode("relu", "Relu", {"kc"}, "r"));
  return g;
}

TEST(PassThroughTest, ChainsGoAndReadersReadTheSource) {
  Graph g = CacheGraph();
  EXPECT_EQ(Drop(&g), 2);
  EXPECT_EQ(OpTypes(g), (std::vector<std::string>{"Transpose", "Mul", "Relu"}));
  EXPECT_EQ(g.nodes[1].inputs, (std::vector<std::string>{"k", "k"}));
  EXPECT_EQ(g.nodes[2].inputs, (std::vector<std::string>{"k"}));
  // The Concat went into the Identity (its first reader), the Identity and
  // what it held into the Mul.
  EXPECT_EQ(g.nodes[1].absorbed, (std::vector<std::string>{"id", "cache"}));
  EXPECT_TRUE(g.nodes[2].absorbed.empty());
}

TEST(PassThroughTest, GraphOutputsAndRealConcatsStay) {
  Graph g = CacheGraph();
  g.outputs.push_back({"kc", {}});  // the Concat's output is a graph output now
  g.nodes[4].inputs = {"kc"};
  g.nodes.push_back(ConcatNode("two", {"k", "ki"}, "both"));  // two inputs: a real Concat
  g.outputs.push_back({"both", {}});
  EXPECT_EQ(Drop(&g), 1);  // the Identity alone
  EXPECT_EQ(OpTypes(g), (std::vector<std::string>{"Transpose", "Concat", "Mul", "Relu", "Concat"}));
  EXPECT_EQ(g.nodes[2].inputs, (std::vector<std::string>{"kc", "kc"}));
  EXPECT_EQ(g.nodes[4].inputs, (std::vector<std::string>{"k", "kc"}));
}

TEST(PassThroughTest, GraphsWithSubgraphsAreLeftAlone) {
  Graph g = CacheGraph();
  g.nodes.push_back(IfWithSubgraph("if", "cond", "z"));
  EXPECT_EQ(Drop(&g), 0);
  EXPECT_EQ(g.nodes.size(), 6u);
}

}  // namespace
}  // namespace vkserve
