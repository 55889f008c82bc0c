// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "config/model_tensor.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace vkserve {

std::string ShapeString(const ModelTensor& tensor) {
  if (!tensor.has_shape) return "[unknown rank]";
  std::vector<std::string> dims;
  for (const ModelDim& d : tensor.dims) {
    dims.push_back(d.is_fixed() ? absl::StrCat(d.size) : (d.symbol.empty() ? "?" : d.symbol));
  }
  return absl::StrCat("[", absl::StrJoin(dims, ","), "]");
}

}  // namespace vkserve
