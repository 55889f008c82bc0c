// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// NumPy .npy files (format versions 1.0-3.0, little-endian, C order) to and
// from HostTensor, for `vkserve infer --input NAME=FILE.npy` and its outputs.
// Files are untrusted: a malformed header is an INVALID_ARGUMENT Status.
// Stateless; thread-safe.
#ifndef VKSERVE_RUNTIME_NPY_H_
#define VKSERVE_RUNTIME_NPY_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "runtime/graph.h"

namespace vkserve {

absl::StatusOr<HostTensor> ReadNpy(const std::string& path);
absl::StatusOr<HostTensor> ParseNpy(std::string_view bytes, const std::string& name = "npy");
absl::Status WriteNpy(const HostTensor& tensor, const std::string& path);
absl::StatusOr<std::string> SerializeNpy(const HostTensor& tensor);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_NPY_H_
