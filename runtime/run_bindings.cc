// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/run_bindings.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace vkserve {
namespace {

// Each binding to the model input it names; every input bound exactly once.
absl::StatusOr<std::vector<const InputBinding*>> MatchInputs(const Model& model,
                                                             const RunRequest& request) {
  const auto& inputs = model.inputs();
  std::vector<const InputBinding*> bound(inputs.size(), nullptr);
  for (const InputBinding& b : request.inputs) {
    size_t i = 0;
    while (i < inputs.size() && inputs[i].name != b.name) ++i;
    if (i == inputs.size()) {
      return absl::InvalidArgumentError(absl::StrCat("unknown input '", b.name, "'"));
    }
    if (bound[i] != nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("input '", b.name, "' is bound twice"));
    }
    bound[i] = &b;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (bound[i] == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("input '", inputs[i].name, "' is missing"));
    }
  }
  return bound;
}

// Each output binding's location and sink at its model output's index.
absl::Status MatchOutputs(const Model& model, const RunRequest& request, RunBindings& r) {
  const auto& outputs = model.outputs();
  r.locations.assign(outputs.size(), OutputLocation::kHost);
  r.sinks.assign(outputs.size(), nullptr);
  std::vector<bool> seen(outputs.size(), false);
  for (const OutputBinding& b : request.outputs) {
    size_t o = 0;
    while (o < outputs.size() && outputs[o].name != b.name) ++o;
    if (o == outputs.size()) {
      return absl::InvalidArgumentError(absl::StrCat("unknown output '", b.name, "'"));
    }
    if (seen[o]) {
      return absl::InvalidArgumentError(absl::StrCat("output '", b.name, "' is bound twice"));
    }
    if (b.sink && b.location != OutputLocation::kHost) {
      return absl::InvalidArgumentError(
          absl::StrCat("output '", b.name, "' has a sink but stays on the GPU"));
    }
    seen[o] = true;
    r.locations[o] = b.location;
    if (b.sink) r.sinks[o] = &b.sink;
  }
  r.host_outputs.resize(outputs.size());
  for (size_t o = 0; o < outputs.size(); ++o)
    r.host_outputs[o] = r.locations[o] == OutputLocation::kHost;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<RunBindings> RunBindings::Bind(const Model& model, const RunRequest& request) {
  RunBindings r;
  ASSIGN_OR_RETURN(r.bound, MatchInputs(model, request));
  const auto& inputs = model.inputs();
  r.shapes.resize(inputs.size());
  r.host_bytes.assign(inputs.size(), 0);
  r.device_inputs.resize(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const InputBinding& b = *r.bound[i];
    ASSIGN_OR_RETURN(const uint64_t bytes, CheckInput(inputs[i], b));
    r.shapes[i] = b.shape;
    if (const DeviceTensor* tensor = b.device()) {
      ASSIGN_OR_RETURN(r.device_inputs[i], tensor->buffer());
    } else {
      r.host_bytes[i] = bytes;
    }
  }
  RETURN_IF_ERROR(MatchOutputs(model, request, r));
  return r;
}

absl::StatusOr<InputValues> RunBindings::ReadValueInputs(const Model& model) const {
  InputValues values;
  if (!model.has_value_inputs()) return values;
  const auto& inputs = model.inputs();
  values.resize(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!model.is_value_input(i)) continue;
    const InputBinding& b = *bound[i];
    if (!b.on_host()) {
      return absl::InvalidArgumentError(
          absl::StrCat("input '", inputs[i].name,
                       "' sets shapes or bounds of the model; send it in host memory"));
    }
    // Read once here for planning (a reader's too), then again by the upload.
    std::vector<uint8_t> bytes(host_bytes[i]);
    RETURN_IF_ERROR(CopyHostInput(b, bytes));
    HostTensor t;
    t.dtype = b.dtype;
    t.shape = shapes[i];
    t.data = TensorBytes(std::move(bytes));
    values[i] = std::make_shared<const HostTensor>(std::move(t));
  }
  return values;
}

}  // namespace vkserve
