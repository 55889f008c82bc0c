// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Flags shared by the model commands (`inspect`, `infer`): the model path,
// `--device`, `--dim NAME=VALUE` free-dimension overrides,
// `--pipeline-cache` and `--pipeline-statistics` (log each pipeline's
// registers, spills and shared memory as the driver reports them).
// ParseModelFlags consumes those and leaves the rest.
#ifndef VKSERVE_SERVER_MODEL_FLAGS_H_
#define VKSERVE_SERVER_MODEL_FLAGS_H_

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/gpu_runtime.h"
#include "runtime/model.h"

namespace vkserve {

struct ModelFlags {
  std::string model_path;
  GpuRuntimeOptions gpu;
  ModelOptions model;
  std::vector<std::string> rest;  // flags the command parses itself
};

// INVALID_ARGUMENT for a malformed --dim or a missing model path.
// `value_flags` are the command's own flags that take a value; they and
// their values go to ModelFlags::rest in order.
absl::StatusOr<ModelFlags> ParseModelFlags(const std::vector<std::string>& args,
                                           const std::set<std::string>& value_flags = {});

// "NAME=VALUE" -> (NAME, VALUE).
absl::StatusOr<std::pair<std::string, std::string>> SplitAssignment(const std::string& arg);

}  // namespace vkserve

#endif  // VKSERVE_SERVER_MODEL_FLAGS_H_
