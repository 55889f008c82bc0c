// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Flags shared by the model commands (`inspect`, `infer`): the MODEL path,
// `--device`, `--dim NAME=VALUE` free-dimension overrides, `--precision`,
// `--accumulation`, `--conv-layout`, `--no-fusion`, `--no-attention-fusion`, `--disable-pass NAME`
// (repeatable: a load-time graph pass skipped), `--pipeline-cache` and
// `--pipeline-statistics` (log each pipeline's registers, spills and shared
// memory as the driver reports them). Not thread-safe: filled in while the
// command line is parsed.
#ifndef VKSERVE_CLI_MODEL_FLAGS_H_
#define VKSERVE_CLI_MODEL_FLAGS_H_

#include <optional>
#include <string>
#include <utility>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "runtime/gpu_runtime.h"
#include "runtime/model.h"

namespace vkserve {

struct ModelFlags {
  std::string model_path;
  GpuRuntimeOptions gpu;  // all but the pipeline cache: RuntimeOptions()
  ModelOptions model;
  std::optional<std::string> pipeline_cache;  // --pipeline-cache, when given
};

// Declares the model flags on `command`; parsing fills `flags`, which must
// outlive the parse.
void AddModelFlags(CLI::App& command, ModelFlags& flags);

// The runtime options the flags choose. Without --pipeline-cache: the
// default cache file (DefaultPipelineCachePath, which creates its
// directory, so only a command that runs a model asks for it).
GpuRuntimeOptions RuntimeOptions(const ModelFlags& flags);

// "NAME=VALUE" -> (NAME, VALUE); INVALID_ARGUMENT without '=' or NAME.
absl::StatusOr<std::pair<std::string, std::string>> SplitAssignment(const std::string& arg);

}  // namespace vkserve

#endif  // VKSERVE_CLI_MODEL_FLAGS_H_
