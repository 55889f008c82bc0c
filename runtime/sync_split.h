// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// SyncSplit: a model cut at one sync point, after the first node whose
// output shapes depend on data (Op::sync_count_output: NonZero, Compress,
// NonMaxSuppression, Unique) and whose inputs are not all known at load
// (those fold) — or before the first If or Loop whose subgraph holds such a
// node (runtime/passes/sync_control_flow.h) and whose condition or trip count is
// not known at load.
//
// The prefix model computes what that node needs and the node itself, its
// outputs at their upper bound plus the count n. A run of the model runs the
// prefix, reads back only n (the sync point: RunTiming::sync_points), then
// runs the suffix model — every other node — with the node's outputs bound
// at their actual shape. Every value crossing the cut stays in GPU memory
// (a device output of the prefix bound as a device input of the suffix,
// without a copy), every node runs on the GPU, and the suffix's plans and
// recordings are cached per shape like any model's, so runs with the same n
// replay. The suffix is itself split again at a later such node. Shape
// arithmetic the suffix reads (a Reshape's shape from Shape, Gather and Mul
// over a prefix value) is computed again in the suffix rather than crossing:
// there it folds on the host from the crossing values' shapes.
//
// Before an If or Loop (kControl) the prefix computes what its condition and
// trip count need, which must fold on the host when the prefix is planned
// (shape arithmetic over counts read back at earlier sync points, say): the
// run reads back those host-known values, and runs the rest as a variant
// model made for them, in which the node is resolved at load — the branch
// it takes inlined, or its iterations unrolled — so the sync nodes inside
// become plain nodes cut like any other. Variants are made on first use and
// kept (at most kMaxControlVariants per split).
//
// Immutable after creation but for the variants, made under a lock;
// thread-safe (the models are). SplitSessions is not thread-safe, as a
// Session is not.
#ifndef VKSERVE_RUNTIME_SYNC_SPLIT_H_
#define VKSERVE_RUNTIME_SYNC_SPLIT_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/mutex.h"
#include "runtime/ir/graph.h"
#include "runtime/op/op.h"

namespace vkserve {

class Model;
class Session;
struct GpuContext;
struct ModelOptions;
struct SessionOptions;
struct RunRequest;
struct RunResult;

// Variants of the rest after a control-flow node a split keeps, at most.
inline constexpr size_t kMaxControlVariants = 256;

struct SyncSplit {
  enum class Kind {
    kCount,    // after a data-dependent node: the suffix at the count read back
    kControl,  // before an If or Loop holding one: a variant per decision
  };
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

  // kControl: `suffix` is null; `decision_outputs` are the prefix outputs
  // holding the node's host inputs (condition, trip count), per
  // `decision_inputs` (the node's input indices), and `rest` the graph the
  // variants are made from.
  Kind kind = Kind::kCount;
  std::vector<int> decision_outputs;
  std::vector<int> decision_inputs;
  Graph rest;
  std::shared_ptr<const GpuContext> gpu;
  std::shared_ptr<const ModelOptions> rest_options;

  // kCount: the suffix's crossing inputs at their bound (the suffix's cuts
  // are planned at load at these shapes).
  std::map<std::string, std::vector<int64_t>> crossing_shapes;

  // The variant for these host inputs (in decision_inputs order), made on
  // first use; `input_shapes` (by input name) are the run's, at which its
  // own cuts are planned at load.
  absl::StatusOr<std::shared_ptr<Model>> Variant(
      const std::vector<HostTensor>& decisions,
      const std::map<std::string, std::vector<int64_t>>& input_shapes) const;

 private:
  mutable Mutex mu_;
  mutable std::map<std::string, std::shared_ptr<Model>> variants_;
};

// The index of the node to cut `graph` at, or -1 when no node needs a
// sync point: a data-dependent node (cut after) or an If or Loop holding
// one (cut before). `ops` is per graph.nodes.
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

// The sessions a Session of a split model runs: the prefix's, and the
// suffix's or one per variant used so far.
class SplitSessions {
 public:
  static absl::StatusOr<std::unique_ptr<SplitSessions>> Create(const SyncSplit& split,
                                                               const SessionOptions& options);
  ~SplitSessions();
  // One run through the prefix and the suffix (or the variant).
  absl::StatusOr<RunResult> Run(const RunRequest& request);
  size_t recording_count() const;
  size_t cached_state_count() const;

 private:
  SplitSessions(const SyncSplit& split, const SessionOptions& options);
  const SyncSplit& split_;
  std::unique_ptr<SessionOptions> options_;
  std::unique_ptr<Session> prefix_, suffix_;
  std::map<std::string, std::unique_ptr<Session>> variants_;
};

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_SYNC_SPLIT_H_
