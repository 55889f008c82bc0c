// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Model files: which format a file holds, read from its bytes (never its
// name), and loading it with the matching loader into a Graph. An ONNX
// Runtime `.ort` file carries the flatbuffers identifier "ORTM" at bytes
// 4-7; anything else is tried as an ONNX protobuf. So a repository's
// `model.onnx` that is really an `.ort` file, or a `default_model_filename`
// with any extension, loads by what it contains.
//
// Stateless; thread-safe.
#ifndef VKSERVE_RUNTIME_LOADERS_MODEL_FILE_H_
#define VKSERVE_RUNTIME_LOADERS_MODEL_FILE_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/ir/graph.h"

namespace vkserve {

enum class ModelFormat { kOnnx, kOrt };

// "onnx" / "ort".
const char* ModelFormatName(ModelFormat format);

// The format of a file starting with `bytes` (at least its first 8 bytes).
ModelFormat DetectModelFormat(absl::string_view bytes);

// Reads a whole regular file. NOT_FOUND when it does not exist.
absl::StatusOr<std::string> ReadModelFileBytes(const std::string& path);

// Loads `path` with the loader its content calls for. Graph::format says
// which one ran.
absl::StatusOr<Graph> LoadModelFile(const std::string& path);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_LOADERS_MODEL_FILE_H_
