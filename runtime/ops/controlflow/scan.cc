// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Scan (opsets 9-27): runs `body` once per slice of the scan inputs along
// their scan axes, carrying state values between iterations and stacking the
// per-iteration scan outputs along their axes (either direction). The
// sequence length is a shape, so vkserve unrolls the scan when the plan is
// built: every slice (a Gather) and every body node runs on the GPU, with no
// sync point. Opset 8's batched form is scan_batched.cc; the checks and the
// unrolled steps both use are scan_body.h's.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"
#include "runtime/ops/controlflow/scan_body.h"
#include "runtime/ops/controlflow/subgraph_inline.h"

namespace vkserve {
namespace {

constexpr int64_t kScanMaxIterations = 4096;

class ScanOp : public Op {
 public:
  absl::Status Validate(const Node& node) const override { return ValidateScanNode(node, 0); }
  bool expands() const override { return true; }
  absl::Status Infer(InferContext& /*ctx*/) const override {
    return absl::InternalError("Scan is expanded, never inferred");
  }

  absl::Status Expand(ExpandContext& ctx) const override {
    const Node& node = ctx.node();
    ASSIGN_OR_RETURN(const ScanBody body, GetScanBody(node, 0));
    const size_t m = body.scan_inputs;
    const size_t n = body.states;
    const size_t k_count = body.scan_outputs;
    const auto in_axes = node.GetInts("scan_input_axes", std::vector<int64_t>(m, 0));
    const auto in_dirs = node.GetInts("scan_input_directions", std::vector<int64_t>(m, 0));
    const auto out_axes = node.GetInts("scan_output_axes", std::vector<int64_t>(k_count, 0));
    const auto out_dirs = node.GetInts("scan_output_directions", std::vector<int64_t>(k_count, 0));
    if (in_axes.size() != m || in_dirs.size() != m || out_axes.size() != k_count ||
        out_dirs.size() != k_count) {
      return absl::InvalidArgumentError(
          "scan axes/directions do not match the scan inputs/outputs");
    }
    int64_t length = -1;
    std::vector<int64_t> axes;
    for (size_t j = 0; j < m; ++j) {
      const TensorDesc* x = ctx.Find(node.inputs[n + j]);
      if (x == nullptr) return absl::InvalidArgumentError("a scan input is not defined");
      ASSIGN_OR_RETURN(int64_t axis,
                       NormalizeAxis(in_axes[j], static_cast<int64_t>(x->shape.size())));
      axes.push_back(axis);
      if (length >= 0 && x->shape[axis] != length) {
        return absl::InvalidArgumentError("scan inputs differ in sequence length");
      }
      length = x->shape[axis];
    }
    if (length < 1)
      return absl::UnimplementedError("a scan over an empty sequence is not supported");
    if (length > kScanMaxIterations) {
      return absl::UnimplementedError(absl::StrCat("vkserve unrolls at most ", kScanMaxIterations,
                                                   " iterations; the sequence has ", length));
    }
    std::vector<std::string> state(node.inputs.begin(), node.inputs.begin() + n);
    std::vector<std::vector<std::string>> scans(k_count);
    const std::vector<std::string> sequences(node.inputs.begin() + n, node.inputs.end());
    RETURN_IF_ERROR(EmitScanSteps(ctx, body, absl::StrCat(node.name, "/"), sequences, axes, in_dirs,
                                  length, state, scans));
    for (size_t j = 0; j < n && j < node.outputs.size(); ++j) {
      if (!node.outputs[j].empty())
        RETURN_IF_ERROR(EmitIdentity(ctx, state[j], node.outputs[j]).status());
    }
    for (size_t k = 0; k < k_count && n + k < node.outputs.size(); ++k) {
      const std::string& out = node.outputs[n + k];
      if (out.empty()) continue;
      if (out_dirs[k] != 0) std::reverse(scans[k].begin(), scans[k].end());
      RETURN_IF_ERROR(EmitStack(ctx, scans[k], out_axes[k], out));
    }
    return absl::OkStatus();
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Scan", 9, 27, ScanOp);

}  // namespace vkserve
