// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/model.h"

#include <algorithm>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gpu/transfer.h"
#include "runtime/kernels/gemm/gemm_plan.h"
#include "runtime/loaders/model_file.h"
#include "runtime/op/graph_uses.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"
#include "runtime/op/rewrite.h"
#include "runtime/passes/fusion.h"
#include "runtime/passes/load_passes.h"
#include "runtime/passes/pass.h"
#include "runtime/plan/fp16_activations.h"
#include "runtime/plan/plan_cache.h"
#include "runtime/plan/planner.h"
#include "runtime/sync_split.h"

namespace vkserve {
namespace {

std::string ShapeKey(const std::vector<std::vector<int64_t>>& shapes) {
  std::vector<std::string> parts;
  for (const auto& s : shapes) parts.push_back(ShapeString(s));
  return absl::StrJoin(parts, ";");
}

std::string DescribeType(const TensorType& t) {
  if (!t.has_shape) return absl::StrCat(std::string(DataTypeName(t.dtype)), "[?]");
  std::vector<std::string> dims;
  for (const Dim& d : t.shape) {
    dims.push_back(d.is_fixed() ? absl::StrCat(d.value) : (d.param.empty() ? "?" : d.param));
  }
  return absl::StrCat(std::string(DataTypeName(t.dtype)), "[", absl::StrJoin(dims, ","), "]");
}

// Marks every name the subgraphs of `node` read (their own values included:
// an over-approximation that keeps every captured initializer on the GPU).
void MarkSubgraphReads(const Node& node, std::map<std::string, bool>& read) {
  for (const auto& [name, a] : node.attributes) {
    for (const auto& g : a.graphs) {
      for (const Node& inner : g->nodes) {
        for (const std::string& in : inner.inputs) {
          if (!in.empty()) read[in] = true;
        }
        MarkSubgraphReads(inner, read);
      }
      for (const ValueInfo& out : g->outputs) read[out.name] = true;
    }
  }
}

// Adds to `host_read` every value of `graph` some node reads on the host,
// directly or through the nodes computing a host-read value, and the outer
// names its subgraphs read that way; to `direct` those a node reads on the
// host itself. `ops` are graph's nodes' ops, or null to look them up
// (subgraphs).
void CollectHostReads(const Graph& graph, const std::vector<const Op*>* ops,
                      std::set<std::string>& host_read, std::set<std::string>& direct) {
  for (size_t n = graph.nodes.size(); n-- > 0;) {
    const Node& node = graph.nodes[n];
    const Op* op = nullptr;
    if (ops != nullptr) {
      op = (*ops)[n];
    } else if (auto found = OpRegistry::Global().Find(node); found.ok()) {
      op = *found;
    }
    if (op == nullptr) continue;
    bool feeds_host = false;
    for (const std::string& out : node.outputs) feeds_host = feeds_host || host_read.contains(out);
    for (const auto& [name, a] : node.attributes) {
      for (const auto& g : a.graphs) {
        std::set<std::string> inner;
        if (feeds_host) {
          for (const ValueInfo& out : g->outputs) inner.insert(out.name);
        }
        CollectHostReads(*g, nullptr, inner, direct);
        host_read.insert(inner.begin(), inner.end());
      }
    }
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      if (node.inputs[i].empty()) continue;
      if (op->IsHostInput(node, i)) direct.insert(node.inputs[i]);
      if (op->IsHostInput(node, i) || (feeds_host && !op->IsShapeOnlyInput(node, i))) {
        host_read.insert(node.inputs[i]);
      }
    }
  }
}

}  // namespace

Model::~Model() = default;

absl::StatusOr<std::shared_ptr<Model>> Model::Load(const std::string& path, const GpuContext& gpu,
                                                   const ModelOptions& options) {
  ASSIGN_OR_RETURN(Graph graph, LoadModelFile(path));
  auto model = FromGraph(std::move(graph), gpu, options);
  // GPU memory running out is about this model's size: say which model.
  if (absl::IsResourceExhausted(model.status())) {
    return absl::ResourceExhaustedError(absl::StrCat(path, ": ", model.status().message()));
  }
  return model;
}

