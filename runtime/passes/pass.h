// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// GraphPass: one named load-time rewrite of a graph (a fusion, a layout or
// precision change, control flow resolved at load), and the PassContext it
// runs in: the graph, the op each node matched, the model's inputs and the
// value shapes at two free-dimension signatures, inferred only when a pass
// asks for them and kept until a pass changes the graph. A pass says how
// far it may reach (PassScope): the main graph only, the main graph only
// when it holds no control-flow subgraphs, or every graph, subgraph bodies
// included. Passes are stateless and may be shared; a PassContext belongs
// to one load on one thread.
#ifndef VKSERVE_RUNTIME_PASSES_PASS_H_
#define VKSERVE_RUNTIME_PASSES_PASS_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/ir/graph.h"
#include "runtime/plan/planner.h"

namespace vkserve {

class Op;

// When a pass runs, in the order of the levels (ONNX Runtime's optimization
// levels): kLowering before the model is split at a sync point, the others
// on each part.
enum class PassLevel { kLowering, kFusion, kLayout, kPrecision };
std::string_view PassLevelName(PassLevel level);

// Where a pass may run.
enum class PassScope {
  // The main graph, whatever it holds: the pass looks into subgraphs itself.
  kMainGraph,
  // The main graph when it holds no subgraph: the pass reads the model's
  // inputs, inferred shapes or uses across the whole graph, and a subgraph
  // may read any of its values by name.
  kMainGraphWithoutSubgraphs,
  // Every graph, subgraph bodies included: the pass matches nodes of one
  // graph and their uses only. Values a nested subgraph reads count as
  // outputs of the graph around it, so no fusion removes them.
  kEveryGraph,
};

// Inferred value descriptions by name (InferShapes).
using ValueShapes = std::map<std::string, TensorDesc>;


class PassContext {
 public:
  // The main graph: `ops` holds one op per node once matched; `inputs` are
  // the model's declared inputs (dimension overrides applied). All three
  // must outlive the context.
  PassContext(Graph* graph, std::vector<const Op*>* ops, const std::vector<ValueInfo>* inputs);
  // A subgraph body: no ops, inputs or shapes (kEveryGraph passes only).
  explicit PassContext(Graph* subgraph);

  Graph& graph() { return *graph_; }
  bool in_subgraph() const { return ops_ == nullptr; }
  // One op per node, current: the pipeline matches again after a change
  // before a pass reads them. Aborts in a subgraph.
  const std::vector<const Op*>& ops() const;
  // Aborts in a subgraph.
  const std::vector<ValueInfo>& inputs() const;

  // Every value's shape with each free input dimension set to `free_dim`
  // (1 or 3: two signatures tell a fixed dimension from one that follows
  // the input's), inferred on the first call after a change. Null when
  // inference fails (planning reports the error) and in a subgraph.
  const ValueShapes* ShapesAt(int64_t free_dim);
  // How many whole-graph inferences and op matches ran: each costs a pass
  // over the graph.
  int shape_inferences() const { return shape_inferences_; }
  int op_matches() const { return op_matches_; }

  // The graph changed: shapes are inferred again and ops matched again.
  void GraphChanged(bool ops_kept);
  // Matches ops when a change left them stale.
  absl::Status EnsureOps();
  bool ops_current() const { return ops_current_; }

 private:
  Graph* graph_;
  std::vector<const Op*>* ops_ = nullptr;
  const std::vector<ValueInfo>* inputs_ = nullptr;
  bool ops_current_ = false;
  std::map<int64_t, std::optional<ValueShapes>> shapes_;  // nullopt: inference failed
  int shape_inferences_ = 0;
  int op_matches_ = 0;
};

class GraphPass {
 public:
  virtual ~GraphPass() = default;
  // Stable, lower-case with dashes: what --disable-pass takes.
  virtual std::string_view name() const = 0;
  virtual PassLevel level() const = 0;
  virtual PassScope scope() const = 0;
  // True when the pass rewrites initializers or attributes only, never
  // which op a node matches: its changes leave the ops as they are.
  virtual bool keeps_ops() const { return false; }
  // False for a pass that runs before ops are matched (the rewrites).
  virtual bool reads_ops() const { return true; }
  // Rewrites ctx.graph(); returns what it changed (nodes fused, moved,
  // dropped, ...), 0 when the graph is as it was.
  virtual absl::StatusOr<int> Run(PassContext& ctx) const = 0;
};

// How a FunctionPass relates to the ops: GraphPass::keeps_ops, reads_ops.
struct PassOps {
  bool keeps = false;
  bool reads = true;
};

// A GraphPass calling `run`.
class FunctionPass : public GraphPass {
 public:
  using RunFn = std::function<absl::StatusOr<int>(PassContext&)>;
  FunctionPass(std::string name, PassLevel level, PassScope scope, RunFn run,
               PassOps ops = PassOps())
      : name_(std::move(name)), level_(level), scope_(scope), run_(std::move(run)), ops_(ops) {}

  std::string_view name() const override { return name_; }
  PassLevel level() const override { return level_; }
  PassScope scope() const override { return scope_; }
  bool keeps_ops() const override { return ops_.keeps; }
  bool reads_ops() const override { return ops_.reads; }
  absl::StatusOr<int> Run(PassContext& ctx) const override { return run_(ctx); }

 private:
  std::string name_;
  PassLevel level_;
  PassScope scope_;
  RunFn run_;
  PassOps ops_;
};

// Every node of `graph` matched to its GPU op, attributes validated.
absl::Status MatchOps(const Graph& graph, std::vector<const Op*>& ops);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_PASSES_PASS_H_
