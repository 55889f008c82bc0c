// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// A model's configuration: Triton's ModelConfig (proto/model_config.proto)
// read from `<repository>/<model>/config.pbtxt`, or derived from the model
// file when there is none, checked in two phases:
//
//   1. ParseModelConfig / LoadModelConfig: the text alone — syntax, unknown
//      fields, value ranges, cross-field rules. Enough to refuse a broken
//      repository before touching the GPU, and it yields what loading needs
//      (device, free dimension overrides).
//   2. ValidateModelConfig: against the model's declared inputs and outputs
//      (names, data types, dims, batch dimension, override names), filling
//      in what the config leaves out. Its result, ModelSettings, is what the
//      server runs the model with; ModelSettings::config is what the
//      ModelConfig RPC returns.
//
// Every error names the field (and the line, for a file):
//   .../config.pbtxt:7:5: input[0].dims[1]: is 4 but the model file fixes it at 3
//
// Stateless functions over plain data; thread-safe.
#ifndef VKSERVE_CONFIG_MODEL_CONFIG_H_
#define VKSERVE_CONFIG_MODEL_CONFIG_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "config/config_source.h"
#include "config/model_tensor.h"
#include "config/model_warmup.h"
#include "proto/model_config.pb.h"

namespace vkserve {

// Where an output's result goes by default.
enum class PreferredLocation {
  kCpu,  // copied back into the response
  kGpu,  // left in its Vulkan buffer (a GPU-resident output)
};

// The settings a model is served with: the config with defaults applied.
struct ModelSettings {
  std::string name;
  // The complete Triton config (inputs, outputs, instance_group, platform
  // and backend filled in): what the ModelConfig RPC returns.
  inference::ModelConfig config;

  // 0: no batch dimension. > 0: inputs and outputs carry a leading batch
  // dimension of 1..max_batch_size that config.input/output dims leave out.
  int max_batch_size = 0;
  // Sessions (Triton instances) on all devices together; default 1.
  int sessions = 1;
  // vkserve.device: the Vulkan device selector (index, name or UUID) of the
  // instance groups that list no gpus; "" means the server's device.
  std::string device;
  // Where the sessions run, as Triton's instance_group places them: `count`
  // sessions on EACH device a group's gpus list (indices, as `vkserve
  // devices` lists them), a group without gpus on `device`. One entry per
  // distinct selector, in the order first listed; groups naming the same
  // selector add up. Selectors are checked against real devices at load
  // time, where two selectors of one device are merged too.
  struct DeviceSessions {
    std::string device;
    int sessions = 1;
  };
  std::vector<DeviceSessions> placements = {{"", 1}};
  // vkserve.precision: FP16 GEMM arithmetic (ModelOptions::precision).
  bool fp16 = false;
  // vkserve.accumulation: FP16 sums in FP16 precision's GEMMs
  // (ModelOptions::accumulation); only with fp16.
  bool fp16_accumulation = false;
  // vkserve.conv_layout: the layout of Conv activations between Convs
  // (ModelOptions::conv_layout).
  config::ModelExtension::ConvLayout::Type conv_layout = config::ModelExtension::ConvLayout::AUTO;
  // Free dimension overrides, as ModelOptions takes them.
  std::map<std::string, int64_t> dim_overrides_by_name;
  std::map<std::string, int64_t> dim_overrides_by_denotation;
  // Preferred location of every output (after ValidateModelConfig; before
  // it, only the listed ones).
  std::map<std::string, PreferredLocation> output_locations;
  PreferredLocation default_output_location = PreferredLocation::kCpu;

