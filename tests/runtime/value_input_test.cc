// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Value inputs (Model::is_value_input): a graph input a node reads on the
// host — here Reshape's shape and ReduceSum's axes — arrives with each
// request; its values select the plan (one per distinct value, named in the
// signature), the results follow them, and a missing value is a clear error.
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

// y = ReduceSum(Reshape(x, shape), axes, keepdims = 0); x is float[12].
Graph ReshapeReduceGraph() {
  Graph g;
  g.opset_imports[""] = 14;
  auto tensor = [](DataType dtype, std::vector<Dim> shape) {
    TensorType t;
    t.dtype = dtype;
    t.has_shape = true;
    t.shape = std::move(shape);
    return t;
  };
  g.inputs.push_back({"x", tensor(DataType::kFloat, {Dim{12, "", ""}})});
  g.inputs.push_back({"shape", tensor(DataType::kInt64, {Dim{2, "", ""}})});
  g.inputs.push_back({"axes", tensor(DataType::kInt64, {Dim{1, "", ""}})});
  TensorType out;
  out.dtype = DataType::kFloat;
  g.outputs.push_back({"y", out});
  Node reshape;
  reshape.name = "reshape";
  reshape.op_type = "Reshape";
  reshape.opset = 14;
  reshape.inputs = {"x", "shape"};
  reshape.outputs = {"r"};
  g.nodes.push_back(reshape);
  Node reduce;
  reduce.name = "reduce";
  reduce.op_type = "ReduceSum";
  reduce.opset = 14;
  reduce.inputs = {"r", "axes"};
  reduce.outputs = {"y"};
  Attribute keep;
  keep.type = Attribute::Type::kInt;
  keep.i = 0;
  reduce.attributes["keepdims"] = keep;
  g.nodes.push_back(reduce);
  return g;
}

using testing::Floats;

class ValueInputTest : public GpuTest {
 protected:
  absl::StatusOr<RunResult> Run(Session& session, std::vector<int64_t> shape, int64_t axis) {
    x_ = HostTensor::FromFloats({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {12});
    shape_ = HostTensor::FromInts(shape, {2});
    axes_ = HostTensor::FromInts({axis}, {1});
    RunRequest r;
    r.inputs.push_back(InputBinding::Host("x", x_));
    r.inputs.push_back(InputBinding::Host("shape", shape_));
    r.inputs.push_back(InputBinding::Host("axes", axes_));
    return session.Run(r);
  }

  HostTensor x_, shape_, axes_;
};

TEST_F(ValueInputTest, ValuesFromEachRequestSelectThePlan) {
  VKSERVE_ASSERT_OK_AND_ASSIGN(
      std::shared_ptr<Model> model,
      Model::FromGraph(ReshapeReduceGraph(), {device_.get(), allocator_.get(), pipelines_.get()}));
  EXPECT_FALSE(model->is_value_input(0));
  EXPECT_TRUE(model->is_value_input(1));
  EXPECT_TRUE(model->is_value_input(2));
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> session, Session::Create(model));

  // [3, 4] summed over axis 1: row sums.
  VKSERVE_ASSERT_OK_AND_ASSIGN(RunResult a, Run(*session, {3, 4}, 1));
  ASSERT_EQ(a.outputs.size(), 1u);
  EXPECT_EQ(a.outputs[0].host.shape, (std::vector<int64_t>{3}));
  EXPECT_EQ(Floats(a.outputs[0].host), (std::vector<float>{6, 22, 38}));
  // [4, 3] over axis 0: column sums; a second plan.
  VKSERVE_ASSERT_OK_AND_ASSIGN(RunResult b, Run(*session, {4, 3}, 0));
  EXPECT_EQ(b.outputs[0].host.shape, (std::vector<int64_t>{3}));
  EXPECT_EQ(Floats(b.outputs[0].host), (std::vector<float>{18, 22, 26}));
  // [2, 6] over axis -1, then the first values again (its plan reused).
  VKSERVE_ASSERT_OK_AND_ASSIGN(RunResult c, Run(*session, {2, 6}, -1));
  EXPECT_EQ(Floats(c.outputs[0].host), (std::vector<float>{15, 51}));
  VKSERVE_ASSERT_OK_AND_ASSIGN(RunResult d, Run(*session, {3, 4}, 1));
  EXPECT_EQ(Floats(d.outputs[0].host), (std::vector<float>{6, 22, 38}));
  EXPECT_EQ(model->cached_plan_count(), 3u);

  // The signature names the values; planning without them is refused.
  const std::vector<std::vector<int64_t>> shapes = {{12}, {2}, {1}};
  InputValues values = {nullptr,
                        std::make_shared<const HostTensor>(HostTensor::FromInts({6, 2}, {2})),
                        std::make_shared<const HostTensor>(HostTensor::FromInts({0}, {1}))};
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::shared_ptr<const Plan> plan, model->GetPlan(shapes, values));
  EXPECT_NE(plan->signature.find("shape=[2]{6,2}"), std::string::npos) << plan->signature;
  EXPECT_NE(plan->signature.find("axes=[1]{0}"), std::string::npos) << plan->signature;
  const absl::Status missing = model->GetPlan(shapes).status();
  EXPECT_TRUE(absl::IsInvalidArgument(missing)) << missing;
  EXPECT_NE(missing.message().find("'shape'"), std::string_view::npos) << missing;

  // A shape that does not fit the data is the op's error, not a crash.
  const absl::StatusOr<RunResult> bad = Run(*session, {5, 4}, 0);
  EXPECT_FALSE(bad.ok());
}

}  // namespace
}  // namespace vkserve
