// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Model config: the example config against tensors shaped like the example
// model, the config derived from model tensors, and errors naming line and
// field in both phases (text alone; against the model's inputs and outputs).
// The model's tensors are built here as ModelTensors: config/ sits below the
// runtime, so these tests load no model file (tests/server/
// model_tensors_test.cc checks the example files themselves).
#include "config/model_config.h"

#include <string>
#include <vector>

#include "config/server_config.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/tinynet_example.h"

namespace vkserve {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string ExampleModelDir() {
  return std::string(DefaultServerConfigDir()) + "/repository/tinynet";
}

ModelDim Fixed(int64_t v) { return ModelDim{v, "", ""}; }
ModelDim Symbol(const std::string& name, const std::string& denotation = "") {
  return ModelDim{-1, name, denotation};
}

// `type_name` is what the model file calls the type (ONNX's names).
ModelTensor Tensor(const std::string& name, inference::DataType type, const std::string& type_name,
                   std::vector<ModelDim> dims) {
  return ModelTensor{name, type, type_name, /*has_shape=*/true, std::move(dims)};
}

// A model shaped like tinynet: image float[N,3,16,16] -> probabilities float[N,10].
std::vector<ModelTensor> Inputs() {
  return {Tensor("image", inference::TYPE_FP32, "float",
                 {Symbol("N", "DATA_BATCH"), Fixed(3), Fixed(16), Fixed(16)})};
}
std::vector<ModelTensor> Outputs() {
  return {Tensor("probabilities", inference::TYPE_FP32, "float", {Symbol("N"), Fixed(10)})};
}

// Phase 1 error message for config text (source name "config.pbtxt").
std::string ParseError(const std::string& text) {
  absl::StatusOr<ParsedModelConfig> parsed = ParseModelConfig(text, "config.pbtxt", "tinynet");
  EXPECT_FALSE(parsed.ok()) << text;
  if (parsed.ok()) return "";
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(parsed.status().message());
}

// Phase 2 error message (phase 1 must pass).
std::string ValidateError(const std::string& text,
                          const std::vector<ModelTensor>& inputs = Inputs(),
                          const std::vector<ModelTensor>& outputs = Outputs()) {
  absl::StatusOr<ParsedModelConfig> parsed = ParseModelConfig(text, "config.pbtxt", "tinynet");
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  if (!parsed.ok()) return "";
  absl::StatusOr<ModelSettings> settings = ValidateModelConfig(*parsed, inputs, outputs);
  EXPECT_FALSE(settings.ok()) << text;
  if (settings.ok()) return "";
  EXPECT_EQ(settings.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(settings.status().message());
}

absl::StatusOr<ModelSettings> Validate(const std::string& text,
                                       const std::vector<ModelTensor>& inputs = Inputs(),
                                       const std::vector<ModelTensor>& outputs = Outputs()) {
  absl::StatusOr<ParsedModelConfig> parsed = ParseModelConfig(text, "config.pbtxt", "tinynet");
  if (!parsed.ok()) return parsed.status();
  return ValidateModelConfig(*parsed, inputs, outputs);
}

TEST(ModelConfigTest, ExampleConfigMatchesTinynetTensors) {
  absl::StatusOr<ParsedModelConfig> parsed =
      LoadModelConfig(ExampleModelDir() + "/config.pbtxt", "tinynet");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(parsed->from_file);
  absl::StatusOr<ModelSettings> s = ValidateModelConfig(*parsed, Inputs(), Outputs());
  ASSERT_TRUE(s.ok()) << s.status();
  testing::ExpectTinynetExampleSettings(*s);
}

TEST(ModelConfigTest, DerivedFromTinynetTensors) {
  absl::StatusOr<inference::ModelConfig> c = DeriveModelConfig("tinynet", Inputs(), Outputs());
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

TEST(ModelConfigTest, EmptyConfigGetsDefaults) {
  ParsedModelConfig empty = EmptyModelConfig("m", "/repo/m (no config.pbtxt)");
  EXPECT_FALSE(empty.from_file);
  std::vector<ModelTensor> outputs = Outputs();
  outputs.push_back(
      ModelTensor{"unknown_rank", inference::TYPE_INT64, "int64", /*has_shape=*/false, {}});
  absl::StatusOr<ModelSettings> s = ValidateModelConfig(empty, Inputs(), outputs);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->sessions, 1);
  EXPECT_EQ(s->max_queue_size, 64);
  EXPECT_FALSE(s->dynamic_batching);
  EXPECT_EQ(s->output_locations.size(), 2u);
  EXPECT_EQ(s->config.output(1).data_type(), inference::TYPE_INT64);
  EXPECT_THAT(s->config.output(1).dims(), ElementsAre(-1));
}

TEST(ModelConfigTest, InstanceGroupsPlaceCountSessionsOnEachListedGpu) {
  // As Triton: count sessions on EACH listed GPU; groups naming the same
  // GPU add up; a group without gpus goes to the server's device.
  absl::StatusOr<ModelSettings> s = Validate(R"pb(
    instance_group {
      count: 2
      gpus: [ 0, 1 ]
    }
    instance_group {
      count: 3
      gpus: [ 2, 1 ]
    }
    instance_group { count: 1 }
  )pb");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->sessions, 2 * 2 + 3 * 2 + 1);
  ASSERT_EQ(s->placements.size(), 4u);
  EXPECT_EQ(s->placements[0].device, "0");
  EXPECT_EQ(s->placements[0].sessions, 2);
  EXPECT_EQ(s->placements[1].device, "1");
  EXPECT_EQ(s->placements[1].sessions, 5);
  EXPECT_EQ(s->placements[2].device, "2");
  EXPECT_EQ(s->placements[2].sessions, 3);
  EXPECT_EQ(s->placements[3].device, "");
  EXPECT_EQ(s->placements[3].sessions, 1);

  // No groups: one session on the server's device.
  s = Validate("");
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->placements.size(), 1u);
  EXPECT_EQ(s->placements[0].device, "");
  EXPECT_EQ(s->placements[0].sessions, 1);

  // vkserve.device (a name or UUID too) places the groups without gpus.
  s = Validate("instance_group { count: 2 }\nvkserve { device: \"GPU-0123\" }");
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->placements.size(), 1u);
  EXPECT_EQ(s->placements[0].device, "GPU-0123");
  EXPECT_EQ(s->placements[0].sessions, 2);
}

