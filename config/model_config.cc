// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "config/model_config.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/quote.h"
#include "base/status_macros.h"

namespace vkserve {
namespace {

using inference::ModelConfig;
using inference::ModelDynamicBatching;
using inference::ModelInstanceGroup;
using inference::ModelQueuePolicy;
using Extension = config::ModelExtension;

constexpr int kMaxSessions = 256;
constexpr int kMaxBatchSize = 1 << 16;
constexpr uint64_t kMaxMicroseconds = uint64_t{24} * 3600 * 1000 * 1000;  // one day

FieldPath Append(FieldPath path, FieldStep step) {
  path.push_back(std::move(step));
  return path;
}

std::string Names(const std::vector<ModelTensor>& tensors) {
  std::vector<std::string> names;
  for (const ModelTensor& t : tensors) names.push_back(t.name);
  return absl::StrJoin(names, ", ");
}

std::string TypeName(inference::DataType type) { return inference::DataType_Name(type); }

// ---- Phase 1: the text alone ----------------------------------------------

// name, data_type and dims of one config.input / config.output entry.
template <typename Tensor>
absl::Status CheckTensorEntry(const ConfigSource& src, const char* field, int index,
                              const Tensor& tensor, std::set<std::string>* seen) {
  FieldPath at = {{field, index}};
  if (tensor.name().empty()) return src.Error(Append(at, {"name"}), "must not be empty");
  if (!seen->insert(tensor.name()).second) {
    return src.Error(Append(at, {"name"}),
                     absl::StrCat(Quoted(tensor.name(), '"'), " is listed twice"));
  }
  if (tensor.data_type() == inference::TYPE_INVALID) {
    return src.Error(Append(at, {"data_type"}), "must be set (e.g. TYPE_FP32)");
  }
  if (tensor.data_type() == inference::TYPE_STRING) {
    return src.Error(Append(at, {"data_type"}), "TYPE_STRING tensors are not supported by vkserve");
  }
  for (int j = 0; j < tensor.dims_size(); ++j) {
    if (tensor.dims(j) < -1) {
      return src.Error(Append(at, {"dims", j}),
                       absl::StrCat("must be -1 (any size) or >= 0, got ", tensor.dims(j)));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckVersionPolicy(const ConfigSource& src, const ModelConfig& c) {
  if (!c.has_version_policy()) return absl::OkStatus();
  const auto& policy = c.version_policy();
  if (policy.has_latest() && policy.latest().num_versions() == 0) {
    return src.Error({{"version_policy"}, {"latest"}, {"num_versions"}}, "must be >= 1");
  }
  if (policy.has_specific()) {
    if (policy.specific().versions_size() == 0) {
      return src.Error({{"version_policy"}, {"specific"}}, "lists no versions");
    }
    std::set<int64_t> seen;
    for (int i = 0; i < policy.specific().versions_size(); ++i) {
      int64_t v = policy.specific().versions(i);
      FieldPath at = {{"version_policy"}, {"specific"}, {"versions", i}};
      if (v < 1) return src.Error(at, absl::StrCat("versions are >= 1, got ", v));
      if (!seen.insert(v).second)
        return src.Error(at, absl::StrCat("version ", v, " is listed twice"));
    }
  }
  return absl::OkStatus();
}

// Adds `sessions` on `device` to the placements (one entry per selector).
void Place(const std::string& device, int sessions, ModelSettings* s) {
  for (ModelSettings::DeviceSessions& p : s->placements) {
    if (p.device == device) {
      p.sessions += sessions;
      return;
    }
  }
  s->placements.push_back({device, sessions});
}

absl::Status CheckInstanceGroups(const ConfigSource& src, const ModelConfig& c, ModelSettings* s) {
  int total = 0;
  s->placements.clear();
  for (int i = 0; i < c.instance_group_size(); ++i) {
    const ModelInstanceGroup& g = c.instance_group(i);
    FieldPath at = {{"instance_group", i}};
    if (g.count() < 0) {
      return src.Error(Append(at, {"count"}),
                       absl::StrCat("must be >= 0 (0 means 1), got ", g.count()));
    }
    if (g.kind() != ModelInstanceGroup::KIND_AUTO && g.kind() != ModelInstanceGroup::KIND_GPU) {
      return src.Error(Append(at, {"kind"}),
                       absl::StrCat(ModelInstanceGroup::Kind_Name(g.kind()),
                                    " is not supported: vkserve runs every node on the GPU "
                                    "(use KIND_GPU or KIND_AUTO)"));
    }
    const int count = std::max(1, g.count());
    std::set<int> listed;
    for (int j = 0; j < g.gpus_size(); ++j) {
      if (g.gpus(j) < 0) {
        return src.Error(Append(at, {"gpus", j}),
                         absl::StrCat("device indices are >= 0, got ", g.gpus(j)));
      }
      if (!listed.insert(g.gpus(j)).second) {
        return src.Error(Append(at, {"gpus", j}),
                         absl::StrCat("device ", g.gpus(j), " is listed twice in this group"));
      }
    }
    // Triton: `count` sessions on each listed GPU.
    total += count * std::max(1, g.gpus_size());
    if (total > kMaxSessions) {
      return src.Error(Append(at, {"count"}),
                       absl::StrCat("the groups add up to more than ", kMaxSessions, " sessions"));
    }
    if (g.gpus_size() == 0) Place("", count, s);
    for (int gpu : g.gpus()) Place(absl::StrCat(gpu), count, s);
  }
  if (s->placements.empty()) s->placements.push_back({"", 1});
  s->sessions = c.instance_group_size() == 0 ? 1 : total;
  return absl::OkStatus();
}

absl::Status CheckQueuePolicy(const ConfigSource& src, const ModelQueuePolicy& q,
                              const FieldPath& at, ModelSettings::QueuePolicy* policy) {
  if (q.timeout_action() != ModelQueuePolicy::REJECT) {
    return src.Error(Append(at, {"timeout_action"}),
                     absl::StrCat(ModelQueuePolicy::TimeoutAction_Name(q.timeout_action()),
                                  " is not supported; timed-out requests are rejected (REJECT)"));
  }
  if (q.default_timeout_microseconds() > kMaxMicroseconds) {
    return src.Error(Append(at, {"default_timeout_microseconds"}),
                     absl::StrCat("must be at most ", kMaxMicroseconds, " (one day)"));
  }
  policy->default_timeout =
      absl::Microseconds(static_cast<int64_t>(q.default_timeout_microseconds()));
  policy->allow_timeout_override = q.allow_timeout_override();
  if (q.has_max_queue_size()) policy->max_queue_size = q.max_queue_size();
  return absl::OkStatus();
}

// priority_levels, default_priority_level and priority_queue_policy. As in
// Triton, a level's policy is complete in itself: its unset fields take the
// defaults, not default_queue_policy's values.
absl::Status CheckPriorities(const ConfigSource& src, const ModelDynamicBatching& b,
                             ModelSettings* s) {
  constexpr uint64_t kMaxLevels = 1000;
  if (b.priority_levels() > kMaxLevels) {
    return src.Error({{"dynamic_batching"}, {"priority_levels"}},
                     absl::StrCat("must be at most ", kMaxLevels));
  }
  s->priority_levels = static_cast<int>(b.priority_levels());
  if (s->priority_levels > 0 &&
      (b.default_priority_level() < 1 || b.default_priority_level() > b.priority_levels())) {
    return src.Error({{"dynamic_batching"}, {"default_priority_level"}},
                     absl::StrCat("must be between 1 and priority_levels (", b.priority_levels(),
                                  "), got ", b.default_priority_level()));
  }
  if (s->priority_levels == 0 && b.default_priority_level() != 0) {
    return src.Error({{"dynamic_batching"}, {"default_priority_level"}},
                     "needs priority_levels > 0");
  }
  s->default_priority_level = static_cast<int>(b.default_priority_level());
  // Map order is unspecified; sorted so that errors are reproducible.
  std::map<uint64_t, const ModelQueuePolicy*> levels;
  for (const auto& [level, policy] : b.priority_queue_policy()) levels[level] = &policy;
  for (const auto& [level, policy] : levels) {
    FieldPath at = {{"dynamic_batching"}, {"priority_queue_policy"}};
    if (level < 1 || level > b.priority_levels()) {
      return src.Error(at, absl::StrCat("level ", level, " is not between 1 and priority_levels (",
                                        b.priority_levels(), ")"));
    }
    ModelSettings::QueuePolicy parsed;
    RETURN_IF_ERROR(CheckQueuePolicy(src, *policy, at, &parsed));
    s->priority_queue_policies[static_cast<int>(level)] = parsed;
  }
  return absl::OkStatus();
}

absl::Status CheckDynamicBatching(const ConfigSource& src, const ModelConfig& c, ModelSettings* s) {
  if (!c.has_dynamic_batching()) return absl::OkStatus();
  const auto& b = c.dynamic_batching();
  s->dynamic_batching = true;
  for (int i = 0; i < b.preferred_batch_size_size(); ++i) {
    int size = b.preferred_batch_size(i);
    FieldPath at = {{"dynamic_batching"}, {"preferred_batch_size", i}};
    if (c.max_batch_size() == 0) return src.Error(at, "needs max_batch_size > 0");
    if (size < 1 || size > c.max_batch_size()) {
      return src.Error(at, absl::StrCat("must be between 1 and max_batch_size (",
                                        c.max_batch_size(), "), got ", size));
    }
    s->preferred_batch_sizes.push_back(size);
  }
  if (b.max_queue_delay_microseconds() > kMaxMicroseconds) {
    return src.Error({{"dynamic_batching"}, {"max_queue_delay_microseconds"}},
                     absl::StrCat("must be at most ", kMaxMicroseconds, " (one day)"));
  }
  s->max_queue_delay = absl::Microseconds(static_cast<int64_t>(b.max_queue_delay_microseconds()));
  RETURN_IF_ERROR(CheckPriorities(src, b, s));
  if (!b.has_default_queue_policy()) return absl::OkStatus();
  ModelSettings::QueuePolicy policy;
  RETURN_IF_ERROR(CheckQueuePolicy(src, b.default_queue_policy(),
                                   {{"dynamic_batching"}, {"default_queue_policy"}}, &policy));
  s->max_queue_size = policy.max_queue_size;
  s->default_timeout = policy.default_timeout;
  s->allow_timeout_override = policy.allow_timeout_override;
  return absl::OkStatus();
}

absl::Status CheckExtension(const ConfigSource& src, const ModelConfig& c, ModelSettings* s) {
  if (!c.has_vkserve()) return absl::OkStatus();
  const Extension& x = c.vkserve();
  if (!x.device().empty()) {
    const bool has_gpus =
        std::any_of(c.instance_group().begin(), c.instance_group().end(),
                    [](const ModelInstanceGroup& g) { return g.gpus_size() > 0; });
    if (has_gpus) {
      return src.Error({{"vkserve"}, {"device"}},
                       "set the device here or in instance_group.gpus, not both");
    }
    if (absl::StripAsciiWhitespace(x.device()) != x.device()) {
      return src.Error({{"vkserve"}, {"device"}}, "has leading or trailing spaces");
    }
    s->device = x.device();
    for (ModelSettings::DeviceSessions& p : s->placements) {
      if (p.device.empty()) p.device = x.device();
    }
  }
  auto location = [](Extension::Location l) {
    return l == Extension::GPU ? PreferredLocation::kGpu : PreferredLocation::kCpu;
  };
  s->default_output_location = location(x.default_output_location());
  std::set<std::string> config_outputs;
  for (const auto& o : c.output()) config_outputs.insert(o.name());
  for (int i = 0; i < x.output_size(); ++i) {
    const Extension::Output& o = x.output(i);
    FieldPath at = {{"vkserve"}, {"output", i}, {"name"}};
    if (o.name().empty()) return src.Error(at, "must not be empty");
    if (!config_outputs.empty() && !config_outputs.count(o.name())) {
      return src.Error(
          at, absl::StrCat(Quoted(o.name(), '"'), " is not an output of this model (outputs: ",
                           absl::StrJoin(config_outputs, ", "), ")"));
    }
    if (!s->output_locations.emplace(o.name(), location(o.location())).second) {
      return src.Error(at, absl::StrCat(Quoted(o.name(), '"'), " is listed twice"));
    }
  }
  if (x.precision() != Extension::FP32 && x.precision() != Extension::FP16) {
    return src.Error({{"vkserve"}, {"precision"}}, "must be FP32 or FP16");
  }
  s->fp16 = x.precision() == Extension::FP16;
  if (x.accumulation() != Extension::Accumulation::FP32 &&
      x.accumulation() != Extension::Accumulation::FP16) {
    return src.Error({{"vkserve"}, {"accumulation"}}, "must be FP32 or FP16");
  }
  s->fp16_accumulation = x.accumulation() == Extension::Accumulation::FP16;
  if (s->fp16_accumulation && !s->fp16) {
    return src.Error({{"vkserve"}, {"accumulation"}},
                     "FP16 needs precision: FP16 (at FP32 precision the sums are fp32)");
  }
  if (!Extension::ConvLayout::Type_IsValid(x.conv_layout())) {
    return src.Error({{"vkserve"}, {"conv_layout"}}, "must be AUTO, NCHW or NHWC");
  }
  s->conv_layout = x.conv_layout();
  for (int i = 0; i < x.free_dimension_override_size(); ++i) {
    const Extension::FreeDimensionOverride& d = x.free_dimension_override(i);
    FieldPath at = {{"vkserve"}, {"free_dimension_override", i}};
    if (d.name().empty() == d.denotation().empty()) {
      return src.Error(at, "set exactly one of name and denotation");
    }
    if (d.value() < 1) {
      return src.Error(Append(at, {"value"}), absl::StrCat("must be >= 1, got ", d.value()));
    }
    bool inserted = d.name().empty()
                        ? s->dim_overrides_by_denotation.emplace(d.denotation(), d.value()).second
                        : s->dim_overrides_by_name.emplace(d.name(), d.value()).second;
    if (!inserted) {
      return src.Error(Append(at, {d.name().empty() ? "denotation" : "name"}),
                       absl::StrCat(Quoted(d.name().empty() ? d.denotation() : d.name(), '"'),
                                    " is overridden twice"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckModelFilename(const ConfigSource& src, const std::string& name) {
  if (name.empty()) return absl::OkStatus();
  FieldPath at = {{"default_model_filename"}};
  if (name.find('/') != std::string::npos || name == "." || name == "..") {
    return src.Error(at, absl::StrCat(Quoted(name, '"'), " must be a file name, not a path"));
  }
  if (!absl::EndsWith(name, ".onnx") && !absl::EndsWith(name, ".ort")) {
    return src.Error(at, absl::StrCat(Quoted(name, '"'), " must end in .onnx or .ort"));
  }
  return absl::OkStatus();
}

absl::StatusOr<ParsedModelConfig> Phase1(ModelConfig config,
                                         std::shared_ptr<const ConfigSource> source, bool from_file,
                                         const std::string& model_name) {
  const ConfigSource& src = *source;
  const ModelConfig& c = config;
  ParsedModelConfig parsed;
  ModelSettings& s = parsed.settings;
  s.name = model_name;
  if (!c.name().empty() && c.name() != model_name) {
    return src.Error({{"name"}}, absl::StrCat(Quoted(c.name(), '"'),
                                              " does not match the model's directory name ",
                                              Quoted(model_name, '"')));
  }
  if (!c.platform().empty() && c.platform() != kReportedPlatform &&
      c.platform() != kReportedOrtPlatform) {
    return src.Error({{"platform"}},
                     absl::StrCat(Quoted(c.platform(), '"'),
                                  " is not served by vkserve; it serves ONNX and ORT-format "
                                  "models (\"onnxruntime_onnx\", \"onnxruntime_ort\" or empty)"));
  }
  if (!c.backend().empty() && c.backend() != "onnxruntime" && c.backend() != kReportedBackend) {
    return src.Error({{"backend"}}, absl::StrCat(Quoted(c.backend(), '"'),
                                                 " is not served by vkserve (use \"vkserve\", "
                                                 "\"onnxruntime\" or leave it empty)"));
  }
  if (c.max_batch_size() < 0 || c.max_batch_size() > kMaxBatchSize) {
    return src.Error({{"max_batch_size"}}, absl::StrCat("must be between 0 and ", kMaxBatchSize,
                                                        ", got ", c.max_batch_size()));
  }
  s.max_batch_size = c.max_batch_size();
  std::set<std::string> seen;
  for (int i = 0; i < c.input_size(); ++i) {
    RETURN_IF_ERROR(CheckTensorEntry(src, "input", i, c.input(i), &seen));
  }
  seen.clear();
  for (int i = 0; i < c.output_size(); ++i) {
    RETURN_IF_ERROR(CheckTensorEntry(src, "output", i, c.output(i), &seen));
  }
  RETURN_IF_ERROR(CheckVersionPolicy(src, c));
  RETURN_IF_ERROR(CheckInstanceGroups(src, c, &s));
  RETURN_IF_ERROR(CheckDynamicBatching(src, c, &s));
  RETURN_IF_ERROR(CheckExtension(src, c, &s));
  RETURN_IF_ERROR(CheckModelFilename(src, c.default_model_filename()));
  RETURN_IF_ERROR(CheckWarmupText(src, c));
  s.model_filename = c.default_model_filename();
  parsed.config = std::move(config);
  parsed.source = std::move(source);
  parsed.from_file = from_file;
  return parsed;
}

// ---- Phase 2: against the model file ----------------------------------------

// A model tensor's type as a config data type, or an error at `at`.
absl::StatusOr<inference::DataType> ConfigTypeOf(const ConfigSource& src, const FieldPath& at,
                                                 const char* kind, const ModelTensor& tensor) {
  inference::DataType type = tensor.data_type;
  if (type == inference::TYPE_INVALID || type == inference::TYPE_STRING) {
    return src.Error(at, absl::StrCat("model ", kind, " ", Quoted(tensor.name, '"'), " has type ",
                                      tensor.type_name.empty() ? TypeName(type) : tensor.type_name,
                                      ", which vkserve cannot serve"));
  }
  return type;
}

// With max_batch_size > 0 every tensor of known rank needs a symbolic first
// dimension: the batch.
absl::Status CheckBatchDimension(const ConfigSource& src, int max_batch_size, const char* kind,
                                 const ModelTensor& tensor) {
  if (max_batch_size == 0 || !tensor.has_shape) return absl::OkStatus();
  if (tensor.dims.empty() || tensor.dims[0].is_fixed()) {
    return src.Error({{"max_batch_size"}},
                     absl::StrCat("is ", max_batch_size, " but model ", kind, " ",
                                  Quoted(tensor.name, '"'), " ", ShapeString(tensor),
                                  " has no batch dimension (its first dimension must be symbolic); "
                                  "set max_batch_size: 0 and give full shapes"));
  }
  return absl::OkStatus();
}

// dims of config.<field>[index] against the model tensor's declared shape.
absl::Status CheckDims(const ConfigSource& src, const FieldPath& at,
                       const google::protobuf::RepeatedField<int64_t>& dims,
                       const ModelTensor& tensor, int max_batch_size) {
  if (!tensor.has_shape) return absl::OkStatus();
  size_t skip = max_batch_size > 0 ? 1 : 0;
  size_t rank = tensor.dims.size() - skip;
  if (static_cast<size_t>(dims.size()) != rank) {
    return src.Error(Append(at, {"dims"}),
                     absl::StrCat("has ", dims.size(), " dimensions but ", Quoted(tensor.name, '"'),
                                  " is ", ShapeString(tensor), " in the model file",
                                  skip ? " (dims leave out the batch dimension)" : ""));
  }
  for (size_t j = 0; j < rank; ++j) {
    const ModelDim& d = tensor.dims[j + skip];
    if (d.is_fixed() && dims[j] != d.size) {
      return src.Error(Append(at, {"dims", static_cast<int>(j)}),
                       absl::StrCat("is ", dims[j] == -1 ? "-1 (any size)" : absl::StrCat(dims[j]),
                                    " but the model file fixes it at ", d.size));
    }
  }
  return absl::OkStatus();
}

// Checks config.<field> against the model's tensors, or derives it when
// empty. `Tensor` is ModelInput or ModelOutput.
template <typename Tensor>
absl::Status MatchTensors(const ConfigSource& src, const char* field, const char* kind,
                          int max_batch_size, const std::vector<ModelTensor>& model,
                          google::protobuf::RepeatedPtrField<Tensor>* config) {
  if (config->empty()) {
    for (const ModelTensor& tensor : model) {
      ASSIGN_OR_RETURN(inference::DataType type, ConfigTypeOf(src, {{field}}, kind, tensor));
      Tensor* entry = config->Add();
      entry->set_name(tensor.name);
      entry->set_data_type(type);
      if (!tensor.has_shape) {
        entry->add_dims(-1);
        continue;
      }
      for (size_t j = max_batch_size > 0 ? 1 : 0; j < tensor.dims.size(); ++j) {
        const ModelDim& d = tensor.dims[j];
        entry->add_dims(d.is_fixed() ? d.size : -1);
      }
    }
    return absl::OkStatus();
  }
  std::set<std::string> listed;
  for (int i = 0; i < config->size(); ++i) {
    const Tensor& entry = (*config)[i];
    FieldPath at = {{field, i}};
    auto it = std::find_if(model.begin(), model.end(),
                           [&](const ModelTensor& t) { return t.name == entry.name(); });
    if (it == model.end()) {
      return src.Error(Append(at, {"name"}),
                       absl::StrCat("the model file has no ", kind, " ", Quoted(entry.name(), '"'),
                                    " (", kind, "s: ", Names(model), ")"));
    }
    ASSIGN_OR_RETURN(inference::DataType type,
                     ConfigTypeOf(src, Append(at, {"data_type"}), kind, *it));
    if (type != entry.data_type()) {
      return src.Error(Append(at, {"data_type"}),
                       absl::StrCat("is ", TypeName(entry.data_type()),
                                    " but the model file declares ", TypeName(type)));
    }
    RETURN_IF_ERROR(CheckDims(src, at, entry.dims(), *it, max_batch_size));
    listed.insert(entry.name());
  }
  for (const ModelTensor& tensor : model) {
    if (!listed.count(tensor.name)) {
      return src.Error({{field}}, absl::StrCat("model ", kind, " ", Quoted(tensor.name, '"'),
                                               " is not listed; list every ", kind, " or none"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckOverrideNames(const ConfigSource& src, const ModelConfig& c,
                                const std::vector<ModelTensor>& inputs) {
  std::set<std::string> params, denotations;
  for (const ModelTensor& in : inputs) {
    for (const ModelDim& d : in.dims) {
      if (!d.symbol.empty()) params.insert(d.symbol);
      if (!d.denotation.empty()) denotations.insert(absl::AsciiStrToUpper(d.denotation));
    }
  }
  const auto& overrides = c.vkserve().free_dimension_override();
  for (int i = 0; i < overrides.size(); ++i) {
    const auto& d = overrides[i];
    FieldPath at = {{"vkserve"}, {"free_dimension_override", i}};
    if (!d.name().empty() && !params.count(d.name())) {
      return src.Error(
          Append(at, {"name"}),
          absl::StrCat(Quoted(d.name(), '"'), " is not a symbolic dimension of any input (",
                       params.empty() ? "there are none"
                                      : absl::StrCat("symbols: ", absl::StrJoin(params, ", ")),
                       ")"));
    }
    if (!d.denotation().empty() && !denotations.count(absl::AsciiStrToUpper(d.denotation()))) {
      return src.Error(Append(at, {"denotation"}),
                       absl::StrCat(Quoted(d.denotation(), '"'),
                                    " is not the denotation of any input dimension"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ParsedModelConfig> ParseModelConfig(std::string_view text,
                                                   const std::string& source_name,
                                                   const std::string& model_name) {
  ModelConfig config;
  ASSIGN_OR_RETURN(std::shared_ptr<const ConfigSource> source,
                   ParseTextProto(text, source_name, &config));
  return Phase1(std::move(config), std::move(source), /*from_file=*/true, model_name);
}

absl::StatusOr<ParsedModelConfig> LoadModelConfig(const std::string& path,
                                                  const std::string& model_name) {
  ASSIGN_OR_RETURN(std::string text, ReadConfigFile(path));
  return ParseModelConfig(text, path, model_name);
}

ParsedModelConfig EmptyModelConfig(const std::string& model_name, const std::string& source_name) {
  ParsedModelConfig parsed;
  parsed.source = std::make_shared<const ConfigSource>(source_name);
  parsed.settings.name = model_name;
  return parsed;
}

absl::StatusOr<ModelSettings> ValidateModelConfig(const ParsedModelConfig& parsed,
                                                  const std::vector<ModelTensor>& inputs,
                                                  const std::vector<ModelTensor>& outputs) {
  const ConfigSource& src = *parsed.source;
  ModelSettings s = parsed.settings;
  ModelConfig c = parsed.config;
  for (const ModelTensor& in : inputs) {
    RETURN_IF_ERROR(CheckBatchDimension(src, s.max_batch_size, "input", in));
  }
  for (const ModelTensor& out : outputs) {
    RETURN_IF_ERROR(CheckBatchDimension(src, s.max_batch_size, "output", out));
  }
  RETURN_IF_ERROR(MatchTensors(src, "input", "input", s.max_batch_size, inputs, c.mutable_input()));
  RETURN_IF_ERROR(
      MatchTensors(src, "output", "output", s.max_batch_size, outputs, c.mutable_output()));
  RETURN_IF_ERROR(CheckOverrideNames(src, c, inputs));
  RETURN_IF_ERROR(CheckWarmupInputs(src, c, inputs, &s.warmup));

  // Output locations: listed names must be outputs; the rest get the default.
  const auto& listed = c.vkserve().output();
  for (int i = 0; i < listed.size(); ++i) {
    if (std::none_of(outputs.begin(), outputs.end(),
                     [&](const ModelTensor& o) { return o.name == listed[i].name(); })) {
      return src.Error(
          {{"vkserve"}, {"output", i}, {"name"}},
          absl::StrCat(Quoted(listed[i].name(), '"'),
                       " is not an output of the model file (outputs: ", Names(outputs), ")"));
    }
  }
  for (const ModelTensor& out : outputs)
    s.output_locations.emplace(out.name, s.default_output_location);

  c.set_name(s.name);
  c.set_platform(std::string(kReportedPlatform));
  c.set_backend(std::string(kReportedBackend));
  if (c.instance_group_size() == 0) {
    ModelInstanceGroup* group = c.add_instance_group();
    group->set_count(s.sessions);
    group->set_kind(ModelInstanceGroup::KIND_GPU);
  }
  s.config = std::move(c);
  return s;
}

absl::StatusOr<ModelConfig> DeriveModelConfig(const std::string& model_name,
                                              const std::vector<ModelTensor>& inputs,
                                              const std::vector<ModelTensor>& outputs) {
  ParsedModelConfig empty = EmptyModelConfig(model_name, model_name);
  ASSIGN_OR_RETURN(ModelSettings settings, ValidateModelConfig(empty, inputs, outputs));
  return settings.config;
}

std::string_view KServeDataType(inference::DataType type) {
  switch (type) {
    case inference::TYPE_BOOL:
      return "BOOL";
    case inference::TYPE_UINT8:
      return "UINT8";
    case inference::TYPE_UINT16:
      return "UINT16";
    case inference::TYPE_UINT32:
      return "UINT32";
    case inference::TYPE_UINT64:
      return "UINT64";
    case inference::TYPE_INT8:
      return "INT8";
    case inference::TYPE_INT16:
      return "INT16";
    case inference::TYPE_INT32:
      return "INT32";
    case inference::TYPE_INT64:
      return "INT64";
    case inference::TYPE_FP16:
      return "FP16";
    case inference::TYPE_FP32:
      return "FP32";
    case inference::TYPE_FP64:
      return "FP64";
    case inference::TYPE_STRING:
      return "BYTES";
    case inference::TYPE_BF16:
      return "BF16";
    default:
      return "";
  }
}

std::vector<int64_t> MetadataShape(const ModelSettings& settings,
                                   const google::protobuf::RepeatedField<int64_t>& dims) {
  std::vector<int64_t> shape;
  if (settings.max_batch_size > 0) shape.push_back(-1);
  shape.insert(shape.end(), dims.begin(), dims.end());
  return shape;
}

}  // namespace vkserve
