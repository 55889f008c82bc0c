// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/loaders/model_file.h"

#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "runtime/loaders/onnx_loader.h"
#include "runtime/loaders/ort_loader.h"

namespace vkserve {

namespace fs = std::filesystem;

const char* ModelFormatName(ModelFormat format) {
  return format == ModelFormat::kOrt ? "ort" : "onnx";
}

ModelFormat DetectModelFormat(absl::string_view bytes) {
  // A flatbuffer starts with its root offset; the identifier follows. An
  // ONNX protobuf cannot be mistaken for it: its bytes 4-7 belong to the
  // first field's varint or value, never the ASCII "ORTM" after a valid
  // root offset, and the ORT loader verifies the whole buffer anyway.
  return bytes.size() >= 8 && bytes.substr(4, 4) == "ORTM" ? ModelFormat::kOrt : ModelFormat::kOnnx;
}

absl::StatusOr<std::string> ReadModelFileBytes(const std::string& path) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) return absl::NotFoundError(absl::StrCat(path, ": no such file"));
  if (!fs::is_regular_file(st))
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a regular file"));
  const uintmax_t size = fs::file_size(path, ec);
  if (ec) return absl::NotFoundError(absl::StrCat(path, ": cannot stat: ", ec.message()));
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  std::string data(static_cast<size_t>(size), '\0');
  in.read(data.data(), static_cast<std::streamsize>(size));
  if (static_cast<uintmax_t>(in.gcount()) != size) {
    return absl::DataLossError(absl::StrCat(path, ": short read"));
  }
  return data;
}

absl::StatusOr<Graph> LoadModelFile(const std::string& path) {
  char head[8] = {};
  {
    std::ifstream in(path, std::ios::binary);
    if (in) in.read(head, sizeof(head));
  }
  if (DetectModelFormat(absl::string_view(head, sizeof(head))) == ModelFormat::kOrt) {
    return LoadOrtModel(path);
  }
  return LoadOnnxModel(path);
}

}  // namespace vkserve
