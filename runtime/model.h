// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Model: a loaded, validated graph bound to a GPU — fused, every node matched
// to a GPU op (or refused at load with a Status naming node, op, domain and
// opset), weights uploaded once and shared by every Session. Plans, one per
// input-shape signature, are built on first use and cached within the
// model's CacheBudget (shared with its sessions' per-signature state), which
// evicts the least recently used idle ones.
//
// Thread-safe. The Device, Allocator and PipelineCache it was created with
// must outlive it.
#ifndef VKSERVE_RUNTIME_MODEL_H_
#define VKSERVE_RUNTIME_MODEL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/mutex.h"
#include "gpu/allocator.h"
#include "gpu/cache_budget.h"
#include "gpu/device.h"
#include "gpu/gpu_context.h"
#include "gpu/pipeline.h"
#include "runtime/ir/graph.h"
#include "runtime/op/activation.h"
#include "runtime/passes/pipeline.h"
#include "runtime/plan/plan.h"
#include "runtime/plan/planner.h"
#include "runtime/report/node_provenance.h"

namespace vkserve {

class PlanCache;
struct SyncSplit;

// The layout Conv activations take between Convs (ModelOptions::conv_layout).
enum class ConvLayout { kAuto, kNchw, kNhwc };

struct ModelOptions {
  // Free dimension overrides, as ONNX Runtime offers them: a symbolic input
  // dimension with this dim_param (exact match) or denotation
  // (case-insensitive, e.g. "DATA_BATCH") becomes fixed.
  std::map<std::string, int64_t> dim_overrides_by_name;
  std::map<std::string, int64_t> dim_overrides_by_denotation;
  // Fuse activations and residual adds into Conv/Gemm/MatMul, and (with
  // fuse_attention) the exporters' attention into one Attention node
  // (runtime/passes/attention_fusion.h).
  bool fuse = true;
  bool fuse_attention = true;
  // kFp16: weights and activations are stored in fp16 wherever the ops
  // reading them take fp16 (fp16_weights.h, fp16_activations.h); Conv, Gemm
  // and MatMul multiply fp16 operands and accumulate in fp32 (tensor cores
  // where the device has them); sums, softmax and normalization statistics
  // stay fp32 inside the kernels; ops without an fp16 form run in fp32 on
  // converted copies. kFp32 (default): exact fp32 math.
  Precision precision = Precision::kFp32;
  // Where FP16 precision's Conv, Gemm and MatMul keep their sums: kFp32
  // (default) or kFp16, fp16 accumulators on tensor cores that report an
  // fp16-result matrix shape (about twice the rate on NVIDIA; the error
  // grows with K). Only with kFp16 precision: Load refuses it otherwise.
  // GEMMs no fp16-accumulating kernel serves (no such shape, fp32 tensors,
  // gemv, scalar tiles) and attention keep fp32 sums; `vkserve inspect`
  // shows which each got.
  Accumulation accumulation = Accumulation::kFp32;
  // kNhwc: the "channels-last" pass (runtime/passes/channels_last.h) runs
  // chains of 2-D Convs channels-last on the GEMM engine's NHWC im2col
  // loader (fp16 activations, tensor cores), with one Transpose where NCHW
  // ops read them. kAuto (default): the same where the device runs the
  // tensor-core tiles, for the chains that hold a Conv wider than 1x1 (the
  // im2col gather NHWC speeds up); chains of 1x1 Convs between depthwise
  // ones stay NCHW, where the Transposes would cost more than they save.
  // kNchw: ONNX's layout throughout.
  ConvLayout conv_layout = ConvLayout::kAuto;
  // Host folding's limit (op.h kMaxFoldElements): nodes computable at plan
  // time from shapes and constants with larger outputs run on the GPU.
  // Tests lower it to take the GPU path at small shapes.
  int64_t max_fold_elements = kMaxFoldElements;
  // The memory budget of this model's cached plans and of its sessions'
  // per-signature state (arenas, IO and staging buffers, recordings): least
  // recently used entries not in use are evicted beyond it. Pass one budget
  // to several models to bound them together. Null: a budget of the model's
  // own with `cache_limits` (default CacheLimits::ForDevice).
  std::shared_ptr<CacheBudget> cache_budget;
  std::optional<CacheLimits> cache_limits;
  // Plan at DefaultInputShapes() when loading, so unsupported types and
  // shapes fail at load. Off for a sync split's suffix (sync_split.h), whose
  // shapes the count sets.
  bool plan_at_load = true;
  // The shapes DefaultInputShapes() gives the inputs of these names in place
  // of 1 for each symbolic dimension (where the rank matches): the values
  // crossing into a sync split's suffix or variant have no fixed shape, and
  // its own cuts are planned at load at the shapes those values had.
  std::map<std::string, std::vector<int64_t>> default_input_shapes;
  // Load-time graph passes not to run, by name (runtime/passes/load_passes.h
  // lists them; `vkserve inspect` shows each): for diagnosis. A name no
  // pass has fails the load with INVALID_ARGUMENT listing the names.
  std::set<std::string> disabled_passes;
};

// What `vkserve inspect` prints.
struct NodeReport {
  std::string name;
  std::string op_type;  // "Conv", or "Conv+Add+Relu" when fused
  std::string domain;   // "ai.onnx" for the default domain
  int64_t opset = 0;
  std::string device;  // "gpu"; "gpu (folded at load)" / "gpu (alias)" for nodes without dispatches
  std::string kernel;  // the kernel an op chose at this signature (Kernel::Describe), or empty
  std::vector<std::string> inputs;  // "name: float[1,3,224,224]"
  std::vector<std::string> outputs;
};

struct ModelReport {
  std::vector<ValueInfo> inputs;
  std::vector<ValueInfo> outputs;
  std::map<std::string, int> op_counts;  // by op type, after fusion
  std::vector<NodeReport> nodes;
  int gpu_nodes = 0;                // every node; there is no CPU execution
  int cpu_nodes = 0;                // always 0: shown to prove it
  int fused_nodes = 0;              // nodes merged into a Conv/Gemm/MatMul epilogue
  uint64_t arena_bytes = 0;         // planned activation arena
  uint64_t tensor_bytes_total = 0;  // sum of all intermediate tensors
  uint64_t weight_bytes = 0;
  std::string signature;  // the input shapes the plan was made for
  // The plan cache: what this signature's plan holds (PlanCache::Cost), how
  // many plans are cached (one per input signature), and the budget they
  // share with the other per-shape caches (0: unlimited).
  CacheCost plan_cost;
  size_t cached_plans = 0;
  CacheLimits cache_limits;
  // The model's sync points (sync_split.h), one line each: the node whose
  // output count a run reads back before planning the rest.
  std::vector<std::string> sync_points;
  std::string format;              // "onnx" or "ort": the file the model came from
  std::string ort_format_version;  // for "ort"
  // Every node as the file stored it, and what runs for it on the GPU.
  std::vector<StoredNodeReport> stored_nodes;
  // The graph passes the load ran, in order: what each did and its time.
  std::vector<PassRecord> passes;
};

class Model {
 public:
  // Loads `path`: an ONNX or ONNX Runtime (.ort) model, told apart by content.
  static absl::StatusOr<std::shared_ptr<Model>> Load(const std::string& path, const GpuContext& gpu,
                                                     const ModelOptions& options = {});
  static absl::StatusOr<std::shared_ptr<Model>> FromGraph(Graph graph, const GpuContext& gpu,
                                                          const ModelOptions& options = {});
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;
  ~Model();

