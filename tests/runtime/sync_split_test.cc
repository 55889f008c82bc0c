// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// A model cut at a sync point (runtime/sync_split.h): y = Cast(NonZero(x))
// * 2 with x of symbolic length. Each run reads back one count (RunTiming::
// sync_points), the suffix is planned and recorded per count and replayed
// when a count comes again, a count of zero gives an empty output, device
// outputs work, Inspect names the sync point and the model has no single
// plan. NonZero and Unique whose shaders would loop past llvmpipe's limit
// are refused there, not cut short; NonMaxSuppression's passes stay under it.
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "runtime/model.h"
#include "runtime/session.h"
#include "tests/testing/gpu_fixture.h"
#include "tests/testing/graph_helpers.h"

namespace vkserve {
namespace {

using testing::GpuTest;

Graph NonZeroGraph() {
  Graph g;
  g.opset_imports[""] = 13;
  TensorType in;
  in.dtype = DataType::kFloat;
  in.has_shape = true;
  in.shape = {Dim{-1, "n", ""}};
  g.inputs.push_back({"x", in});
  TensorType out;
  out.dtype = DataType::kFloat;
  g.outputs.push_back({"y", out});
  g.nodes.push_back(testing::MakeNode("nz", "NonZero", {"x"}, "idx"));
  Node cast = testing::MakeNode("cast", "Cast", {"idx"}, "f");
  Attribute to;
  to.type = Attribute::Type::kInt;
  to.i = static_cast<int64_t>(DataType::kFloat);
  cast.attributes["to"] = to;
  g.nodes.push_back(cast);
  g.nodes.push_back(testing::MakeNode("double", "Mul", {"f", "two"}, "y"));
  g.initializers["two"] = HostTensor::FromFloats({2}, {});
  return g;
}

using testing::Floats;

class SyncSplitTest : public GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    auto model =
        Model::FromGraph(NonZeroGraph(), {device_.get(), allocator_.get(), pipelines_.get()});
    ASSERT_TRUE(model.ok()) << model.status();
    model_ = *model;
    auto session = Session::Create(model_);
    ASSERT_TRUE(session.ok()) << session.status();
    session_ = std::move(*session);
  }

  void TearDown() override {
    session_.reset();
    model_.reset();
    GpuTest::TearDown();
  }

  absl::StatusOr<RunResult> Run(std::vector<float> values,
                                OutputLocation where = OutputLocation::kHost) {
    x_ = HostTensor::FromFloats(values, {static_cast<int64_t>(values.size())});
    RunRequest r;
    r.inputs.push_back(InputBinding::Host("x", x_));
    r.outputs.push_back({"y", where, nullptr});
    return session_->Run(r);
  }

  std::shared_ptr<Model> model_;
  std::unique_ptr<Session> session_;
  HostTensor x_;
};