TEST(ModelConfigTest, BatchingDerivesDimsWithoutTheBatchDimension) {
  absl::StatusOr<ModelSettings> s = Validate("max_batch_size: 4");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_THAT(s->config.input(0).dims(), ElementsAre(3, 16, 16));
  EXPECT_THAT(s->config.output(0).dims(), ElementsAre(10));
}

TEST(ModelConfigTest, VkserveExtension) {
  absl::StatusOr<ModelSettings> s = Validate(R"pb(
    instance_group {
      count: 3
      gpus: [ 1 ]
    }
    instance_group { gpus: 1 }
    dynamic_batching {
      default_queue_policy {
        max_queue_size: 0
        default_timeout_microseconds: 2500
        allow_timeout_override: true
      }
    }
    vkserve {
      default_output_location: GPU
      free_dimension_override { name: "N" value: 8 }
      free_dimension_override { denotation: "data_batch" value: 8 }
    }
  )pb");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->sessions, 4);
  EXPECT_EQ(s->device, "");
  ASSERT_EQ(s->placements.size(), 1u);
  EXPECT_EQ(s->placements[0].device, "1");
  EXPECT_EQ(s->placements[0].sessions, 4);
  EXPECT_EQ(s->max_queue_size, 0);
  EXPECT_EQ(s->default_timeout, absl::Microseconds(2500));
  EXPECT_TRUE(s->allow_timeout_override);
  EXPECT_EQ(s->output_locations.at("probabilities"), PreferredLocation::kGpu);
  EXPECT_EQ(s->dim_overrides_by_name.at("N"), 8);
  EXPECT_EQ(s->dim_overrides_by_denotation.at("data_batch"), 8);

  s = Validate("vkserve { device: \"H100\" output { name: \"probabilities\" location: GPU } }");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->device, "H100");
  EXPECT_EQ(s->output_locations.at("probabilities"), PreferredLocation::kGpu);
  EXPECT_FALSE(s->fp16);

  s = Validate("vkserve { precision: FP16 }");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(s->fp16);
  s = Validate("vkserve { precision: 7 }");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("precision"), std::string::npos) << s.status();
}

// fp32 sums unless asked for; fp16 sums only with FP16 precision.
TEST(ModelConfigTest, AccumulationDefaultsToFp32AndNeedsFp16Precision) {
  absl::StatusOr<ModelSettings> s = Validate("vkserve { precision: FP16 }");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_FALSE(s->fp16_accumulation);
  s = Validate("vkserve { precision: FP16 accumulation: FP16 }");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(s->fp16 && s->fp16_accumulation);
  s = Validate("vkserve { precision: FP16 accumulation: FP32 }");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_FALSE(s->fp16_accumulation);
  for (const char* text : {"vkserve { accumulation: FP16 }",
                           "vkserve { precision: FP32 accumulation: FP16 }"}) {
    s = Validate(text);
    ASSERT_FALSE(s.ok()) << text;
    EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument) << s.status();
    EXPECT_THAT(std::string(s.status().message()),
                ::testing::AllOf(::testing::HasSubstr("vkserve.accumulation"),
                                 ::testing::HasSubstr("precision: FP16")))
        << s.status();
  }
  s = Validate("vkserve { precision: FP16 accumulation: 5 }");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.status().message()), ::testing::HasSubstr("accumulation"))
      << s.status();
}