  // Queue policy (dynamic_batching.default_queue_policy).
  int64_t max_queue_size = 64;                            // waiting requests; 0 = unbounded
  absl::Duration default_timeout = absl::ZeroDuration();  // zero: no timeout
  bool allow_timeout_override = false;
  // Priority levels (dynamic_batching.priority_levels): 0 = none, else
  // levels 1..priority_levels, 1 served first; default_priority_level is
  // then in 1..priority_levels.
  int priority_levels = 0;
  int default_priority_level = 0;
  // Levels with their own policy (priority_queue_policy); the others use
  // the fields above.
  struct QueuePolicy {
    int64_t max_queue_size = 64;
    absl::Duration default_timeout = absl::ZeroDuration();
    bool allow_timeout_override = false;
  };
  std::map<int, QueuePolicy> priority_queue_policies;
  // Batching hints (dynamic_batching); `dynamic_batching` is true when the
  // config has that block.
  bool dynamic_batching = false;
  std::vector<int> preferred_batch_sizes;
  absl::Duration max_queue_delay = absl::ZeroDuration();

  // default_model_filename; "" = model.onnx or model.ort.
  std::string model_filename;

  // model_warmup, in order (after ValidateModelConfig; empty before it).
  std::vector<WarmupSample> warmup;
};

// A config after phase 1.
struct ParsedModelConfig {
  inference::ModelConfig config;
  // For error messages: the file and where each field was written.
  std::shared_ptr<const ConfigSource> source;
  bool from_file = false;  // false: no config.pbtxt, derive from the model
  // Phase-1 settings: everything but what needs the model file.
  ModelSettings settings;
};

// Phase 1 on text. `source_name` prefixes errors; `model_name` is the
// model's directory name, which a non-empty `name` field must equal.
absl::StatusOr<ParsedModelConfig> ParseModelConfig(std::string_view text,
                                                   const std::string& source_name,
                                                   const std::string& model_name);

// Phase 1 on a config.pbtxt file. NOT_FOUND when it does not exist.
absl::StatusOr<ParsedModelConfig> LoadModelConfig(const std::string& path,
                                                  const std::string& model_name);

// The phase-1 result for a model without config.pbtxt: every setting at its
// default, inputs and outputs to be derived. `source_name` names the model
// (directory or file) in later errors.
ParsedModelConfig EmptyModelConfig(const std::string& model_name, const std::string& source_name);

// Phase 2: checks `parsed` against the model's declared inputs and outputs
// (server/ translates the loaded model's into ModelTensors) and completes
// it. A tensor whose data_type is TYPE_INVALID or TYPE_STRING is an error.
absl::StatusOr<ModelSettings> ValidateModelConfig(const ParsedModelConfig& parsed,
                                                  const std::vector<ModelTensor>& inputs,
                                                  const std::vector<ModelTensor>& outputs);

// The config of a model without config.pbtxt: name, platform, backend,
// max_batch_size 0, one input/output entry per model tensor (symbolic
// dimensions as -1; an output of unknown rank as [-1]) and one session.
// INVALID_ARGUMENT for a tensor type the protocol cannot carry.
absl::StatusOr<inference::ModelConfig> DeriveModelConfig(const std::string& model_name,
                                                         const std::vector<ModelTensor>& inputs,
                                                         const std::vector<ModelTensor>& outputs);

// KServe v2 datatype string ("FP32", "INT64", "BOOL", "BYTES"...); "" for
// TYPE_INVALID.
std::string_view KServeDataType(inference::DataType type);

// The shape ModelMetadata reports for a config tensor's dims: [-1] + dims
// when max_batch_size > 0, else dims.
std::vector<int64_t> MetadataShape(const ModelSettings& settings,
                                   const google::protobuf::RepeatedField<int64_t>& dims);

// What ModelConfig.platform / backend are reported as. ModelMetadata reports
// the platform of the file actually loaded: kReportedPlatform for ONNX
// files, kReportedOrtPlatform for ONNX Runtime's ORT format.
inline constexpr std::string_view kReportedPlatform = "onnxruntime_onnx";
inline constexpr std::string_view kReportedOrtPlatform = "onnxruntime_ort";
inline constexpr std::string_view kReportedBackend = "vkserve";

}  // namespace vkserve

#endif  // VKSERVE_CONFIG_MODEL_CONFIG_H_
