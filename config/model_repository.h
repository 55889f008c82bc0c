// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The model repository on disk, Triton's layout:
//
//   <repository>/<model>/config.pbtxt            (optional)
//   <repository>/<model>/<version>/model.onnx    (or model.ort, or the
//                                                 config's default_model_filename)
//
// ScanRepository reads the directory tree and every config.pbtxt (phase 1 of
// model_config.h) — pure filesystem and config work: it loads no model onto
// the GPU and reads no model file. A model that cannot be served (bad name,
// bad config, no versions, ambiguous files) is still listed, with a non-OK
// `status` saying why, so RepositoryIndex can report it; the server decides
// whether that stops start-up.
//
// Rules: entries starting with '.' are skipped; model names are letters,
// digits, '_', '-' and '.' (at most 128, not starting with '.' or '-');
// a version directory is a positive decimal number without leading zeros;
// other subdirectories of a model are ignored (and listed in `ignored`).
//
// Stateless functions; thread-safe. The result is plain data.
#ifndef VKSERVE_CONFIG_MODEL_REPOSITORY_H_
#define VKSERVE_CONFIG_MODEL_REPOSITORY_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "config/model_config.h"

namespace vkserve {

enum class ModelFormat { kOnnx, kOrt };

struct ModelVersion {
  int64_t version = 0;
  std::string path;  // the model file (absolute)
  ModelFormat format = ModelFormat::kOnnx;
};

struct RepositoryModel {
  std::string name;       // the directory name
  std::string directory;  // absolute
  // OK, or why this model cannot be served; the message names the file and,
  // for config errors, the line and field.
  absl::Status status;
  bool has_config_file = false;
  // Phase-1 config: from config.pbtxt, or EmptyModelConfig() to be derived
  // from the model file. Meaningful only when status is OK.
  ParsedModelConfig config;
  // Every version directory with its model file, ascending.
  std::vector<ModelVersion> versions;
  // The versions to serve under the config's version_policy (default: the
  // latest one), ascending.
  std::vector<int64_t> served_versions;
  // Subdirectories and files that were ignored, relative to `directory`.
  std::vector<std::string> ignored;

  const ModelVersion* FindVersion(int64_t version) const;
};

struct Repository {
  std::string path;                     // absolute
  std::vector<RepositoryModel> models;  // sorted by name
  std::vector<std::string> ignored;     // top-level files that are not model directories
};

// Scans `path`. Fails only when `path` itself cannot be read (NOT_FOUND when
// it does not exist); problems with single models go into their status.
absl::StatusOr<Repository> ScanRepository(const std::string& path);

// Scans one model directory, `<repository>/<name>` (for RepositoryModelLoad).
// NOT_FOUND when there is no such directory; otherwise as one entry of
// ScanRepository.
absl::StatusOr<RepositoryModel> ScanModel(const std::string& repository, const std::string& name);

// OK when every model's status is OK; else the first failure (in name order)
// prefixed with the model's name.
absl::Status RepositoryStatus(const Repository& repository);

// INVALID_ARGUMENT when `name` is not a valid model name (see above).
absl::Status CheckModelName(std::string_view name);

}  // namespace vkserve

#endif  // VKSERVE_CONFIG_MODEL_REPOSITORY_H_
