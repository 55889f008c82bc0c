// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// server/model_tensors: runtime types translated for config/ — data types
// both ways, ValueInfo to ModelTensor — and, through them, the example
// model's config.pbtxt checked against its model file as the server loads
// them (config/'s own tests build tensors by hand). No GPU.
#include "server/scheduling/model_tensors.h"

#include <string>

#include "config/model_config.h"
#include "config/server_config.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/loaders/onnx_loader.h"
#include "tests/testing/tinynet_example.h"

namespace vkserve {
namespace {

using ::testing::ElementsAre;

std::string ExampleModelDir() {
  return std::string(DefaultServerConfigDir()) + "/repository/tinynet";
}

TEST(ModelTensorsTest, DataTypeConversions) {
  for (int i = 1; i <= 14; ++i) {
    auto type = static_cast<inference::DataType>(i);
    DataType onnx = FromConfigDataType(type);
    ASSERT_NE(onnx, DataType::kUndefined) << i;
    EXPECT_EQ(ToConfigDataType(onnx), type) << i;
  }
  EXPECT_EQ(ToConfigDataType(DataType::kComplex128), inference::TYPE_INVALID);
  EXPECT_EQ(FromConfigDataType(inference::TYPE_INVALID), DataType::kUndefined);
  EXPECT_EQ(inference::TYPE_FP32, 11);  // Triton's numbering, not ONNX's
}

TEST(ModelTensorsTest, ValueInfoToModelTensor) {
  ValueInfo info{
      "image",
      TensorType{
          DataType::kFloat, true, {Dim{-1, "N", "DATA_BATCH"}, Dim{3, "", ""}, Dim{-1, "", ""}}}};
  ModelTensor t = ToModelTensor(info);
  EXPECT_EQ(t.name, "image");
  EXPECT_EQ(t.data_type, inference::TYPE_FP32);
  EXPECT_EQ(t.type_name, "float");
  EXPECT_TRUE(t.has_shape);
  ASSERT_EQ(t.dims.size(), 3u);
  EXPECT_EQ(t.dims[0].size, -1);
  EXPECT_EQ(t.dims[0].symbol, "N");
  EXPECT_EQ(t.dims[0].denotation, "DATA_BATCH");
  EXPECT_EQ(t.dims[1].size, 3);
  EXPECT_TRUE(t.dims[1].is_fixed());
  EXPECT_FALSE(t.dims[2].is_fixed());
  EXPECT_EQ(ShapeString(t), "[N,3,?]");

  // A type the protocol cannot carry keeps its ONNX name for the error.
  ModelTensor z = ToModelTensor(ValueInfo{"z", TensorType{DataType::kComplex64, false, {}}});
  EXPECT_EQ(z.data_type, inference::TYPE_INVALID);
  EXPECT_EQ(z.type_name, "complex64");
  EXPECT_FALSE(z.has_shape);
  EXPECT_TRUE(z.dims.empty());
  EXPECT_THAT(ToModelTensors({info, info}), ::testing::SizeIs(2));
}

TEST(ModelTensorsTest, ExampleConfigMatchesExampleModel) {
  absl::StatusOr<Graph> graph = LoadOnnxModel(ExampleModelDir() + "/1/model.onnx");
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::StatusOr<ParsedModelConfig> parsed =
      LoadModelConfig(ExampleModelDir() + "/config.pbtxt", "tinynet");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(parsed->from_file);
  absl::StatusOr<ModelSettings> s =
      ValidateModelConfig(*parsed, ToModelTensors(graph->inputs), ToModelTensors(graph->outputs));
  ASSERT_TRUE(s.ok()) << s.status();
  testing::ExpectTinynetExampleSettings(*s);
}

TEST(ModelTensorsTest, DerivedFromTheExampleModelFile) {
  absl::StatusOr<Graph> graph = LoadOnnxModel(ExampleModelDir() + "/1/model.onnx");
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::StatusOr<inference::ModelConfig> c =
      DeriveModelConfig("tinynet", ToModelTensors(graph->inputs), ToModelTensors(graph->outputs));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->name(), "tinynet");
  EXPECT_EQ(c->platform(), "onnxruntime_onnx");
  EXPECT_EQ(c->backend(), "vkserve");
  EXPECT_EQ(c->max_batch_size(), 0);
  ASSERT_EQ(c->input_size(), 1);
  EXPECT_EQ(c->input(0).name(), "image");
  EXPECT_EQ(c->input(0).data_type(), inference::TYPE_FP32);
  EXPECT_THAT(c->input(0).dims(), ElementsAre(-1, 3, 16, 16));
  ASSERT_EQ(c->output_size(), 1);
  EXPECT_EQ(c->output(0).name(), "probabilities");
  EXPECT_THAT(c->output(0).dims(), ElementsAre(-1, 10));
  ASSERT_EQ(c->instance_group_size(), 1);
  EXPECT_EQ(c->instance_group(0).count(), 1);
  EXPECT_EQ(c->instance_group(0).kind(), inference::ModelInstanceGroup::KIND_GPU);
}

}  // namespace
}  // namespace vkserve
