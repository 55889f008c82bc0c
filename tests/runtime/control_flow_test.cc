// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Control flow resolved at plan time (runtime/ops/controlflow/if.cc, loop.cc, scan.cc):
// an If whose condition is a model input takes the branch each request's
// condition picks (one plan per value, branch initializers and captured
// outer values included); an If whose condition is computed from tensor
// data on the GPU, and a Loop beyond the unroll limit, are errors naming the
// node when the model loads. The node suite's If/Loop/Scan cases check the
// results against the ONNX reference; these check the plan-time contract.
#include <cstring>
#include <memory>
#include <vector>

#include "runtime/model.h"
#include "runtime/session.h"
#include "tests/testing/gpu_fixture.h"
#include "tests/testing/graph_helpers.h"

namespace vkserve {
namespace {

using testing::GpuTest;

TensorType Tensor(DataType dtype, std::vector<int64_t> dims) {
  TensorType t;
  t.dtype = dtype;
  t.has_shape = true;
  for (int64_t d : dims) t.shape.push_back(Dim{d, "", ""});
  return t;
}

Node MakeNode(std::string name, std::string op, std::vector<std::string> inputs,
              std::vector<std::string> outputs, int64_t opset = 14) {
  Node n;
  n.name = std::move(name);
  n.op_type = std::move(op);
  n.opset = opset;
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  return n;
}

Attribute GraphAttr(Graph g) {
  Attribute a;
  a.type = Attribute::Type::kGraph;
  a.graphs.push_back(std::make_shared<const Graph>(std::move(g)));
  return a;
}

// then: x + ten (a branch initializer); else: -x. Both read the outer x.
Attribute ThenBranch() {
  Graph g;
  g.outputs.push_back({"then_y", Tensor(DataType::kFloat, {3})});
  g.initializers["ten"] = HostTensor::FromFloats({10, 10, 10}, {3});
  g.nodes.push_back(MakeNode("then_add", "Add", {"x", "ten"}, {"then_y"}));
  return GraphAttr(std::move(g));
}

Attribute ElseBranch() {
  Graph g;
  g.outputs.push_back({"else_y", Tensor(DataType::kFloat, {3})});
  g.nodes.push_back(MakeNode("else_neg", "Neg", {"x"}, {"else_y"}));
  return GraphAttr(std::move(g));
}

// y = If(cond) over x: float[3]; cond is a model input.
Graph IfOnInputGraph() {
  Graph g;
  g.opset_imports[""] = 14;
  g.inputs.push_back({"x", Tensor(DataType::kFloat, {3})});
  g.inputs.push_back({"cond", Tensor(DataType::kBool, {})});
  g.outputs.push_back({"y", Tensor(DataType::kFloat, {3})});
  Node n = MakeNode("the_if", "If", {"cond"}, {"y"});
  n.attributes["then_branch"] = ThenBranch();
  n.attributes["else_branch"] = ElseBranch();
  g.nodes.push_back(std::move(n));
  return g;
}

using testing::Floats;

class ControlFlowTest : public GpuTest {
 protected:
  GpuContext gpu() const { return {device_.get(), allocator_.get(), pipelines_.get()}; }

  absl::StatusOr<RunResult> RunIf(Session& session, bool cond) {
    x_ = HostTensor::FromFloats({1, 2, 3}, {3});
    cond_.dtype = DataType::kBool;
    cond_.data = TensorBytes(std::vector<uint8_t>{static_cast<uint8_t>(cond ? 1 : 0)});
    RunRequest r;
    r.inputs.push_back(InputBinding::Host("x", x_));
    r.inputs.push_back(InputBinding::Host("cond", cond_));
    return session.Run(r);
  }