// NCHW Convs unless asked for (the channels-last pass is opt-in).
TEST(ModelConfigTest, ConvLayoutDefaultsToAuto) {
  using Layout = config::ModelExtension::ConvLayout;
  absl::StatusOr<ModelSettings> s = Validate("vkserve { precision: FP16 }");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->conv_layout, Layout::AUTO);
  s = Validate("vkserve { precision: FP16 conv_layout: NHWC }");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->conv_layout, Layout::NHWC);
  s = Validate("vkserve { conv_layout: NCHW }");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->conv_layout, Layout::NCHW);
  s = Validate("vkserve { conv_layout: 5 }");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.status().message()), ::testing::HasSubstr("conv_layout"))
      << s.status();
}

TEST(ModelConfigTest, TritonConfigForOnnxRuntimeLoads) {
  absl::StatusOr<ModelSettings> s = Validate(R"pb(
    name: "tinynet"
    platform: "onnxruntime_onnx"
    backend: "onnxruntime"
    max_batch_size: 8
    version_policy { latest { num_versions: 2 } } input
    [ {
      name: "image"
      data_type: TYPE_FP32
      format: FORMAT_NCHW
      dims: [ 3, 16, 16 ]
    }] output
    [ {
      name: "probabilities"
      data_type: TYPE_FP32
      dims: [ 10 ]
    }] instance_group
    [ { count: 1 kind: KIND_GPU }]
    dynamic_batching {
      preferred_batch_size: [ 4, 8 ]
      max_queue_delay_microseconds: 100
    }
    parameters {
      key: "intra_op_thread_count"
      value { string_value: "1" }
    }
  )pb");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_THAT(s->preferred_batch_sizes, ElementsAre(4, 8));
  EXPECT_EQ(s->max_queue_delay, absl::Microseconds(100));
  EXPECT_EQ(s->config.backend(), "vkserve");  // reported as what runs it
  EXPECT_EQ(s->config.parameters().at("intra_op_thread_count").string_value(), "1");
}

// ---- Phase 1 errors -----------------------------------------------------------

TEST(ModelConfigTest, UnknownFieldNamesLineAndField) {
  EXPECT_EQ(
      ParseError("name: \"tinynet\"\ninput {\n  name: \"image\"\n  shape: [1]\n}"),
      "config.pbtxt:4:3: input.shape: Message type \"inference.ModelInput\" has no field named "
      "\"shape\".");
  EXPECT_EQ(ParseError("optimization { }"),
            "config.pbtxt:1:1: optimization: Message type \"inference.ModelConfig\" has no field "
            "named \"optimization\". (a Triton setting vkserve does not implement)");
  EXPECT_THAT(ParseError("vkserve {\n  devices: \"0\"\n}"),
              StartsWith("config.pbtxt:2:3: vkserve.devices: Message type "
                         "\"vkserve.config.ModelExtension\" has no field named \"devices\""));
}

TEST(ModelConfigTest, WrongTypeNamesLineAndField) {
  EXPECT_EQ(ParseError("max_batch_size: \"eight\""),
            "config.pbtxt:1:17: max_batch_size: Expected integer, got: \"eight\"");
  EXPECT_EQ(ParseError("input {\n  name: \"image\"\n  data_type: FP32\n}"),
            "config.pbtxt:3:14: input.data_type: Unknown enumeration value of \"FP32\" for field "
            "\"data_type\".");
  EXPECT_THAT(ParseError("input { name: \"x\" data_type: TYPE_FP32 dims: [3, \"a\"] }"),
              StartsWith("config.pbtxt:1:50: input.dims: Expected integer"));
}