  // The graph after fusion.
  const Graph& graph() const { return graph_; }
  // Declared inputs/outputs with dimension overrides applied.
  const std::vector<ValueInfo>& inputs() const { return inputs_; }
  const std::vector<ValueInfo>& outputs() const { return outputs_; }
  const GpuContext& gpu() const { return gpu_; }
  const ModelOptions& options() const { return options_; }
  int fused_nodes() const { return fused_nodes_; }
  // Initializers stored in fp16 at FP16 precision (runtime/passes/fp16_weights.h
  // and runtime/plan/fp16_activations.h).
  int fp16_weights() const { return fp16_weights_ + static_cast<int>(halved_.size()); }
  // Whether plans keep activations in fp16 (FP16 precision, no control flow;
  // runtime/plan/fp16_activations.h), and the initializers it stored in fp16.
  bool fp16_activations() const { return fp16_activations_; }
  const std::set<std::string>& halved_initializers() const { return halved_; }
  // The load's graph passes, in order (a sync split's parts have their own).
  const std::vector<PassRecord>& pass_records() const { return pass_records_; }

  // The plan for these input shapes (in inputs() order), built on first use
  // and cached until the budget evicts it (never while the caller holds it).
  // `input_values` (empty, or one per input) holds the value inputs' data
  // (is_value_input), read on the host from the request: they are part of
  // the plan's key and signature. INVALID_ARGUMENT when a shape does not fit
  // the declared one or a value input's data is missing or mis-sized.
  absl::StatusOr<std::shared_ptr<const Plan>> GetPlan(
      const std::vector<std::vector<int64_t>>& input_shapes,
      const InputValues& input_values = {}) const;