  HostTensor x_, cond_;
};

TEST_F(ControlFlowTest, IfTakesTheBranchEachRequestsConditionPicks) {
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::shared_ptr<Model> model,
                               Model::FromGraph(IfOnInputGraph(), gpu()));
  EXPECT_FALSE(model->is_value_input(0));
  EXPECT_TRUE(model->is_value_input(1));
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> session, Session::Create(model));
  VKSERVE_ASSERT_OK_AND_ASSIGN(RunResult a, RunIf(*session, true));
  ASSERT_EQ(a.outputs.size(), 1u);
  EXPECT_EQ(Floats(a.outputs[0].host), (std::vector<float>{11, 12, 13}));
  VKSERVE_ASSERT_OK_AND_ASSIGN(RunResult b, RunIf(*session, false));
  EXPECT_EQ(Floats(b.outputs[0].host), (std::vector<float>{-1, -2, -3}));
  VKSERVE_ASSERT_OK_AND_ASSIGN(RunResult c, RunIf(*session, true));
  EXPECT_EQ(Floats(c.outputs[0].host), (std::vector<float>{11, 12, 13}));
  EXPECT_EQ(model->cached_plan_count(), 2u);
}

TEST_F(ControlFlowTest, IfOnDataComputedOnTheGpuIsALoadErrorNamingTheNode) {
  // cond = ReduceSum(x) > 0 over a float[70000] x: too large to read on the
  // host, so the condition exists only on the GPU.
  Graph g = IfOnInputGraph();
  g.inputs = {{"x", Tensor(DataType::kFloat, {70000})}};
  g.outputs = {{"y", Tensor(DataType::kFloat, {70000})}};
  g.initializers["zero"] = HostTensor::FromFloats({0}, {});
  Node sum = MakeNode("sum", "ReduceSum", {"x"}, {"s"}, 11);
  Attribute keep;
  keep.type = Attribute::Type::kInt;
  keep.i = 0;
  sum.attributes["keepdims"] = keep;
  g.nodes.insert(g.nodes.begin(), {sum, MakeNode("positive", "Greater", {"s", "zero"}, {"cond"})});
  const absl::StatusOr<std::shared_ptr<Model>> model = Model::FromGraph(std::move(g), gpu());
  ASSERT_FALSE(model.ok());
  EXPECT_TRUE(absl::IsUnimplemented(model.status())) << model.status();
  EXPECT_NE(model.status().message().find("If (node 'the_if'"), std::string_view::npos)
      << model.status();
  EXPECT_NE(model.status().message().find("condition"), std::string_view::npos) << model.status();
}

TEST_F(ControlFlowTest, AnUnsupportedOpInABranchIsALoadError) {
  Graph g = IfOnInputGraph();
  Graph branch;
  branch.outputs.push_back({"bad_y", Tensor(DataType::kFloat, {3})});
  branch.nodes.push_back(MakeNode("bad", "NoSuchOp", {"x"}, {"bad_y"}));
  g.nodes[0].attributes["else_branch"] = GraphAttr(std::move(branch));
  const absl::StatusOr<std::shared_ptr<Model>> model = Model::FromGraph(std::move(g), gpu());
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("NoSuchOp"), std::string_view::npos) << model.status();
  EXPECT_NE(model.status().message().find("the_if"), std::string_view::npos) << model.status();
}

TEST_F(ControlFlowTest, LoopBeyondTheUnrollLimitIsALoadErrorNamingTheNode) {
  Graph g;
  g.opset_imports[""] = 14;
  g.inputs.push_back({"x", Tensor(DataType::kFloat, {3})});
  g.outputs.push_back({"y", Tensor(DataType::kFloat, {3})});
  g.initializers["trip"] = HostTensor::FromInts({5000}, {});
  Graph body;
  body.inputs = {{"i", Tensor(DataType::kInt64, {})},
                 {"c", Tensor(DataType::kBool, {})},
                 {"v", Tensor(DataType::kFloat, {3})}};
  body.outputs = {{"c_out", Tensor(DataType::kBool, {})}, {"v_out", Tensor(DataType::kFloat, {3})}};
  body.nodes.push_back(MakeNode("keep", "Identity", {"c"}, {"c_out"}));
  body.nodes.push_back(MakeNode("twice", "Add", {"v", "v"}, {"v_out"}));
  Node loop = MakeNode("the_loop", "Loop", {"trip", "", "x"}, {"y"});
  loop.attributes["body"] = GraphAttr(std::move(body));
  g.nodes.push_back(std::move(loop));
  const absl::StatusOr<std::shared_ptr<Model>> model = Model::FromGraph(std::move(g), gpu());
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("Loop (node 'the_loop'"), std::string_view::npos)
      << model.status();
  EXPECT_NE(model.status().message().find("4096"), std::string_view::npos) << model.status();
}

}  // namespace
}  // namespace vkserve
