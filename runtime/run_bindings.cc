// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/run_bindings.h"

#include <algorithm>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "runtime/op/op_util.h"

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
  for (const auto& reader_entry : request.host_input_readers) {
    const std::string& name = reader_entry.first;
    if (std::none_of(request.inputs.begin(), request.inputs.end(), [&](const InputBinding& b) {
          return b.name == name && b.device == nullptr;
        })) {
      return absl::InvalidArgumentError(
          absl::StrCat("a reader for '", name, "', not a host input"));
    }
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (bound[i] == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("input '", inputs[i].name, "' is missing"));
    }
  }
  return bound;
}

// The element count of `shape`, checked: a hostile shape must not overflow.
absl::StatusOr<uint64_t> CheckedElements(const std::string& input,
                                         const std::vector<int64_t>& shape) {
  uint64_t elements = 1;
  for (int64_t d : shape) {
    if (d < 0 || (d > 0 && elements > std::numeric_limits<uint64_t>::max() / 16 / uint64_t(d))) {
      return absl::InvalidArgumentError(
          absl::StrCat("input '", input, "' has an invalid shape ", ShapeString(shape)));
    }
    elements *= static_cast<uint64_t>(d);
  }
  return elements;
}

}  // namespace

uint64_t HostViewBytes(const HostTensorView& view) {
  if (view.parts.empty()) return view.data.size();
  uint64_t total = 0;
  for (std::span<const uint8_t> part : view.parts) total += part.size();
  return total;
}

absl::StatusOr<RunBindings> RunBindings::Bind(const Model& model, const RunRequest& request) {
  RunBindings r;
  ASSIGN_OR_RETURN(r.bound, MatchInputs(model, request));
  const auto& inputs = model.inputs();
  r.shapes.resize(inputs.size());
  r.host_bytes.assign(inputs.size(), 0);
  r.readers.assign(inputs.size(), nullptr);
  r.device_inputs.resize(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const InputBinding* b = r.bound[i];
    DataType dtype;
    if (b->device != nullptr) {
      ASSIGN_OR_RETURN(r.device_inputs[i], b->device->buffer());
      dtype = b->device->dtype();
      r.shapes[i] = b->device->shape();
    } else {
      dtype = b->host.dtype;
      r.shapes[i] = b->host.shape;
    }
    if (dtype != inputs[i].type.dtype) {
      return absl::InvalidArgumentError(
          absl::StrCat("input '", inputs[i].name, "' has type ", std::string(DataTypeName(dtype)),
                       ", model expects ", std::string(DataTypeName(inputs[i].type.dtype))));
    }
    if (r.shapes[i].size() != inputs[i].type.shape.size()) {
      return absl::InvalidArgumentError(absl::StrCat("input '", inputs[i].name, "' has rank ",
                                                     r.shapes[i].size(), ", model expects ",
                                                     inputs[i].type.shape.size()));
    }
    ASSIGN_OR_RETURN(const uint64_t elements, CheckedElements(inputs[i].name, r.shapes[i]));
    if (b->device != nullptr) continue;
    r.host_bytes[i] = elements * DataTypeSize(dtype);
    if (auto it = request.host_input_readers.find(b->name);
        it != request.host_input_readers.end()) {
      r.readers[i] = &it->second;
    } else if (uint64_t given = HostViewBytes(b->host); given != r.host_bytes[i]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input '", inputs[i].name, "' has ", given, " bytes; shape ", ShapeString(r.shapes[i]),
          " of ", std::string(DataTypeName(dtype)), " needs ", r.host_bytes[i]));
    }
  }
  r.host_outputs.assign(model.outputs().size(), true);
  for (const auto& [name, location] : request.output_locations) {
    size_t o = 0;
    while (o < model.outputs().size() && model.outputs()[o].name != name) ++o;
    if (o == model.outputs().size()) {
      return absl::InvalidArgumentError(absl::StrCat("unknown output '", name, "'"));
    }
    r.host_outputs[o] = location == OutputLocation::kHost;
  }
  return r;
}

absl::StatusOr<InputValues> RunBindings::ReadValueInputs(const Model& model) const {
  InputValues values;
  if (!model.has_value_inputs()) return values;
  const auto& inputs = model.inputs();
  values.resize(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!model.is_value_input(i)) continue;
    const InputBinding* b = bound[i];
    if (b->device != nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("input '", inputs[i].name,
                       "' sets shapes or bounds of the model; send it in host memory"));
    }
    HostTensor t;
    t.dtype = b->host.dtype;
    t.shape = shapes[i];
    if (readers[i] != nullptr) {  // e.g. shared memory: read once here for planning
      std::vector<uint8_t> bytes(host_bytes[i]);
      RETURN_IF_ERROR((*readers[i])(bytes));
      t.data = TensorBytes(std::move(bytes));
    } else {
      t.data = TensorBytes(std::vector<uint8_t>(b->host.data.begin(), b->host.data.end()));
    }
    values[i] = std::make_shared<const HostTensor>(std::move(t));
  }
  return values;
}

}  // namespace vkserve