absl::StatusOr<std::shared_ptr<Model>> Model::FromGraph(Graph graph, const GpuContext& gpu,
                                                        const ModelOptions& options) {
  if (gpu.device == nullptr || gpu.allocator == nullptr || gpu.pipelines == nullptr) {
    return absl::InvalidArgumentError("Model needs a device, an allocator and a pipeline cache");
  }
  if (options.accumulation == Accumulation::kFp16 && options.precision != Precision::kFp16) {
    return absl::InvalidArgumentError(
        "FP16 accumulation needs FP16 precision: at FP32 precision the sums are fp32 by "
        "definition");
  }
  auto model = std::shared_ptr<Model>(new Model());
  model->graph_ = std::move(graph);
  model->gpu_ = gpu;
  model->options_ = options;
  model->budget_ = options.cache_budget;
  if (model->budget_ == nullptr) {
    model->budget_ = std::make_shared<CacheBudget>(
        options.cache_limits.value_or(CacheLimits::ForDevice(*gpu.device)));
  }
  model->plans_ = std::make_shared<PlanCache>(model->budget_, &model->graph_);
  RETURN_IF_ERROR(model->Prepare());
  return model;
}

namespace {

// Free dimension overrides applied to the declared inputs, which must have
// a rank and a type vkserve runs.
absl::Status ApplyDimOverrides(const ModelOptions& options, std::vector<ValueInfo>& inputs) {
  for (ValueInfo& in : inputs) {
    if (!in.type.has_shape) {
      return absl::UnimplementedError(
          absl::StrCat("input '", in.name, "' has no declared rank; vkserve needs one"));
    }
    if (DataTypeSize(in.type.dtype) == 0) {
      return absl::UnimplementedError(absl::StrCat("input '", in.name, "' has type ",
                                                   std::string(DataTypeName(in.type.dtype)),
                                                   ", which vkserve does not run"));
    }
    for (Dim& d : in.type.shape) {
      if (d.is_fixed()) continue;
      auto by_name = options.dim_overrides_by_name.find(d.param);
      if (!d.param.empty() && by_name != options.dim_overrides_by_name.end()) {
        d.value = by_name->second;
        continue;
      }
      for (const auto& [denotation, value] : options.dim_overrides_by_denotation) {
        if (!d.denotation.empty() && absl::EqualsIgnoreCase(denotation, d.denotation)) {
          d.value = value;
        }
      }
    }
    for (const Dim& d : in.type.shape) {
      if (d.is_fixed() && d.value > (int64_t{1} << 40)) {
        return absl::InvalidArgumentError(
            absl::StrCat("input '", in.name, "' dimension too large"));
      }
    }
  }
  return absl::OkStatus();
}

// Every initializer a kernel may read on the GPU (or a graph output),
// uploaded into its own weight buffer.
absl::Status UploadWeights(const Graph& graph, const std::vector<const Op*>& ops,
                           const std::vector<ValueInfo>& outputs, const GpuContext& gpu,
                           std::map<std::string, gpu::Buffer>& weights, uint64_t& bytes) {
  std::map<std::string, bool> gpu_read;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const Node& node = graph.nodes[n];
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      if (!node.inputs[i].empty() && !ops[n]->IsHostInput(node, i)) gpu_read[node.inputs[i]] = true;
    }
  }
  for (const ValueInfo& out : outputs) gpu_read[out.name] = true;
  for (const Node& node : graph.nodes) MarkSubgraphReads(node, gpu_read);
  for (const auto& [name, tensor] : graph.initializers) {
    if (!gpu_read.count(name) || tensor.data.empty()) continue;
    ASSIGN_OR_RETURN(gpu::Buffer buffer,
                     gpu.allocator->Allocate(tensor.data.size(), gpu::MemoryUsage::kDeviceLocal,
                                             gpu::MemoryKind::kWeights));
    RETURN_IF_ERROR(gpu::Upload(*gpu.allocator, buffer, 0, tensor.data));
    bytes += tensor.data.size();
    weights.emplace(name, std::move(buffer));
  }
  return absl::OkStatus();
}

// Per input: whether some node reads its values on the host (value inputs):
// directly, or through nodes computing a host-read value from them (a
// Loop's trip count from Range-like arithmetic), but not through inputs
// only whose shape matters. Through computation only small inputs of fixed
// shape: planning folds no more than max_fold_elements, and a data tensor
// must not key the plans.
std::vector<bool> FindValueInputs(const Graph& graph, std::vector<const Op*>& ops,
                                  const std::vector<ValueInfo>& inputs, int64_t max_fold_elements) {
  std::set<std::string> host_read;
  std::set<std::string> direct;
  CollectHostReads(graph, &ops, host_read, direct);
  std::vector<bool> value_inputs(inputs.size(), false);
  for (size_t k = 0; k < inputs.size(); ++k) {
    const std::string& name = inputs[k].name;
    int64_t elements = 1;
    for (const Dim& d : inputs[k].type.shape) {
      elements = d.is_fixed() && elements <= max_fold_elements ? elements * d.value
                                                               : max_fold_elements + 1;
    }
    value_inputs[k] =
        direct.contains(name) || (host_read.contains(name) && elements <= max_fold_elements);
  }
  return value_inputs;
}

}  // namespace

