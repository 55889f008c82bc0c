// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Node provenance: for every node a model file stores, what vkserve runs for
// it on the GPU. Loading rewrites contrib and blocked-layout nodes into plain
// ops (rewrite.h), lifts constants and merges epilogues into their producers
// (fusion.h); this traces each stored node through those steps so that
// `vkserve inspect` can show, next to the op as stored, "kernel Conv+Relu",
// "rewritten into Conv+Relu", "fused into 'conv1' (Conv+Add+Relu)" or
// "folded at load" — and that nothing ran anywhere but the GPU.
//
// Plain data and pure functions; thread-safe.
#ifndef VKSERVE_RUNTIME_REPORT_NODE_PROVENANCE_H_
#define VKSERVE_RUNTIME_REPORT_NODE_PROVENANCE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/ir/graph.h"
#include "runtime/plan/plan.h"

namespace vkserve {

// A node as the file stored it.
struct StoredNode {
  std::string name;
  std::string op_type;
  std::string domain;         // "ai.onnx" for the default domain
  int64_t opset = 0;          // the model's import of the domain
  int64_t since_version = 0;  // the op version the file states (ORT format); 0 when it says none
  std::vector<std::string> outputs;
};

struct StoredNodeReport {
  StoredNode stored;
  std::string
      runs_as;  // "kernel Conv+Relu", "rewritten into ...", "fused into ...", "folded at load"
  std::string device;  // always "gpu": vkserve has no CPU kernels
};

// The stored nodes of `graph`, before any rewrite or fusion.
std::vector<StoredNode> SnapshotStoredNodes(const Graph& graph);

// Traces `stored` through the planned graph: `plan` was built from the
// final (rewritten and fused) nodes.
std::vector<StoredNodeReport> TraceStoredNodes(const std::vector<StoredNode>& stored,
                                               const Plan& plan);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_REPORT_NODE_PROVENANCE_H_
