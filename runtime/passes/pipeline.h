// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// PassPipeline: the ordered list of GraphPasses a model runs at load, and
// what each did. Passes run in the order added; one switched off by the
// model's options or disabled by name is recorded, not run. After a pass
// changes the graph, shape facts are dropped and (unless the pass keeps
// ops) the ops are matched again before the next pass reads them. The
// pipeline, not the pass, decides where a pass runs: kEveryGraph passes
// also run in each If/Loop/Scan body (nested ones included), the others on
// the main graph, kMainGraphWithoutSubgraphs ones only when it holds no
// subgraph. Not thread-safe: one load fills one pipeline.
#ifndef VKSERVE_RUNTIME_PASSES_PIPELINE_H_
#define VKSERVE_RUNTIME_PASSES_PIPELINE_H_

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "runtime/passes/pass.h"

namespace vkserve {

// What one pass did in one load.
struct PassRecord {
  enum class State {
    kRan,
    kOff,        // not selected by the model's options (precision, fusion)
    kDisabled,   // named in ModelOptions::disabled_passes
    kSubgraphs,  // kMainGraphWithoutSubgraphs, and the graph holds subgraphs
  };
  std::string name;
  PassLevel level = PassLevel::kLowering;
  State state = State::kRan;
  double seconds = 0;       // wall time of the pass and the op match after it
  int changes = 0;          // the pass's own count, over every graph it ran in
  size_t nodes_before = 0;  // main graph
  size_t nodes_after = 0;
  int subgraphs_changed = 0;  // subgraph bodies it rewrote
  int shape_inferences = 0;   // whole-graph inferences it asked for
  std::string part;           // the part of a model split at a sync point; "" for the whole
};
std::string_view PassStateName(PassRecord::State state);

class PassPipeline {
 public:
  // Appends `pass`; `on` false records it as off for these options.
  void Add(std::unique_ptr<GraphPass> pass, bool on = true);
  // Every pass's name, in order.
  std::vector<std::string> names() const;
  // Disables the passes of these names; INVALID_ARGUMENT naming the first
  // unknown one and listing the known names.
  absl::Status Disable(const std::set<std::string>& names);
  // Runs the passes of levels first..last in order on `ctx` and appends
  // their records. Ops are current when it returns OK.
  absl::Status Run(PassContext& ctx, PassLevel first, PassLevel last);
  const std::vector<PassRecord>& records() const { return records_; }
  // The changes the last run of pass `name` recorded; 0 when it did not run.
  int changes(std::string_view name) const;
  // Whether the last record of pass `name` says it ran.
  bool ran(std::string_view name) const;

 private:
  struct Entry {
    std::unique_ptr<GraphPass> pass;
    bool on = true;
    bool disabled = false;
  };
  absl::Status RunOne(const Entry& entry, PassContext& ctx);

  std::vector<Entry> entries_;
  std::vector<PassRecord> records_;
};

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_PASSES_PIPELINE_H_