absl::Status Model::Prepare() {
  const bool tensor_cores = OffersCoopmatTiles(gpu_.device->info());
  std::unique_ptr<PassPipeline> passes = MakeLoadPipeline(LoadPassOptions{
      .fuse = options_.fuse,
      .fuse_attention = options_.fuse_attention,
      .fp16 = options_.precision == Precision::kFp16,
      .fp16_accumulation = options_.accumulation == Accumulation::kFp16,
      .channels_last = options_.conv_layout == ConvLayout::kNhwc ||
                       (options_.conv_layout == ConvLayout::kAuto && tensor_cores),
      .channels_last_spatial = options_.conv_layout == ConvLayout::kAuto,
      .tensor_cores = tensor_cores,
      .max_fold_elements = options_.max_fold_elements,
      .halved = &halved_,
  });
  RETURN_IF_ERROR(passes->Disable(options_.disabled_passes));
  inputs_ = graph_.inputs;
  outputs_ = graph_.outputs;
  RETURN_IF_ERROR(ApplyDimOverrides(options_, inputs_));
  stored_nodes_ = SnapshotStoredNodes(graph_);
  PassContext context(&graph_, &ops_, &inputs_);
  RETURN_IF_ERROR(passes->Run(context, PassLevel::kLowering, PassLevel::kLowering));
  pass_records_ = passes->records();
  // A node whose output shapes depend on data, or an If or Loop holding one
  // that resolves only when a run has read counts back: models around it,
  // each running the other levels itself.
  if (const int sync_node = FindSyncNode(graph_, ops_); sync_node >= 0)
    return PrepareSplit(sync_node);
  RETURN_IF_ERROR(passes->Run(context, PassLevel::kFusion, PassLevel::kPrecision));
  pass_records_ = passes->records();
  fused_nodes_ = passes->changes(kEpilogueFusionPass);
  fp16_weights_ = passes->changes(kFp16WeightsPass);
  fp16_activations_ = passes->ran(kFp16ActivationsPass);
  RETURN_IF_ERROR(UploadWeights(graph_, ops_, outputs_, gpu_, weights_, weight_bytes_));
  value_inputs_ = FindValueInputs(graph_, ops_, inputs_, options_.max_fold_elements);
  // Plan once at load so unsupported types and shapes fail here, not on the
  // first request — unless the plan depends on values a request brings.
  if (has_value_inputs() || !options_.plan_at_load) return absl::OkStatus();
  return GetPlan(DefaultInputShapes()).status();
}

bool Model::has_value_inputs() const {
  return std::find(value_inputs_.begin(), value_inputs_.end(), true) != value_inputs_.end();
}

std::vector<std::vector<int64_t>> Model::DefaultInputShapes() const {
  std::vector<std::vector<int64_t>> shapes;
  for (const ValueInfo& in : inputs_) {
    auto hint = options_.default_input_shapes.find(in.name);
    const bool hinted =
        hint != options_.default_input_shapes.end() && hint->second.size() == in.type.shape.size();
    std::vector<int64_t> s;
    for (size_t k = 0; k < in.type.shape.size(); ++k) {
      const Dim& d = in.type.shape[k];
      s.push_back(d.is_fixed() ? d.value : hinted ? hint->second[k] : 1);
    }
    shapes.push_back(std::move(s));
  }
  return shapes;
}

absl::Status Model::PrepareSplit(int sync_node) {
  ASSIGN_OR_RETURN(std::unique_ptr<SyncSplit> split,
                   SplitAtSyncPoint(graph_, inputs_, ops_, sync_node, gpu_, [&] {
                     ModelOptions o = options_;
                     o.cache_budget = budget_;  // one budget for both parts
                     return o;
                   }()));
  value_inputs_.assign(inputs_.size(), false);
  for (size_t j = 0; j < split->prefix_inputs.size(); ++j) {
    if (split->prefix->is_value_input(j)) value_inputs_[split->prefix_inputs[j]] = true;
  }
  for (size_t k = 0; k < split->suffix_inputs.size(); ++k) {
    const SyncSplit::Source& from = split->suffix_inputs[k];
    if (!from.from_prefix && split->suffix != nullptr && split->suffix->is_value_input(k))
      value_inputs_[from.index] = true;
  }
  weight_bytes_ = split->prefix->weight_bytes();
  fused_nodes_ = split->prefix->fused_nodes();
  if (split->suffix != nullptr) {
    weight_bytes_ += split->suffix->weight_bytes();
    fused_nodes_ += split->suffix->fused_nodes();
  }
  split_ = std::move(split);
  return absl::OkStatus();
}