TEST(ModelConfigTest, BadValuesNameTheField) {
  EXPECT_EQ(ParseError("max_batch_size: -1"),
            "config.pbtxt:1:1: max_batch_size: must be between 0 and 65536, got -1");
  EXPECT_EQ(ParseError("instance_group { count: 1 }\ninstance_group {\n  count: -2\n}"),
            "config.pbtxt:3:3: instance_group[1].count: must be >= 0 (0 means 1), got -2");
  EXPECT_EQ(
      ParseError("instance_group { kind: KIND_CPU }"),
      "config.pbtxt:1:18: instance_group[0].kind: KIND_CPU is not supported: vkserve runs every "
      "node on the GPU (use KIND_GPU or KIND_AUTO)");
  EXPECT_EQ(ParseError("instance_group { gpus: [0, 1, 0] }"),
            "config.pbtxt:1:18: instance_group[0].gpus[2]: device 0 is listed twice in this group");
  EXPECT_EQ(ParseError("instance_group { gpus: [0, -1] }"),
            "config.pbtxt:1:18: instance_group[0].gpus[1]: device indices are >= 0, got -1");
  // count is per listed GPU: 100 x 3 passes the limit.
  EXPECT_EQ(
      ParseError("instance_group { count: 100 gpus: [0, 1, 2] }"),
      "config.pbtxt:1:18: instance_group[0].count: the groups add up to more than 256 sessions");
  EXPECT_EQ(
      ParseError("instance_group { count: 200 }\ninstance_group { count: 100 }"),
      "config.pbtxt:2:18: instance_group[1].count: the groups add up to more than 256 sessions");
  EXPECT_EQ(
      ParseError("name: \"other\""),
      "config.pbtxt:1:1: name: \"other\" does not match the model's directory name \"tinynet\"");
  EXPECT_THAT(ParseError("platform: \"tensorrt_plan\""),
              StartsWith("config.pbtxt:1:1: platform: "));
  EXPECT_THAT(ParseError("backend: \"python\""), StartsWith("config.pbtxt:1:1: backend: "));
  EXPECT_EQ(
      ParseError(
          "input { name: \"a\" data_type: TYPE_FP32 }\ninput { name: \"a\" data_type: TYPE_FP32 }"),
      "config.pbtxt:2:9: input[1].name: \"a\" is listed twice");
  // Not written: the error points at the entry.
  EXPECT_EQ(ParseError("output { name: \"a\" }"),
            "config.pbtxt:1:1: output[0].data_type: must be set (e.g. TYPE_FP32)");
  EXPECT_EQ(
      ParseError("output { name: \"a\" data_type: TYPE_STRING }"),
      "config.pbtxt:1:20: output[0].data_type: TYPE_STRING tensors are not supported by vkserve");
  EXPECT_EQ(ParseError("output { name: \"a\" data_type: TYPE_FP32 dims: [2, -3] }"),
            "config.pbtxt:1:41: output[0].dims[1]: must be -1 (any size) or >= 0, got -3");
  EXPECT_THAT(ParseError("input { name: \"a\" data_type: 99 }"),
              StartsWith("config.pbtxt:1:19: input[0].data_type: 99 is not a value of DataType"));
  EXPECT_EQ(ParseError("version_policy { latest { num_versions: 0 } }"),
            "config.pbtxt:1:27: version_policy.latest.num_versions: must be >= 1");
  EXPECT_EQ(ParseError("version_policy { specific { versions: [1, 0] } }"),
            "config.pbtxt:1:29: version_policy.specific.versions[1]: versions are >= 1, got 0");
  EXPECT_EQ(ParseError("default_model_filename: \"../model.onnx\""),
            "config.pbtxt:1:1: default_model_filename: \"../model.onnx\" must be a file name, not "
            "a path");
  EXPECT_EQ(ParseError("default_model_filename: \"model.plan\""),
            "config.pbtxt:1:1: default_model_filename: \"model.plan\" must end in .onnx or .ort");
}

TEST(ModelConfigTest, QueueAndBatchingErrors) {
  EXPECT_EQ(
      ParseError("dynamic_batching { preferred_batch_size: 4 }"),
      "config.pbtxt:1:20: dynamic_batching.preferred_batch_size[0]: needs max_batch_size > 0");
  EXPECT_EQ(ParseError("max_batch_size: 4\ndynamic_batching { preferred_batch_size: [2, 8] }"),
            "config.pbtxt:2:20: dynamic_batching.preferred_batch_size[1]: must be between 1 and "
            "max_batch_size (4), got 8");
  EXPECT_EQ(ParseError("dynamic_batching {\n  default_queue_policy { timeout_action: DELAY }\n}"),
            "config.pbtxt:2:26: dynamic_batching.default_queue_policy.timeout_action: DELAY is not "
            "supported; timed-out requests are rejected (REJECT)");
  EXPECT_THAT(
      ParseError("dynamic_batching { default_queue_policy { default_timeout_microseconds: "
                 "99999999999999 } }"),
      HasSubstr(
          "dynamic_batching.default_queue_policy.default_timeout_microseconds: must be at most"));
}

