// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/scheduling/batch_key.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace vkserve {

std::optional<std::string> BatchKey(const Model& model, const SchedulerRequest& request) {
  const RunRequest& run = request.run;
  if (request.batch_size < 1 || run.profile) return std::nullopt;
  std::map<std::string, std::string> parts;  // by name: a stable order
  for (const InputBinding& b : run.inputs) {
    const auto declared = std::find_if(model.inputs().begin(), model.inputs().end(),
                                       [&](const ValueInfo& v) { return v.name == b.name; });
    if (declared == model.inputs().end() || !CheckInput(*declared, b).ok()) return std::nullopt;
    if (b.shape.empty() || b.shape[0] != request.batch_size) return std::nullopt;
    if (const DeviceTensor* tensor = b.device(); tensor != nullptr && tensor->released()) {
      return std::nullopt;
    }
    std::vector<int64_t> rest(b.shape.begin() + 1, b.shape.end());
    // Length-prefixed: a client's input name cannot forge another key.
    if (!parts
             .emplace(b.name,
                      absl::StrCat(b.name.size(), ":", b.name, "/", static_cast<int>(b.dtype), "/",
                                   absl::StrJoin(rest, ",")))
             .second) {
      return std::nullopt;  // bound twice: the run alone reports it
    }
  }
  std::set<std::string> on_gpu;  // by name: a stable order
  for (const OutputBinding& out : run.outputs) {
    if (std::none_of(model.outputs().begin(), model.outputs().end(),
                     [&](const ValueInfo& v) { return v.name == out.name; })) {
      return std::nullopt;  // the run alone reports it
    }
    if (out.location == OutputLocation::kDevice) on_gpu.insert(out.name);
  }
  std::string key;
  for (const auto& [name, part] : parts) absl::StrAppend(&key, part, ";");
  for (const std::string& name : on_gpu) absl::StrAppend(&key, "gpu:", name.size(), ":", name, ";");
  return key;
}

}  // namespace vkserve