bool Model::HasPlan(const std::vector<std::vector<int64_t>>& input_shapes) const {
  if (split_ != nullptr || has_value_inputs() || input_shapes.size() != inputs_.size())
    return false;
  return plans_->Contains(ShapeKey(input_shapes));
}

absl::StatusOr<std::shared_ptr<const Plan>> Model::GetPlan(
    const std::vector<std::vector<int64_t>>& input_shapes, const InputValues& input_values) const {
  if (split_ != nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("the model runs in two parts around the sync point of ", split_->op_type, " '",
                     split_->node_name, "': it has no single plan"));
  }
  if (input_shapes.size() != inputs_.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected ", inputs_.size(), " input shapes, got ", input_shapes.size()));
  }
  for (size_t i = 0; i < inputs_.size(); ++i) {
    const auto& declared = inputs_[i].type.shape;
    const auto& shape = input_shapes[i];
    bool ok = declared.size() == shape.size();
    for (size_t d = 0; ok && d < shape.size(); ++d) {
      ok = shape[d] >= 0 && (!declared[d].is_fixed() || declared[d].value == shape[d]);
    }
    if (!ok) {
      return absl::InvalidArgumentError(absl::StrCat("input '", inputs_[i].name, "' has shape ",
                                                     ShapeString(shape), ", model expects ",
                                                     DescribeType(inputs_[i].type)));
    }
  }
  // Value inputs: their data joins the key (raw bytes, so equal values of one
  // dtype share a plan).
  std::string key = ShapeKey(input_shapes);
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (!is_value_input(i)) continue;
    const HostTensor* v = i < input_values.size() ? input_values[i].get() : nullptr;
    if (v == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("input '", inputs_[i].name,
                       "' sets shapes or bounds of the model: its values are "
                       "needed, in host memory, to plan"));
    }
    if (v->dtype != inputs_[i].type.dtype || v->shape != input_shapes[i] ||
        v->data.size() != static_cast<size_t>(NumElements(v->shape)) * DataTypeSize(v->dtype)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input '", inputs_[i].name, "': its values do not match its type and shape"));
    }
    absl::StrAppend(&key, "|", i, ":",
                    std::string(reinterpret_cast<const char*>(v->data.data()), v->data.size()));
  }
  return plans_->GetOrBuild(key,
                            [&] { return BuildPlan(plan_inputs(), input_shapes, input_values); });
}

size_t Model::cached_plan_count() const { return plans_->size(); }

PlanInputs Model::plan_inputs() const {
  return PlanInputs{graph_,
                    ops_,
                    inputs_,
                    outputs_,
                    weights_,
                    gpu_,
                    options_.max_fold_elements,
                    fp16_activations_,
                    halved_};
}

const gpu::Buffer* Model::weight(const std::string& name) const {
  auto it = weights_.find(name);
  return it == weights_.end() ? nullptr : &it->second;
}

absl::StatusOr<ModelReport> Model::Inspect(
    const std::vector<std::vector<int64_t>>* input_shapes) const {
  const std::vector<std::vector<int64_t>> shapes =
      input_shapes != nullptr ? *input_shapes : DefaultInputShapes();
  if (split_ != nullptr) return InspectSplit(shapes);
  ASSIGN_OR_RETURN(std::shared_ptr<const Plan> plan, GetPlan(shapes));
  ModelReport report;
  report.inputs = inputs_;
  report.outputs = outputs_;
  report.arena_bytes = plan->arena_bytes;
  report.tensor_bytes_total = plan->tensor_bytes_total;
  report.weight_bytes = weight_bytes_;
  report.signature = plan->signature;
  report.plan_cost = PlanCache::Cost(*plan, graph_);
  report.cached_plans = plans_->size();
  report.cache_limits = budget_->limits();
  report.fused_nodes = fused_nodes_;
  report.format = graph_.format;
  report.ort_format_version = graph_.ort_format_version;
  report.stored_nodes = TraceStoredNodes(stored_nodes_, *plan);
  report.passes = pass_records_;
  for (const PlannedNode& n : plan->nodes) {
    NodeReport r;
    r.name = n.node->name;
    r.op_type = FusedOpName(*n.node);
    r.domain = n.node->domain.empty() ? "ai.onnx" : n.node->domain;
    r.opset = n.node->opset;
    switch (n.kind) {
      case PlannedNode::Kind::kKernel:
        r.device = "gpu";
        if (n.kernel) r.kernel = n.kernel->Describe();
        break;
      case PlannedNode::Kind::kAlias:
        r.device = "gpu (alias: no dispatch)";
        break;
      case PlannedNode::Kind::kFolded:
        r.device = "gpu (folded at load: no dispatch)";
        break;
      case PlannedNode::Kind::kUnread:
        r.device = "gpu (only its shapes are read: no dispatch)";
        break;
    }
    for (size_t i = 0; i < n.node->inputs.size(); ++i) {
      const std::string& name = n.node->inputs[i];
      if (name.empty()) continue;
      for (const PlannedValue& v : plan->values) {
        if (v.name == name) r.inputs.push_back(absl::StrCat(name, ": ", v.desc.ToString()));
      }
    }
    for (int o : n.outputs) {
      if (o >= 0) {
        r.outputs.push_back(
            absl::StrCat(plan->values[o].name, ": ", plan->values[o].desc.ToString()));
      }
    }
    ++report.op_counts[r.op_type];
    ++report.gpu_nodes;
    report.nodes.push_back(std::move(r));
  }
  return report;
}

