// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// What Scan's two forms share: opsets 9-27 (scan.cc) and opset 8's batched
// form (scan_batched.cc, which puts sequence_lens in front of the inputs:
// `first`, the index of the first state input, is 1 there and 0 for opset
// 9+). The node's checks against its body, and the body unrolled over one
// sequence. Pure functions; thread-safe.
#ifndef VKSERVE_RUNTIME_OPS_CONTROLFLOW_SCAN_BODY_H_
#define VKSERVE_RUNTIME_OPS_CONTROLFLOW_SCAN_BODY_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/op/op.h"

namespace vkserve {

// Load-time checks: a body whose nodes all have GPU ops, and
// num_scan_inputs between 1 and the number of inputs from `first` on.
absl::Status ValidateScanNode(const Node& node, size_t first);

// A Scan node's body and its counts: the node's inputs from `first` on are
// `states` state values then `scan_inputs` sequences; the body reads them in
// that order and returns `states` new states then `scan_outputs` per-step
// outputs. The node has at most as many outputs as the body.
struct ScanBody {
  const Graph* graph = nullptr;  // owned by the node
  size_t states = 0;
  size_t scan_inputs = 0;
  size_t scan_outputs = 0;
};

// `node`'s body, checked against its inputs and outputs (after
// ValidateScanNode). INVALID_ARGUMENT when they do not match.
absl::StatusOr<ScanBody> GetScanBody(const Node& node, size_t first);

// Emits `length` steps of the body. Step t reads `state` and, for each scan
// input j, slice t of sequences[j] along axes[j] (slice length - 1 - t when
// directions[j] is nonzero); its new states replace `state` and its scan
// output k is appended to scans[k] (scans has body.scan_outputs entries).
// Step t's names start with `prefix`, t, "/".
absl::Status EmitScanSteps(ExpandContext& ctx, const ScanBody& body, const std::string& prefix,
                           const std::vector<std::string>& sequences,
                           const std::vector<int64_t>& axes, const std::vector<int64_t>& directions,
                           int64_t length, std::vector<std::string>& state,
                           std::vector<std::vector<std::string>>& scans);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_OPS_CONTROLFLOW_SCAN_BODY_H_
