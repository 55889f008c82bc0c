// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// A kernel whose outputs are read only for their shapes gets no dispatch
// (PlannedNode::Kind::kUnread): here a Split whose outputs only a Shape
// reads, as the TorchScript exporter leaves GPT-2's Q/K/V Split once the
// fused attention reads its input whole. With one output read for its
// bytes too (by a Relu), the Split runs. Outputs against the host.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "runtime/ir/graph.h"
#include "runtime/model.h"
#include "runtime/plan/plan.h"
#include "runtime/session.h"
#include "tests/testing/gpu_fixture.h"
#include "tests/testing/graph_helpers.h"

namespace vkserve {
namespace {

using testing::Floats;
using testing::FloatType;
using testing::GpuTest;
using testing::MakeNode;

// x [2, 3, 6] -> Split(axis 2) -> a, b, c [2, 3, 2]; s = Shape(a);
// y = Relu(x); with `b_read`, also z = Relu(b). Outputs: s, y (, z).
Graph SplitGraph(bool b_read) {
  Graph g;
  g.opset_imports[""] = 13;
  g.inputs.push_back({"x", FloatType({Dim{2, "", ""}, Dim{3, "", ""}, Dim{6, "", ""}})});
  g.outputs.push_back({"s", {}});
  g.outputs.push_back({"y", {}});
  Node split = MakeNode("split", "Split", {"x", "sizes"}, "a");
  split.outputs = {"a", "b", "c"};
  Attribute axis;
  axis.type = Attribute::Type::kInt;
  axis.i = 2;
  split.attributes["axis"] = axis;
  g.initializers["sizes"] = HostTensor::FromInts({2, 2, 2}, {3});
  g.nodes.push_back(split);
  g.nodes.push_back(MakeNode("shape", "Shape", {"a"}, "s"));
  g.nodes.push_back(MakeNode("relu", "Relu", {"x"}, "y"));
  if (b_read) {
    g.nodes.push_back(MakeNode("relu_b", "Relu", {"b"}, "z"));
    g.outputs.push_back({"z", {}});
  }
  return g;
}

class UnreadNodesTest : public GpuTest, public ::testing::WithParamInterface<bool> {
 protected:
  GpuContext gpu() { return {device_.get(), allocator_.get(), pipelines_.get()}; }
};

TEST_P(UnreadNodesTest, ShapeOnlyReadsDispatchNothing) {
  const bool b_read = GetParam();
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::shared_ptr<Model> model,
                               Model::FromGraph(SplitGraph(b_read), gpu()));
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::shared_ptr<const Plan> plan, model->GetPlan({{2, 3, 6}}, {}));
  EXPECT_EQ(plan->unread_nodes, b_read ? 0 : 1);
  EXPECT_EQ(plan->kernel_nodes, b_read ? 3 : 1);  // Split, Relu, Relu / Relu
  for (const PlannedNode& n : plan->nodes) {
    if (n.node->name == "split") {
      EXPECT_EQ(n.kind, b_read ? PlannedNode::Kind::kKernel : PlannedNode::Kind::kUnread);
      EXPECT_EQ(n.kernel == nullptr, !b_read);
    }
  }

  std::vector<float> x(36);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) - 17.5f;
  const HostTensor xt = HostTensor::FromFloats(x, {2, 3, 6});
  std::vector<float> want_y, want_z;
  for (float v : x) want_y.push_back(v > 0 ? v : 0);
  for (int r = 0; r < 6; ++r) {
    for (int c = 2; c < 4; ++c) want_z.push_back(want_y[static_cast<size_t>(r * 6 + c)]);
  }
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> session, Session::Create(model));
  RunRequest request;
  request.inputs.push_back(InputBinding::Host("x", xt));
  for (int run = 0; run < 2; ++run) {  // recorded, then replayed
    VKSERVE_ASSERT_OK_AND_ASSIGN(const RunResult result, session->Run(request));
    ASSERT_EQ(result.outputs.size(), b_read ? 3u : 2u);
    EXPECT_EQ(result.outputs[0].host.ToInts(), (std::vector<int64_t>{2, 3, 2}));
    EXPECT_EQ(Floats(result.outputs[1].host), want_y);
    if (b_read) {
      EXPECT_EQ(Floats(result.outputs[2].host), want_z);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(OneOutputAlsoReadForItsBytes, UnreadNodesTest, ::testing::Bool());

}  // namespace
}  // namespace vkserve