TEST(ModelConfigTest, PriorityLevelsAndTheirQueuePolicies) {
  absl::StatusOr<ModelSettings> s = Validate(R"pb(
    max_batch_size: 8
    dynamic_batching {
      priority_levels: 3
      default_priority_level: 2
      default_queue_policy { max_queue_size: 10 }
      priority_queue_policy {
        key: 1
        value { max_queue_size: 2 default_timeout_microseconds: 500 }
      }
      priority_queue_policy {
        key: 3
        value { allow_timeout_override: true }
      }
    }
  )pb");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->priority_levels, 3);
  EXPECT_EQ(s->default_priority_level, 2);
  EXPECT_EQ(s->max_queue_size, 10);
  ASSERT_EQ(s->priority_queue_policies.size(), 2u);
  EXPECT_EQ(s->priority_queue_policies.at(1).max_queue_size, 2);
  EXPECT_EQ(s->priority_queue_policies.at(1).default_timeout, absl::Microseconds(500));
  // As in Triton, a level's policy does not inherit default_queue_policy.
  EXPECT_EQ(s->priority_queue_policies.at(3).max_queue_size, 64);
  EXPECT_TRUE(s->priority_queue_policies.at(3).allow_timeout_override);

  EXPECT_EQ(ParseError("dynamic_batching { priority_levels: 2 default_priority_level: 3 }"),
            "config.pbtxt:1:39: dynamic_batching.default_priority_level: must be between 1 and "
            "priority_levels (2), got 3");
  EXPECT_EQ(
      ParseError("dynamic_batching { default_priority_level: 1 }"),
      "config.pbtxt:1:20: dynamic_batching.default_priority_level: needs priority_levels > 0");
  EXPECT_THAT(ParseError("dynamic_batching { priority_levels: 2 default_priority_level: 1 "
                         "priority_queue_policy { key: 5 value {} } }"),
              HasSubstr("dynamic_batching.priority_queue_policy: level 5 is not between 1 and "
                        "priority_levels (2)"));
  EXPECT_THAT(ParseError("dynamic_batching { priority_levels: 2 default_priority_level: 1 "
                         "priority_queue_policy { key: 1 value { timeout_action: DELAY } } }"),
              HasSubstr("DELAY is not supported"));
}

TEST(ModelConfigTest, ExtensionErrors) {
  EXPECT_EQ(ParseError("output { name: \"probabilities\" data_type: TYPE_FP32 dims: [10] }\n"
                       "vkserve {\n  output { name: \"probs\" location: GPU }\n}"),
            "config.pbtxt:3:12: vkserve.output[0].name: \"probs\" is not an output of this model "
            "(outputs: probabilities)");
  EXPECT_EQ(ParseError("vkserve { output { name: \"a\" } output { name: \"a\" location: GPU } }"),
            "config.pbtxt:1:41: vkserve.output[1].name: \"a\" is listed twice");
  EXPECT_THAT(
      ParseError("vkserve { output { name: \"a\" location: TPU } }"),
      StartsWith(
          "config.pbtxt:1:40: vkserve.output.location: Unknown enumeration value of \"TPU\""));
  EXPECT_EQ(
      ParseError("instance_group { gpus: 0 }\nvkserve { device: \"1\" }"),
      "config.pbtxt:2:11: vkserve.device: set the device here or in instance_group.gpus, not both");
  EXPECT_EQ(ParseError("vkserve {\n  free_dimension_override { name: \"N\" denotation: "
                       "\"DATA_BATCH\" value: 2 }\n}"),
            "config.pbtxt:2:3: vkserve.free_dimension_override[0]: set exactly one of name and "
            "denotation");
  EXPECT_EQ(ParseError("vkserve { free_dimension_override { name: \"N\" value: 0 } }"),
            "config.pbtxt:1:47: vkserve.free_dimension_override[0].value: must be >= 1, got 0");
  EXPECT_EQ(
      ParseError("vkserve { free_dimension_override { name: \"N\" value: 1 }\n"
                 "free_dimension_override { name: \"N\" value: 2 } }"),
      "config.pbtxt:2:27: vkserve.free_dimension_override[1].name: \"N\" is overridden twice");
}

// ---- Phase 2 errors -----------------------------------------------------------

