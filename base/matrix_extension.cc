// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "base/matrix_extension.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace vkserve {

std::string_view MatrixExtensionName(MatrixExtension extension) {
  switch (extension) {
    case MatrixExtension::kNv:
      return "nv";
    case MatrixExtension::kKhr:
      return "khr";
    case MatrixExtension::kAuto:
      break;
  }
  return "auto";
}

absl::StatusOr<MatrixExtension> ParseMatrixExtension(std::string_view name) {
  for (MatrixExtension e : {MatrixExtension::kAuto, MatrixExtension::kNv, MatrixExtension::kKhr}) {
    if (name == MatrixExtensionName(e)) return e;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("matrix extension '", std::string(name), "' is none of auto, nv, khr"));
}

}  // namespace vkserve