  // Whether the plan for these input shapes is cached now, without building
  // it or counting a use: a scheduler asks before choosing a batch size.
  // False for a model with value inputs or a sync split (whose plans need
  // more than shapes) and for shapes GetPlan would refuse.
  bool HasPlan(const std::vector<std::vector<int64_t>>& input_shapes) const;

  // True for inputs that some node reads on the host at plan time (Reshape's
  // shape, the Reduce* axes, TopK's k, Clip's bounds, ...): their values,
  // not only their shapes, select the plan. Never read back from the GPU.
  bool is_value_input(size_t input_index) const {
    return input_index < value_inputs_.size() && value_inputs_[input_index];
  }
  bool has_value_inputs() const;

  // Shapes with every symbolic dimension set to 1 (or as
  // ModelOptions::default_input_shapes gives it): the plan made at load.
  std::vector<std::vector<int64_t>> DefaultInputShapes() const;

  // Plans at `input_shapes` (default: DefaultInputShapes()) and reports.
  absl::StatusOr<ModelReport> Inspect(
      const std::vector<std::vector<int64_t>>* input_shapes = nullptr) const;

  // Non-null when the model runs in two parts around a sync point, after a
  // node whose output shapes depend on data (sync_split.h): sessions run
  // the split's prefix and suffix models, and GetPlan is FAILED_PRECONDITION.
  const SyncSplit* sync_split() const { return split_.get(); }

  // GPU copy of an initializer, or nullptr if no kernel reads it on the GPU.
  const gpu::Buffer* weight(const std::string& name) const;
  // What the planner reads of this model (plan/planner.h).
  PlanInputs plan_inputs() const;
  uint64_t weight_bytes() const { return weight_bytes_; }

  // The budget this model's plans and its sessions' states are charged to,
  // and what it holds (bytes, entries, evictions by kind): for metrics.
  const std::shared_ptr<CacheBudget>& cache_budget() const { return budget_; }
  CacheBudgetStats cache_stats() const { return budget_->stats(); }
  size_t cached_plan_count() const;

 private:
  Model() = default;
  absl::Status Prepare();
  absl::Status PrepareSplit(int sync_node);
  absl::StatusOr<ModelReport> InspectSplit(
      const std::vector<std::vector<int64_t>>& input_shapes) const;

  Graph graph_;
  GpuContext gpu_;
  ModelOptions options_;
  std::vector<ValueInfo> inputs_;
  std::vector<ValueInfo> outputs_;
  std::vector<const Op*> ops_;            // per graph_.nodes
  std::vector<StoredNode> stored_nodes_;  // as loaded, before rewrites and fusion
  std::map<std::string, gpu::Buffer> weights_;
  uint64_t weight_bytes_ = 0;
  int fused_nodes_ = 0;
  int fp16_weights_ = 0;
  bool fp16_activations_ = false;
  std::set<std::string> halved_;
  std::vector<PassRecord> pass_records_;
  std::shared_ptr<CacheBudget> budget_;
  std::vector<bool> value_inputs_;  // per input, see is_value_input
  std::shared_ptr<const SyncSplit> split_;
  std::shared_ptr<PlanCache> plans_;  // after budget_: destroyed first
};

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_MODEL_H_