TEST(ModelConfigTest, InputsMustMatchTheModel) {
  EXPECT_EQ(
      ValidateError("input {\n  name: \"img\"\n  data_type: TYPE_FP32\n  dims: [-1, 3, 16, 16]\n}"),
      "config.pbtxt:2:3: input[0].name: the model file has no input \"img\" (inputs: image)");
  EXPECT_EQ(
      ValidateError(
          "input {\n  name: \"image\"\n  data_type: TYPE_FP16\n  dims: [-1, 3, 16, 16]\n}"),
      "config.pbtxt:3:3: input[0].data_type: is TYPE_FP16 but the model file declares TYPE_FP32");
  EXPECT_EQ(ValidateError(
                "input {\n  name: \"image\"\n  data_type: TYPE_FP32\n  dims: [-1, 4, 16, 16]\n}"),
            "config.pbtxt:4:3: input[0].dims[1]: is 4 but the model file fixes it at 3");
  EXPECT_EQ(
      ValidateError("input { name: \"image\" data_type: TYPE_FP32 dims: [-1, -1, 16, 16] }"),
      "config.pbtxt:1:44: input[0].dims[1]: is -1 (any size) but the model file fixes it at 3");
  EXPECT_EQ(
      ValidateError("input { name: \"image\" data_type: TYPE_FP32 dims: [3, 16, 16] }"),
      "config.pbtxt:1:44: input[0].dims: has 3 dimensions but \"image\" is [N,3,16,16] in the "
      "model file");
  // A symbolic dimension may be fixed by the config.
  EXPECT_TRUE(Validate("input { name: \"image\" data_type: TYPE_FP32 dims: [2, 3, 16, 16] }").ok());
  std::vector<ModelTensor> two = Inputs();
  two.push_back(Tensor("mask", inference::TYPE_BOOL, "bool", {Fixed(1)}));
  EXPECT_EQ(
      ValidateError("input { name: \"image\" data_type: TYPE_FP32 dims: [-1, 3, 16, 16] }", two),
      "config.pbtxt:1:1: input: model input \"mask\" is not listed; list every input or none");
}

// model_warmup (Triton's): samples become WarmupSamples with full shapes;
// sizes, data choices, file names and the inputs themselves are checked.
TEST(ModelConfigTest, WarmupSamples) {
  // A model with a symbolic sequence length: tokens int64[N,S] -> logits.
  const std::vector<ModelTensor> tokens = {
      Tensor("tokens", inference::TYPE_INT64, "int64", {Symbol("N"), Symbol("S")})};
  const std::string text =
      "max_batch_size: 8\n"
      "model_warmup { name: \"s16\" batch_size: 4 count: 2\n"
      "  inputs { key: \"tokens\" value { data_type: TYPE_INT64 dims: [16] random_data: true } } "
      "}\n"
      "model_warmup { batch_size: 1\n"
      "  inputs { key: \"tokens\" value { data_type: TYPE_INT64 dims: [7] input_data_file: "
      "\"t7.bin\" } } }";
  absl::StatusOr<ModelSettings> s = Validate(text, tokens);
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->warmup.size(), 2u);
  EXPECT_EQ(s->warmup[0].name, "s16");
  EXPECT_EQ(s->warmup[0].batch_size, 4);
  EXPECT_EQ(s->warmup[0].count, 2);
  const WarmupSample::Input& random = s->warmup[0].inputs.at("tokens");
  EXPECT_THAT(random.shape, ElementsAre(4, 16));
  EXPECT_EQ(random.fill, WarmupSample::Fill::kRandom);
  EXPECT_EQ(random.element_bytes, 16u * 8);
  EXPECT_EQ(s->warmup[1].name, "model_warmup[1]");
  EXPECT_EQ(s->warmup[1].count, 1);  // count 0: once
  EXPECT_EQ(s->warmup[1].inputs.at("tokens").fill, WarmupSample::Fill::kFile);
  EXPECT_EQ(s->warmup[1].inputs.at("tokens").file, "t7.bin");
  // The ModelConfig RPC reports the samples as written.
  EXPECT_EQ(s->config.model_warmup_size(), 2);

  // Without a batch dimension the dims are the full shape.
  const std::string image =
      "model_warmup { batch_size: 1 inputs { key: \"image\" value { data_type: TYPE_FP32 "
      "dims: [1, 3, 16, 16] zero_data: true } } }";
  absl::StatusOr<ModelSettings> unbatched = Validate(image);
  ASSERT_TRUE(unbatched.ok()) << unbatched.status();
  EXPECT_THAT(unbatched->warmup[0].inputs.at("image").shape, ElementsAre(1, 3, 16, 16));
}

