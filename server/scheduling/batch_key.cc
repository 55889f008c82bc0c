// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/scheduling/batch_key.h"

#include <algorithm>
#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace vkserve {
namespace {

uint64_t DenseBytes(DataType dtype, const std::vector<int64_t>& shape) {
  uint64_t count = 1;
  for (int64_t d : shape) count *= static_cast<uint64_t>(std::max<int64_t>(d, 0));
  return count * DataTypeSize(dtype);
}

}  // namespace

std::optional<std::string> BatchKey(const SchedulerRequest& request) {
  const RunRequest& run = request.run;
  if (request.batch_size < 1 || run.profile) return std::nullopt;
  std::map<std::string, std::string> parts;  // by name: a stable order
  for (const InputBinding& b : run.inputs) {
    const bool device = b.device != nullptr;
    const DataType dtype = device ? b.device->dtype() : b.host.dtype;
    const std::vector<int64_t>& shape = device ? b.device->shape() : b.host.shape;
    if (shape.empty() || shape[0] != request.batch_size) return std::nullopt;
    for (int64_t d : shape) {
      if (d < 0) return std::nullopt;
    }
    if (device) {
      if (b.device->released()) return std::nullopt;
    } else if (!b.host.parts.empty() || (!run.host_input_readers.contains(b.name) &&
                                         b.host.data.size() != DenseBytes(dtype, shape))) {
      return std::nullopt;
    }
    std::vector<int64_t> rest(shape.begin() + 1, shape.end());
    // Length-prefixed: a client's input name cannot forge another key.
    if (!parts
             .emplace(b.name, absl::StrCat(b.name.size(), ":", b.name, "/", static_cast<int>(dtype),
                                           "/", absl::StrJoin(rest, ",")))
             .second) {
      return std::nullopt;  // bound twice: the run alone reports it
    }
  }
  std::string key;
  for (const auto& [name, part] : parts) absl::StrAppend(&key, part, ";");
  for (const auto& [name, location] : run.output_locations) {
    if (location == OutputLocation::kDevice)
      absl::StrAppend(&key, "gpu:", name.size(), ":", name, ";");
  }
  return key;
}

}  // namespace vkserve
