// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Loading `.onnx` files (Debian's libonnx protobuf classes) into vkserve's
// format-independent Graph. Models are untrusted bytes: every size, index and
// reference is checked, and a malformed model is an INVALID_ARGUMENT Status
// naming the file and the item (node, tensor, attribute), never a crash.
// Supports external data files next to the model. Stateless; thread-safe.
#ifndef VKSERVE_RUNTIME_ONNX_LOADER_H_
#define VKSERVE_RUNTIME_ONNX_LOADER_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "runtime/graph.h"

namespace vkserve {

// Loads a model file. External tensor data is read relative to the model's
// directory; absolute paths and paths leaving that directory are refused.
absl::StatusOr<Graph> LoadOnnxModel(const std::string& path);

// Loads a serialized ModelProto. `base_dir` resolves external data (empty:
// external data is refused). `name` is used in error messages.
absl::StatusOr<Graph> LoadOnnxModelFromBytes(std::string_view bytes, const std::string& base_dir,
                                             const std::string& name = "model");

// Reads a file holding one serialized TensorProto (as in the ONNX conformance
// data: test_data_set_0/input_0.pb).
absl::StatusOr<HostTensor> ReadTensorProtoFile(const std::string& path);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_ONNX_LOADER_H_