TEST(ModelConfigTest, WarmupErrorsNameTheSampleAndInput) {
  const auto sample = [](const std::string& head, const std::string& value) {
    return "max_batch_size: 8\nmodel_warmup {" + head + " inputs { key: \"image\" value { " +
           value + " } } }";
  };
  const std::string good = "data_type: TYPE_FP32 dims: [3, 16, 16] zero_data: true";
  EXPECT_EQ(ParseError(sample(" batch_size: 0", good)),
            "config.pbtxt:2:16: model_warmup[0].batch_size: must be at least 1");
  EXPECT_EQ(ParseError(sample(" batch_size: 9", good)),
            "config.pbtxt:2:16: model_warmup[0].batch_size: is 9, above max_batch_size 8");
  EXPECT_THAT(ParseError("model_warmup { batch_size: 2 inputs { key: \"image\" value { data_type: "
                         "TYPE_FP32 dims: [1, 3, 16, 16] zero_data: true } } }"),
              HasSubstr("model_warmup[0].batch_size: is 2 but the model has no batch dimension"));
  EXPECT_THAT(ParseError(sample(" batch_size: 1 count: 5000", good)),
              HasSubstr("model_warmup[0].count: is 5000; at most 1000"));
  EXPECT_THAT(
      ParseError(
          "max_batch_size: 8\nmodel_warmup { batch_size: 1 inputs { key: \"image\" value { " +
          good + " } } inputs { key: \"image\" value { " + good + " } } }"),
      HasSubstr("model_warmup[0].inputs: input \"image\" is listed twice"));
  EXPECT_THAT(ParseError("max_batch_size: 8\nmodel_warmup { batch_size: 1 }"),
              HasSubstr("model_warmup[0].inputs: lists no inputs"));
  EXPECT_THAT(ParseError(sample(" batch_size: 1", "dims: [3, 16, 16] zero_data: true")),
              HasSubstr("input \"image\": data_type must be set"));
  EXPECT_THAT(
      ParseError(sample(" batch_size: 1", "data_type: TYPE_STRING dims: [3] zero_data: true")),
      HasSubstr("TYPE_STRING cannot be warmed up"));
  EXPECT_THAT(ParseError(sample(" batch_size: 1",
                                "data_type: TYPE_FP32 dims: [3, -1, 16] zero_data: true")),
              HasSubstr("input \"image\": dims[1] is -1; a warm-up request needs concrete sizes"));
  EXPECT_THAT(ParseError(sample(" batch_size: 1", "data_type: TYPE_FP32 dims: [3, 16, 16]")),
              HasSubstr("needs zero_data, random_data or input_data_file"));
  for (const char* file : {"../../etc/passwd", "/etc/passwd", "a/../../b", ""}) {
    EXPECT_THAT(
        ParseError(sample(" batch_size: 1", std::string("data_type: TYPE_FP32 dims: [3, 16, 16] "
                                                        "input_data_file: \"") +
                                                file + "\"")),
        HasSubstr("must be a relative path inside the model's warmup directory"))
        << file;
  }
  EXPECT_THAT(ParseError(sample(" batch_size: 8",
                                "data_type: TYPE_FP32 dims: [100000, 100000] "
                                "zero_data: true")),
              HasSubstr("model_warmup[0]: its inputs take more than 1024 MiB"));

  // Against the model's inputs.
  EXPECT_THAT(ValidateError("max_batch_size: 8\nmodel_warmup { batch_size: 1 inputs { key: \"img\" "
                            "value { data_type: TYPE_FP32 dims: [3, 16, 16] zero_data: true } } }"),
              HasSubstr("model_warmup[0].inputs: the model has no input \"img\" (inputs: image)"));
  EXPECT_THAT(ValidateError(sample(" batch_size: 1",
                                   "data_type: TYPE_FP16 dims: [3, 16, 16] zero_data: true")),
              HasSubstr("input \"image\": data_type is TYPE_FP16 but the input is TYPE_FP32"));
  EXPECT_THAT(
      ValidateError(sample(" batch_size: 1", "data_type: TYPE_FP32 dims: [3, 16] zero_data: true")),
      HasSubstr("input \"image\": has 2 dimensions but the model declares [N,3,16,16] (dims leave "
                "out the batch dimension)"));
  EXPECT_THAT(ValidateError(sample(" batch_size: 1",
                                   "data_type: TYPE_FP32 dims: [3, 16, 8] zero_data: true")),
              HasSubstr("input \"image\": dims[2] is 8 but the model file fixes it at 16"));
  std::vector<ModelTensor> two = Inputs();
  two.push_back(Tensor("mask", inference::TYPE_BOOL, "bool", {Symbol("N"), Fixed(1)}));
  EXPECT_THAT(ValidateError(sample(" batch_size: 1", good), two),
              HasSubstr("model input \"mask\" is not listed; a warm-up sample lists every input"));
}

