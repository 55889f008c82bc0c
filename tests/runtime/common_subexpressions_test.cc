// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// runtime/passes/common_subexpressions.h on graphs built here: a node repeating an
// earlier one (same op and attributes, inputs of the same name or small
// initializers of equal content) goes and its readers read the earlier
// node's output, through chains; different attributes, large initializers
// of equal content, impure ops, graph outputs and graphs with subgraphs
// keep their nodes. The end-to-end check is runtime_model_test: bert_tiny,
// whose per-layer mask Where nodes merge, still matches onnxruntime.
#include "runtime/passes/common_subexpressions.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/ir/graph.h"
#include "runtime/op/op.h"
#include "tests/testing/graph_helpers.h"

namespace vkserve {
namespace {

using testing::IfWithSubgraph;
using testing::MakeNode;
using testing::NodeNames;

class FakeOp : public Op {
 public:
  explicit FakeOp(bool pure) : traits_{.pure = pure} {}
  const OpTraits& traits() const override { return traits_; }
  absl::Status Infer(InferContext&) const override { return absl::OkStatus(); }

 private:
  OpTraits traits_;
};

const FakeOp kPure(true);
const FakeOp kRandom(false);

std::vector<const Op*> PureOps(const Graph& g) {
  return std::vector<const Op*>(g.nodes.size(), &kPure);
}

HostTensor Scalar(float v) { return HostTensor::FromFloats({v}, {}); }

Attribute IntAttribute(int64_t v) {
  Attribute a;
  a.type = Attribute::Type::kInt;
  a.i = v;
  return a;
}

// BERT's mask as the exporter writes it per layer: Where(cond, zero_k,
// minus_k) with constants of their own names, each read by a layer's Add.
Graph MaskGraph() {
  Graph g;
  g.inputs.push_back({"cond", {}});
  g.inputs.push_back({"s0", {}});
  g.inputs.push_back({"s1", {}});
  g.outputs.push_back({"y0", {}});
  g.outputs.push_back({"y1", {}});
  g.initializers["zero_0"] = Scalar(0.0f);
  g.initializers["min_0"] = Scalar(-3.0e38f);
  g.initializers["zero_1"] = Scalar(0.0f);
  g.initializers["min_1"] = Scalar(-3.0e38f);
  g.nodes.push_back(MakeNode("where0", "Where", {"cond", "zero_0", "min_0"}, "m0"));
  g.nodes.push_back(MakeNode("add0", "Add", {"s0", "m0"}, "y0"));
  g.nodes.push_back(MakeNode("where1", "Where", {"cond", "zero_1", "min_1"}, "m1"));
  g.nodes.push_back(MakeNode("add1", "Add", {"s1", "m1"}, "y1"));
  return g;
}

TEST(CommonSubexpressionsTest, EqualConstantsMakeOneMask) {
  Graph g = MaskGraph();
  EXPECT_EQ(EliminateCommonSubexpressions(&g, PureOps(g)), 1);
  EXPECT_EQ(NodeNames(g), (std::vector<std::string>{"where0", "add0", "add1"}));
  EXPECT_EQ(g.nodes[2].inputs, (std::vector<std::string>{"s1", "m0"}));
  EXPECT_EQ(g.nodes[0].absorbed, (std::vector<std::string>{"where1"}));
}

TEST(CommonSubexpressionsTest, OtherValuesOrAttributesKeepTheirNodes) {
  Graph g = MaskGraph();
  g.initializers["min_1"] = Scalar(-1.0e4f);  // another mask value
  EXPECT_EQ(EliminateCommonSubexpressions(&g, PureOps(g)), 0);

  Graph h;
  h.inputs.push_back({"x", {}});
  h.nodes.push_back(MakeNode("a", "Softmax", {"x"}, "a"));
  h.nodes.push_back(MakeNode("b", "Softmax", {"x"}, "b"));
  h.nodes.push_back(MakeNode("c", "Add", {"a", "b"}, "c"));
  h.outputs = {{"c", {}}};
  h.nodes[0].attributes["axis"] = IntAttribute(-1);
  h.nodes[1].attributes["axis"] = IntAttribute(1);
  EXPECT_EQ(EliminateCommonSubexpressions(&h, PureOps(h)), 0);
  h.nodes[1].attributes["axis"] = IntAttribute(-1);
  EXPECT_EQ(EliminateCommonSubexpressions(&h, PureOps(h)), 1);
  EXPECT_EQ(h.nodes.back().inputs, (std::vector<std::string>{"a", "a"}));
}

TEST(CommonSubexpressionsTest, ChainsMergeNodeByNode) {
  Graph g;
  g.inputs.push_back({"x", {}});
  g.nodes.push_back(MakeNode("r0", "Relu", {"x"}, "r0"));
  g.nodes.push_back(MakeNode("r1", "Relu", {"x"}, "r1"));
  g.nodes.push_back(MakeNode("n0", "Neg", {"r0"}, "n0"));
  g.nodes.push_back(MakeNode("n1", "Neg", {"r1"}, "n1"));
  g.nodes.push_back(MakeNode("sum", "Add", {"n0", "n1"}, "y"));
  g.outputs.push_back({"y", {}});
  EXPECT_EQ(EliminateCommonSubexpressions(&g, PureOps(g)), 2);
  EXPECT_EQ(NodeNames(g), (std::vector<std::string>{"r0", "n0", "sum"}));
  EXPECT_EQ(g.nodes[2].inputs, (std::vector<std::string>{"n0", "n0"}));
}

TEST(CommonSubexpressionsTest, LargeInitializersCompareByName) {
  Graph g = MaskGraph();
  const std::vector<float> big(2048, 1.0f);  // 8 KiB each, equal bytes
  g.initializers["min_0"] = HostTensor::FromFloats(big, {2048});
  g.initializers["min_1"] = HostTensor::FromFloats(big, {2048});
  EXPECT_EQ(EliminateCommonSubexpressions(&g, PureOps(g)), 0);
  g.nodes[2].inputs[2] = "min_0";  // the same name: the same value
  EXPECT_EQ(EliminateCommonSubexpressions(&g, PureOps(g)), 1);
}

TEST(CommonSubexpressionsTest, ImpureOpsAndGraphOutputsStay) {
  Graph g = MaskGraph();
  std::vector<const Op*> ops = PureOps(g);
  ops[2] = &kRandom;  // the second Where draws its own values
  EXPECT_EQ(EliminateCommonSubexpressions(&g, ops), 0);

  g = MaskGraph();
  g.outputs.push_back({"m1", {}});  // the second mask is a graph output
  EXPECT_EQ(EliminateCommonSubexpressions(&g, PureOps(g)), 0);
  g = MaskGraph();
  g.outputs.push_back({"m0", {}});  // the first one may be: it stays anyway
  EXPECT_EQ(EliminateCommonSubexpressions(&g, PureOps(g)), 1);
  EXPECT_EQ(g.nodes[2].inputs, (std::vector<std::string>{"s1", "m0"}));
}

TEST(CommonSubexpressionsTest, GraphsWithSubgraphsAreLeftAlone) {
  Graph g = MaskGraph();
  g.nodes.push_back(IfWithSubgraph("if", "cond", "z"));
  EXPECT_EQ(EliminateCommonSubexpressions(&g, PureOps(g)), 0);
  EXPECT_EQ(g.nodes.size(), 5u);
}

}  // namespace
}  // namespace vkserve
