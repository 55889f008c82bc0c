// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Scan opset 8, the batched form: inputs (sequence_lens, N initial states of
// [batch, ...], M scan inputs of [batch, sequence, ...]), attribute
// `directions` per scan input, outputs N final states [batch, ...] and K
// scan outputs [batch, sequence, ...]. Unrolled when the plan is built, as
// opset 9's Scan (scan.cc; the checks and the steps shared in scan_body.h):
// per batch entry a Gather of every state and scan input, per step a Gather
// of each scan slice and the body inlined, then the per-step outputs stacked
// along the sequence axis and the per-entry results along the batch axis —
// every node on the GPU, no sync point.
// sequence_lens must be omitted or a host-known full length for every entry
// (shorter sequences would need per-entry padding; UNIMPLEMENTED).

#include "absl/strings/str_cat.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"
#include "runtime/ops/controlflow/scan_body.h"
#include "runtime/ops/controlflow/subgraph_inline.h"

namespace vkserve {
namespace {

// Body instances unrolled (batch entries times sequence steps).
constexpr int64_t kMaxBodies = 4096;

// OK when `lens` (input 0, maybe omitted) gives every entry the full length.
absl::Status CheckSequenceLens(ExpandContext& ctx, int64_t batch, int64_t length) {
  const Node& node = ctx.node();
  if (node.inputs.empty() || node.inputs[0].empty()) return absl::OkStatus();
  const TensorDesc* lens = ctx.Find(node.inputs[0]);
  if (lens == nullptr) return absl::InvalidArgumentError("sequence_lens is not defined");
  if (lens->value == nullptr) {
    return absl::UnimplementedError("Scan-8's sequence_lens must be known when the plan is built");
  }
  const std::vector<int64_t> values = lens->value->ToInts();
  if (static_cast<int64_t>(values.size()) != batch) {
    return absl::InvalidArgumentError(
        absl::StrCat("sequence_lens has ", values.size(), " values; the batch is ", batch));
  }
  for (int64_t v : values) {
    if (v != length) {
      return absl::UnimplementedError(absl::StrCat("Scan-8 with a sequence_lens entry (", v,
                                                   ") shorter than the sequence (", length, ")"));
    }
  }
  return absl::OkStatus();
}

class BatchedScanOp : public Op {
 public:
  absl::Status Validate(const Node& node) const override {
    RETURN_IF_ERROR(ValidateScanNode(node, 1));
    const int64_t m = node.GetInt("num_scan_inputs", 0);
    const std::vector<int64_t> dirs = node.GetInts("directions", std::vector<int64_t>(m, 0));
    if (static_cast<int64_t>(dirs.size()) != m) {
      return absl::InvalidArgumentError("directions must have num_scan_inputs values");
    }
    return absl::OkStatus();
  }
  bool IsHostInput(const Node& /*node*/, size_t i) const override { return i == 0; }
  bool expands() const override { return true; }
  absl::Status Infer(InferContext& /*ctx*/) const override {
    return absl::InternalError("Scan is expanded, never inferred");
  }

  absl::Status Expand(ExpandContext& ctx) const override {
    const Node& node = ctx.node();
    ASSIGN_OR_RETURN(const ScanBody body, GetScanBody(node, 1));
    const size_t m = body.scan_inputs;
    const size_t n = body.states;
    const size_t k_count = body.scan_outputs;
    const std::vector<int64_t> dirs = node.GetInts("directions", std::vector<int64_t>(m, 0));
    int64_t batch = -1, length = -1;
    for (size_t i = 1; i < node.inputs.size(); ++i) {
      const TensorDesc* x = ctx.Find(node.inputs[i]);
      if (x == nullptr) return absl::InvalidArgumentError("a Scan input is not defined");
      const bool scan = i > n;
      if (x->shape.size() < (scan ? 2u : 1u)) {
        return absl::InvalidArgumentError(absl::StrCat("Scan-8 input ", i, " ", x->ToString(),
                                                       " lacks the batch",
                                                       scan ? " and sequence" : "", " axis"));
      }
      if (batch >= 0 && x->shape[0] != batch) {
        return absl::InvalidArgumentError("Scan-8 inputs differ in batch size");
      }
      batch = x->shape[0];
      if (!scan) continue;
      if (length >= 0 && x->shape[1] != length) {
        return absl::InvalidArgumentError("scan inputs differ in sequence length");
      }
      length = x->shape[1];
    }
    if (batch < 1 || length < 1) {
      return absl::UnimplementedError("a Scan over an empty batch or sequence is not supported");
    }
    if (length > kMaxBodies / batch) {  // batch * length, without overflow
      return absl::UnimplementedError(absl::StrCat("vkserve unrolls at most ", kMaxBodies,
                                                   " body instances; this Scan needs ", batch,
                                                   " x ", length));
    }
    RETURN_IF_ERROR(CheckSequenceLens(ctx, batch, length));

    std::vector<std::vector<std::string>> finals(n), stacked(k_count);
    for (int64_t b = 0; b < batch; ++b) {
      const std::string prefix = absl::StrCat(node.name, "/", b, "/");
      std::vector<std::string> state, sequences;
      for (size_t i = 1; i < node.inputs.size(); ++i) {
        ASSIGN_OR_RETURN(std::string entry,
                         EmitGatherIndex(ctx, node.inputs[i], b, 0, prefix + "entry"));
        (i <= n ? state : sequences).push_back(entry);
      }
      std::vector<std::vector<std::string>> scans(k_count);
      RETURN_IF_ERROR(EmitScanSteps(ctx, body, prefix, sequences, std::vector<int64_t>(m, 0), dirs,
                                    length, state, scans));
      for (size_t j = 0; j < n; ++j) finals[j].push_back(state[j]);
      for (size_t k = 0; k < k_count; ++k) {
        const std::string seq = ctx.NewName(prefix + "scan_output");
        RETURN_IF_ERROR(EmitStack(ctx, scans[k], 0, seq));
        stacked[k].push_back(seq);
      }
    }
    for (size_t j = 0; j < n && j < node.outputs.size(); ++j) {
      if (!node.outputs[j].empty()) RETURN_IF_ERROR(EmitStack(ctx, finals[j], 0, node.outputs[j]));
    }
    for (size_t k = 0; k < k_count && n + k < node.outputs.size(); ++k) {
      if (!node.outputs[n + k].empty()) {
        RETURN_IF_ERROR(EmitStack(ctx, stacked[k], 0, node.outputs[n + k]));
      }
    }
    return absl::OkStatus();
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Scan", 8, 8, BatchedScanOp);

}  // namespace vkserve