TEST(ModelConfigTest, OutputsMustMatchTheModel) {
  EXPECT_EQ(
      ValidateError(
          "output {\n  name: \"probabilities\"\n  data_type: TYPE_FP32\n  dims: [-1, 1000]\n}"),
      "config.pbtxt:4:3: output[0].dims[1]: is 1000 but the model file fixes it at 10");
  EXPECT_EQ(
      ValidateError("vkserve {\n  output { name: \"logits\" location: GPU }\n}"),
      "config.pbtxt:2:12: vkserve.output[0].name: \"logits\" is not an output of the model file "
      "(outputs: probabilities)");
}

TEST(ModelConfigTest, BatchDimensionMustBeSymbolic) {
  std::vector<ModelTensor> fixed = {
      Tensor("image", inference::TYPE_FP32, "float", {Fixed(1), Fixed(3)})};
  EXPECT_EQ(ValidateError("max_batch_size: 8", fixed),
            "config.pbtxt:1:1: max_batch_size: is 8 but model input \"image\" [1,3] has no batch "
            "dimension (its first dimension must be symbolic); set max_batch_size: 0 and give full "
            "shapes");
}

TEST(ModelConfigTest, OverridesMustNameAnInputDimension) {
  EXPECT_EQ(
      ValidateError("vkserve {\n  free_dimension_override { name: \"batch\" value: 2 }\n}"),
      "config.pbtxt:2:29: vkserve.free_dimension_override[0].name: \"batch\" is not a symbolic "
      "dimension of any input (symbols: N)");
  EXPECT_EQ(
      ValidateError(
          "vkserve { free_dimension_override { denotation: \"DATA_CHANNEL\" value: 2 } }"),
      "config.pbtxt:1:37: vkserve.free_dimension_override[0].denotation: \"DATA_CHANNEL\" is not "
      "the denotation of any input dimension");
}

TEST(ModelConfigTest, DerivedConfigErrorsNameTheModel) {
  ParsedModelConfig empty = EmptyModelConfig("m", "/repo/m (no config.pbtxt)");
  // The protocol has no complex type: TYPE_INVALID, named as the file names it.
  std::vector<ModelTensor> inputs = {Tensor("z", inference::TYPE_INVALID, "complex64", {Fixed(2)})};
  absl::StatusOr<ModelSettings> s = ValidateModelConfig(empty, inputs, Outputs());
  EXPECT_EQ(s.status().message(),
            "/repo/m (no config.pbtxt): input: model input \"z\" has type complex64, which vkserve "
            "cannot serve");
  // Strings have a protocol type, but vkserve refuses them too.
  inputs = {Tensor("s", inference::TYPE_STRING, "string", {Fixed(2)})};
  s = ValidateModelConfig(empty, inputs, Outputs());
  EXPECT_EQ(s.status().message(),
            "/repo/m (no config.pbtxt): input: model input \"s\" has type string, which vkserve "
            "cannot serve");
  // Without the file's name for the type, the protocol's.
  inputs = {Tensor("u", inference::TYPE_INVALID, "", {Fixed(2)})};
  s = ValidateModelConfig(empty, inputs, Outputs());
  EXPECT_EQ(
      s.status().message(),
      "/repo/m (no config.pbtxt): input: model input \"u\" has type TYPE_INVALID, which vkserve "
      "cannot serve");
}

TEST(ModelConfigTest, ShapeStrings) {
  EXPECT_EQ(ShapeString(Inputs()[0]), "[N,3,16,16]");
  EXPECT_EQ(ShapeString(Tensor("t", inference::TYPE_FP32, "float", {Symbol(""), Fixed(0)})),
            "[?,0]");
  EXPECT_EQ(ShapeString(ModelTensor{"t", inference::TYPE_FP32, "float", false, {}}),
            "[unknown rank]");
}

// The runtime <-> config conversions are tested with them, in
// tests/server/model_tensors_test.cc.
TEST(ModelConfigTest, KServeDataTypes) {
  for (int i = 1; i <= 14; ++i) {
    EXPECT_NE(KServeDataType(static_cast<inference::DataType>(i)), "") << i;
  }
  EXPECT_EQ(KServeDataType(inference::TYPE_FP32), "FP32");
  EXPECT_EQ(KServeDataType(inference::TYPE_STRING), "BYTES");
  EXPECT_EQ(KServeDataType(inference::TYPE_BF16), "BF16");
  EXPECT_EQ(KServeDataType(inference::TYPE_INVALID), "");
  EXPECT_EQ(inference::TYPE_FP32, 11);  // Triton's numbering, not ONNX's
}

}  // namespace
}  // namespace vkserve