// The prefix's report at `input_shapes` and the suffix's at the count's
// bound (n = its largest value), with the sync point between them.
absl::StatusOr<ModelReport> Model::InspectSplit(
    const std::vector<std::vector<int64_t>>& input_shapes) const {
  const SyncSplit& split = *split_;
  std::vector<std::vector<int64_t>> prefix_shapes;
  for (int i : split.prefix_inputs) prefix_shapes.push_back(input_shapes[i]);
  ASSIGN_OR_RETURN(ModelReport report, split.prefix->Inspect(&prefix_shapes));
  // This model's passes, then each part's.
  std::vector<PassRecord> passes = pass_records_;
  for (PassRecord& r : report.passes) r.part = "before the sync point";
  passes.insert(passes.end(), report.passes.begin(), report.passes.end());
  if (split.suffix != nullptr) {
    for (PassRecord r : split.suffix->pass_records()) {
      r.part = "after the sync point";
      passes.push_back(std::move(r));
    }
  }
  report.passes = std::move(passes);
  ASSIGN_OR_RETURN(std::shared_ptr<const Plan> plan, split.prefix->GetPlan(prefix_shapes));
  std::vector<std::vector<int64_t>> suffix_shapes;
  for (const SyncSplit::Source& from : split.suffix_inputs) {
    suffix_shapes.push_back(from.from_prefix
                                ? plan->values[plan->output_values[from.index]].desc.shape
                                : input_shapes[from.index]);
  }
  if (split.kind == SyncSplit::Kind::kControl) {
    report.sync_points.push_back(absl::StrCat(
        split.op_type, " '", split.node_name,
        "': holds a sync point in its subgraph; the run reads back its condition or trip count "
        "(known when the part before it is planned), then runs the rest with the node resolved "
        "for it (a variant made on first use)"));
  } else {
    report.sync_points.push_back(absl::StrCat(split.op_type, " '", split.node_name,
                                              "': the run reads back its output count, then runs "
                                              "the rest planned (and recorded) for that shape"));
  }
  absl::StatusOr<ModelReport> rest =
      split.suffix != nullptr ? split.suffix->Inspect(&suffix_shapes)
                              : absl::StatusOr<ModelReport>(absl::UnavailableError("made per run"));
  if (rest.ok()) {
    for (NodeReport& n : rest->nodes) report.nodes.push_back(std::move(n));
    for (const auto& [op, count] : rest->op_counts) report.op_counts[op] += count;
    report.gpu_nodes += rest->gpu_nodes;
    report.arena_bytes = std::max(report.arena_bytes, rest->arena_bytes);
    report.tensor_bytes_total += rest->tensor_bytes_total;
    for (std::string& s : rest->sync_points) report.sync_points.push_back(std::move(s));
    for (StoredNodeReport& n : rest->stored_nodes) report.stored_nodes.push_back(std::move(n));
  } else if (split.suffix != nullptr) {
    report.sync_points.back() +=
        absl::StrCat(" (the rest, planned at the count's bound: ", rest.status().message(), ")");
  }
  report.inputs = inputs_;
  report.outputs = outputs_;
  report.weight_bytes = weight_bytes_;
  report.fused_nodes = fused_nodes_;
  report.format = graph_.format;
  report.ort_format_version = graph_.ort_format_version;
  return report;
}

}  // namespace vkserve
