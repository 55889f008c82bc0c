// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The file each output is written to by `vkserve infer --output-dir DIR` and
// `vkserve client --output-dir DIR`: DIR/<file name>.npy, with the one rule
// both commands follow, since output names come from a model file or a
// server and may be anything:
//   - every character outside [A-Za-z0-9._-] becomes '_' (so a name never
//     reaches outside DIR: "a/b:0" -> a_b_0.npy, "../x" -> .._x.npy);
//   - a name that is empty or only dots ("", ".", ".."), or whose file name
//     would pass the file-system limit of 255 bytes, is refused;
//   - two outputs whose names map to one file ("a/b" and "a:b") are refused.
// Refusals come before any file is written. Thread-safe (no state).
#ifndef VKSERVE_CLI_OUTPUT_FILES_H_
#define VKSERVE_CLI_OUTPUT_FILES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace vkserve {

// The file names ("a_b_0.npy"), one per output name in order;
// INVALID_ARGUMENT naming the output for a refusal.
absl::StatusOr<std::vector<std::string>> OutputFileNames(const std::vector<std::string>& names);

}  // namespace vkserve

#endif  // VKSERVE_CLI_OUTPUT_FILES_H_
