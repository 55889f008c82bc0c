// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// SyncSplit: a model cut at one sync point, after the first node whose
// output shapes depend on data (Op::sync_count_output: NonZero, Compress,
// NonMaxSuppression, Unique) and whose inputs are not all known at load
// (those fold).
//
// The prefix model computes what that node needs and the node itself, its
// outputs at their upper bound plus the count n. A run of the model runs the
// prefix, reads back only n (the sync point: RunTiming::sync_points), then
// runs the suffix model — every other node — with the node's outputs bound
// at their actual shape. Every value crossing the cut stays in GPU memory
// (a device output of the prefix bound as a device input of the suffix,
// without a copy), every node runs on the GPU, and the suffix's plans and
// recordings are cached per shape like any model's, so runs with the same n
// replay. The suffix is itself split again at a later such node.
//
// Immutable after creation; thread-safe (the models are).
#ifndef VKSERVE_RUNTIME_SYNC_SPLIT_H_
#define VKSERVE_RUNTIME_SYNC_SPLIT_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/graph.h"
#include "runtime/op.h"

namespace vkserve {

class Model;
class Session;
struct GpuContext;
struct ModelOptions;
struct RunRequest;
struct RunResult;

struct SyncSplit {
  // Where a suffix input comes from: a model input or a prefix output.
  struct Source {
    bool from_prefix = false;
    int index = -1;
  };
  std::string node_name;  // the data-dependent node
  std::string op_type;
  std::shared_ptr<Model> prefix;
  std::shared_ptr<Model> suffix;
  std::vector<int> prefix_inputs;     // model input index per prefix input
  std::vector<Source> suffix_inputs;  // per suffix input
  int count_output = -1;              // the prefix output holding n
  std::vector<int> dynamic_axis;      // per prefix output: the axis that is n, or -1
};

// The index of the node to cut `graph` after, or -1 when no node needs a
// sync point. `ops` is per graph.nodes.
int FindSyncNode(const Graph& graph, const std::vector<const Op*>& ops);

// Splits `graph` after node `sync_node`: the prefix and suffix models on
// `gpu` with `options` (their inputs keep `inputs`' declared types).
// UNIMPLEMENTED with the reason when the cut cannot be made (control flow,
// a value read on the host that depends on the node's output, ...).
absl::StatusOr<std::unique_ptr<SyncSplit>> SplitAtSyncPoint(const Graph& graph,
                                                            const std::vector<ValueInfo>& inputs,
                                                            const std::vector<const Op*>& ops,
                                                            int sync_node, const GpuContext& gpu,
                                                            const ModelOptions& options);

// One run of a split model through its prefix and suffix sessions.
absl::StatusOr<RunResult> RunSplit(const SyncSplit& split, Session& prefix, Session& suffix,
                                   const RunRequest& request);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_SYNC_SPLIT_H_
