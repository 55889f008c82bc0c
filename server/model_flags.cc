// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/model_flags.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gpu/status_macros.h"

namespace vkserve {

absl::StatusOr<std::pair<std::string, std::string>> SplitAssignment(const std::string& arg) {
  const size_t eq = arg.find('=');
  if (eq == std::string::npos || eq == 0) {
    return absl::InvalidArgumentError(absl::StrCat("expected NAME=VALUE, got '", arg, "'"));
  }
  return std::make_pair(arg.substr(0, eq), arg.substr(eq + 1));
}

absl::StatusOr<ModelFlags> ParseModelFlags(const std::vector<std::string>& args,
                                           const std::set<std::string>& value_flags) {
  ModelFlags flags;
  flags.gpu.pipeline_cache_path = DefaultPipelineCachePath();
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool has_value = i + 1 < args.size();
    if (a == "--device" && has_value) {
      flags.gpu.device = args[++i];
    } else if (a == "--pipeline-cache" && has_value) {
      flags.gpu.pipeline_cache_path = args[++i];
    } else if (a == "--dim" && has_value) {
      ASSIGN_OR_RETURN(auto kv, SplitAssignment(args[++i]));
      int64_t value = 0;
      if (!absl::SimpleAtoi(kv.second, &value) || value < 0) {
        return absl::InvalidArgumentError(absl::StrCat("--dim ", args[i], ": not a size"));
      }
      // A name matches a dim_param exactly or a denotation (DATA_BATCH, ...).
      flags.model.dim_overrides_by_name[kv.first] = value;
      flags.model.dim_overrides_by_denotation[kv.first] = value;
    } else if (value_flags.count(a) && has_value) {
      flags.rest.push_back(a);
      flags.rest.push_back(args[++i]);
    } else if (a == "--precision" && has_value) {
      const std::string& v = args[++i];
      if (v == "FP32") {
        flags.model.precision = Precision::kFp32;
      } else if (v == "FP16") {
        flags.model.precision = Precision::kFp16;
      } else {
        return absl::InvalidArgumentError("--precision must be FP32 or FP16");
      }
    } else if (a == "--pipeline-statistics") {
      flags.gpu.pipeline_statistics = true;
    } else if (a == "--no-fusion") {
      flags.model.fuse = false;
    } else if (a == "--no-attention-fusion") {
      flags.model.fuse_attention = false;
    } else if (!a.empty() && a[0] != '-' && flags.model_path.empty()) {
      flags.model_path = a;
    } else {
      flags.rest.push_back(a);
    }
  }
  if (flags.model_path.empty()) return absl::InvalidArgumentError("no model file given");
  return flags;
}

}  // namespace vkserve
