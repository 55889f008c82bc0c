// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/ops/controlflow/scan_body.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "runtime/ops/controlflow/subgraph_inline.h"

namespace vkserve {

absl::Status ValidateScanNode(const Node& node, size_t first) {
  ASSIGN_OR_RETURN(const Graph* body, GraphAttribute(node, "body"));
  const int64_t m = node.GetInt("num_scan_inputs", 0);
  if (m < 1 || m > static_cast<int64_t>(node.inputs.size()) - static_cast<int64_t>(first)) {
    return absl::InvalidArgumentError(
        absl::StrCat("num_scan_inputs must be between 1 and the input count",
                     first > 0 ? " less sequence_lens" : ""));
  }
  return ValidateSubgraph(*body);
}

absl::StatusOr<ScanBody> GetScanBody(const Node& node, size_t first) {
  ScanBody scan;
  ASSIGN_OR_RETURN(scan.graph, GraphAttribute(node, "body"));
  scan.scan_inputs = static_cast<size_t>(node.GetInt("num_scan_inputs", 0));
  scan.states = node.inputs.size() - first - scan.scan_inputs;
  const Graph& body = *scan.graph;
  if (body.inputs.size() != scan.states + scan.scan_inputs || body.outputs.size() < scan.states ||
      node.outputs.size() > body.outputs.size()) {
    return absl::InvalidArgumentError("body inputs and outputs do not match the node's");
  }
  scan.scan_outputs = body.outputs.size() - scan.states;
  return scan;
}

absl::Status EmitScanSteps(ExpandContext& ctx, const ScanBody& body, const std::string& prefix,
                           const std::vector<std::string>& sequences,
                           const std::vector<int64_t>& axes, const std::vector<int64_t>& directions,
                           int64_t length, std::vector<std::string>& state,
                           std::vector<std::vector<std::string>>& scans) {
  const size_t n = body.states;
  for (int64_t t = 0; t < length; ++t) {
    const std::string step = absl::StrCat(prefix, t, "/");
    std::vector<std::string> inputs = state;
    for (size_t j = 0; j < body.scan_inputs; ++j) {
      const int64_t index = directions[j] != 0 ? length - 1 - t : t;
      ASSIGN_OR_RETURN(std::string slice,
                       EmitGatherIndex(ctx, sequences[j], index, axes[j], step + "slice"));
      inputs.push_back(slice);
    }
    ASSIGN_OR_RETURN(std::vector<std::string> outs, InlineSubgraph(ctx, *body.graph, inputs, step));
    std::copy(outs.begin(), outs.begin() + n, state.begin());
    for (size_t k = 0; k < body.scan_outputs; ++k) scans[k].push_back(outs[n + k]);
  }
  return absl::OkStatus();
}

}  // namespace vkserve