TEST_F(SyncSplitTest, ReadsBackOnlyTheCountAndReplaysPerCount) {
  ASSERT_NE(model_->sync_split(), nullptr);
  VKSERVE_ASSERT_OK_AND_ASSIGN(RunResult a, Run({0, 3, 0, 5, -0.0f}));
  EXPECT_EQ(a.timing.sync_points, 1);
  EXPECT_EQ(a.outputs[0].host.shape, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(Floats(a.outputs[0].host), (std::vector<float>{2, 6}));
  EXPECT_EQ(session_->recording_count(), 2u);  // the prefix and the suffix at n = 2

  VKSERVE_ASSERT_OK_AND_ASSIGN(RunResult same, Run({0, 7, 0, 1, 0}));
  EXPECT_TRUE(same.timing.replayed);
  EXPECT_EQ(Floats(same.outputs[0].host), (std::vector<float>{2, 6}));
  EXPECT_EQ(session_->recording_count(), 2u);

  VKSERVE_ASSERT_OK_AND_ASSIGN(RunResult other, Run({1, 0, 0, 0, 4}));
  EXPECT_EQ(Floats(other.outputs[0].host), (std::vector<float>{0, 8}));
  VKSERVE_ASSERT_OK_AND_ASSIGN(RunResult three, Run({1, 1, 1, 0, 0}));
  EXPECT_FALSE(three.timing.replayed);  // the suffix at n = 3, recorded now
  EXPECT_EQ(Floats(three.outputs[0].host), (std::vector<float>{0, 2, 4}));
  EXPECT_EQ(session_->recording_count(), 3u);

  VKSERVE_ASSERT_OK_AND_ASSIGN(RunResult none, Run({0, 0, 0, 0, 0}));
  EXPECT_EQ(none.outputs[0].host.shape, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(none.timing.sync_points, 1);
}

TEST_F(SyncSplitTest, OtherInputShapesAndDeviceOutputs) {
  VKSERVE_ASSERT_OK_AND_ASSIGN(RunResult a,
                               Run({0, 0, 9, 0, 0, 0, 0, 0, 0, 1}, OutputLocation::kDevice));
  ASSERT_NE(a.outputs[0].device, nullptr);
  VKSERVE_ASSERT_OK_AND_ASSIGN(HostTensor y, a.outputs[0].device->Read());
  EXPECT_EQ(y.shape, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(Floats(y), (std::vector<float>{4, 18}));
}

TEST_F(SyncSplitTest, BindingsAreCheckedAgainstTheWholeModel) {
  const HostTensor x = HostTensor::FromInts({1, 2}, {2});
  RunRequest r;
  r.inputs.push_back(InputBinding::Host("x", x));
  EXPECT_EQ(session_->Run(r).status().code(),
            absl::StatusCode::kInvalidArgument);  // int64 for float
  RunRequest unknown;
  const HostTensor f = HostTensor::FromFloats({1}, {1});
  unknown.inputs.push_back(InputBinding::Host("x", f));
  unknown.inputs.push_back(InputBinding::Host("nope", f));
  EXPECT_EQ(session_->Run(unknown).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(SyncSplitTest, InspectNamesTheSyncPointAndThereIsNoSinglePlan) {
  VKSERVE_ASSERT_OK_AND_ASSIGN(ModelReport report, model_->Inspect());
  ASSERT_EQ(report.sync_points.size(), 1u);
  EXPECT_NE(report.sync_points[0].find("NonZero 'nz'"), std::string::npos) << report.sync_points[0];
  EXPECT_EQ(report.gpu_nodes, 3);
  EXPECT_EQ(report.cpu_nodes, 0);
  const absl::Status plan = model_->GetPlan(model_->DefaultInputShapes()).status();
  EXPECT_EQ(plan.code(), absl::StatusCode::kFailedPrecondition) << plan;
}

// NonZero of a value known at load folds on the host: no sync point.
TEST_F(SyncSplitTest, ConstantInputsFoldWithoutASyncPoint) {
  Graph g = NonZeroGraph();
  g.inputs[0].type.shape = {Dim{3, "", ""}};
  g.initializers["c"] = HostTensor::FromFloats({0, 1, 1}, {3});
  g.nodes[0].inputs = {"c"};
  g.nodes[2].inputs = {"f", "two"};
  Node add;
  add.name = "keep_x";
  add.op_type = "Identity";
  add.opset = 13;
  add.inputs = {"x"};
  add.outputs = {"x_out"};
  g.nodes.push_back(add);
  TensorType out;
  out.dtype = DataType::kFloat;
  g.outputs.push_back({"x_out", out});
  VKSERVE_ASSERT_OK_AND_ASSIGN(
      std::shared_ptr<Model> model,
      Model::FromGraph(std::move(g), {device_.get(), allocator_.get(), pipelines_.get()}));
  EXPECT_EQ(model->sync_split(), nullptr);
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> session, Session::Create(model));
  const HostTensor x = HostTensor::FromFloats({1, 2, 3}, {3});
  RunRequest r;
  r.inputs.push_back(InputBinding::Host("x", x));
  VKSERVE_ASSERT_OK_AND_ASSIGN(RunResult result, session->Run(r));
  EXPECT_EQ(result.timing.sync_points, 0);
  EXPECT_EQ(Floats(result.outputs[0].host), (std::vector<float>{2, 4}));
}

// 3,000,000 elements: each of NonZero's 128 invocations counts and then
// writes 23,438, past the 65,535 loop iterations after which llvmpipe ends
// its loops (the coordinates after the first few thousand were zeros).
// Refused there; exact elsewhere.
TEST_F(SyncSplitTest, NonZeroPastLlvmpipesLoopLimit) {
  std::vector<float> values(3000000, 1.0f);
  values[1] = 0.0f;
  absl::StatusOr<RunResult> result = Run(values);
  if (device_->info().driver_name == "llvmpipe") {
    EXPECT_EQ(result.status().code(), absl::StatusCode::kUnimplemented) << result.status();
    EXPECT_NE(result.status().message().find("llvmpipe"), std::string::npos) << result.status();
    return;
  }
  ASSERT_TRUE(result.ok()) << result.status();
  const std::vector<float> y = Floats(result->outputs[0].host);
  ASSERT_EQ(y.size(), values.size() - 1);
  for (size_t i = 1; i < y.size(); ++i) ASSERT_EQ(y[i], 2.0f * (i + 1)) << i;
}

// 300 disjoint boxes, every one selected, in score order: a single-invocation
// scan would loop 180,000 times, past the 65,535 after which llvmpipe ends an
// invocation's loops (it returned one box); the kernel's passes loop a
// bounded number of times, so all 300 come back on every device.
TEST_F(SyncSplitTest, NonMaxSuppressionKeepsEveryDisjointBox) {
  constexpr int64_t kBoxes = 300;
  Graph g;
  g.opset_imports[""] = 11;
  TensorType boxes_type;
  boxes_type.dtype = DataType::kFloat;
  boxes_type.has_shape = true;
  boxes_type.shape = {Dim{1, "", ""}, Dim{-1, "n", ""}, Dim{4, "", ""}};
  g.inputs.push_back({"boxes", boxes_type});
  TensorType scores_type = boxes_type;
  scores_type.shape = {Dim{1, "", ""}, Dim{1, "", ""}, Dim{-1, "n", ""}};
  g.inputs.push_back({"scores", scores_type});
  TensorType out;
  out.dtype = DataType::kInt64;
  g.outputs.push_back({"sel", out});
  g.nodes.push_back(
      testing::MakeNode("nms", "NonMaxSuppression", {"boxes", "scores", "max_out", "iou"}, "sel"));
  g.initializers["max_out"] = HostTensor::FromInts({std::numeric_limits<int64_t>::max()}, {1});
  g.initializers["iou"] = HostTensor::FromFloats({0.5f}, {1});
  std::vector<float> box_values, score_values;
  for (int64_t i = 0; i < kBoxes; ++i) {
    box_values.insert(box_values.end(), {2.0f * i, 0.0f, 2.0f * i + 1, 1.0f});
    score_values.push_back(static_cast<float>(kBoxes - i) / kBoxes);
  }
  const HostTensor boxes = HostTensor::FromFloats(box_values, {1, kBoxes, 4});
  const HostTensor scores = HostTensor::FromFloats(score_values, {1, 1, kBoxes});
  VKSERVE_ASSERT_OK_AND_ASSIGN(
      std::shared_ptr<Model> model,
      Model::FromGraph(std::move(g), {device_.get(), allocator_.get(), pipelines_.get()}));
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> session, Session::Create(model));
  RunRequest r;
  r.inputs.push_back(InputBinding::Host("boxes", boxes));
  r.inputs.push_back(InputBinding::Host("scores", scores));
  VKSERVE_ASSERT_OK_AND_ASSIGN(RunResult result, session->Run(r));
  const HostTensor& sel = result.outputs[0].host;
  ASSERT_EQ(sel.shape, (std::vector<int64_t>{kBoxes, 3}));
  for (int64_t i = 0; i < kBoxes; ++i) {
    EXPECT_EQ(sel.GetInt(i * 3), 0) << i;
    EXPECT_EQ(sel.GetInt(i * 3 + 1), 0) << i;
    EXPECT_EQ(sel.GetInt(i * 3 + 2), i) << i;
  }
}

// 2,000 distinct values: each invocation compares its 32 rows against every
// row three times, past llvmpipe's loop limit (it returned 64 values).
// Refused there; every value, sorted, elsewhere.
TEST_F(SyncSplitTest, UniquePastLlvmpipesLoopLimit) {
  constexpr int64_t kValues = 2000;
  Graph g;
  g.opset_imports[""] = 11;
  TensorType x_type;
  x_type.dtype = DataType::kFloat;
  x_type.has_shape = true;
  x_type.shape = {Dim{-1, "n", ""}};
  g.inputs.push_back({"x", x_type});
  TensorType out;
  out.dtype = DataType::kFloat;
  g.outputs.push_back({"y", out});
  g.nodes.push_back(testing::MakeNode("unique", "Unique", {"x"}, "y"));
  std::vector<float> values;
  for (int64_t i = 0; i < kValues; ++i) values.push_back(static_cast<float>(kValues - i));
  const HostTensor x = HostTensor::FromFloats(values, {kValues});
  const bool llvmpipe = device_->info().driver_name == "llvmpipe";
  auto model = Model::FromGraph(std::move(g), {device_.get(), allocator_.get(), pipelines_.get()});
  absl::StatusOr<RunResult> result = absl::UnknownError("not run");
  if (!model.ok()) {
    result = model.status();
  } else {
    VKSERVE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> session, Session::Create(*model));
    RunRequest r;
    r.inputs.push_back(InputBinding::Host("x", x));
    result = session->Run(r);
  }
  if (llvmpipe) {
    EXPECT_EQ(result.status().code(), absl::StatusCode::kUnimplemented) << result.status();
    EXPECT_NE(result.status().message().find("llvmpipe"), std::string::npos) << result.status();
    return;
  }
  ASSERT_TRUE(result.ok()) << result.status();
  const HostTensor& y = result->outputs[0].host;
  ASSERT_EQ(y.shape, (std::vector<int64_t>{kValues}));
  std::vector<float> sorted(values.rbegin(), values.rend());
  EXPECT_EQ(Floats(y), sorted);
}

}  // namespace
}  // namespace vkserve
