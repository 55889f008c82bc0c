// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/plan/planner.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/parallel_for.h"
#include "gpu/transfer.h"
#include "runtime/kernels/tensor_cores.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"
#include "runtime/plan/fp16_activations.h"
#include "runtime/plan/memory_planner.h"
#include "shaders/shader_registry.h"

namespace vkserve {
namespace {

uint64_t AlignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// A HostTensor owned elsewhere (the model's graph), shared without a copy.
std::shared_ptr<const HostTensor> Borrow(const HostTensor& t) {
  return std::shared_ptr<const HostTensor>(&t, [](const HostTensor*) {});
}

// Shape inference and folding over the whole graph: the common first half of
// planning.
struct Inference {
  std::vector<PlannedValue> values;
  std::map<std::string, int> ids;
  std::vector<PlannedNode> nodes;
  // Nodes control-flow ops emitted (PlannedNode::node points into them).
  std::vector<std::unique_ptr<const Node>> owned_nodes;
};

// A value input's elements for the plan signature: "{0,2}" (numbers as the
// planner reads them; at most 64, then "...").
std::string ValueString(const HostTensor& t) {
  std::vector<std::string> parts;
  const int64_t n = t.num_elements();
  const bool is_float = t.dtype == DataType::kFloat || t.dtype == DataType::kDouble ||
                        t.dtype == DataType::kFloat16 || t.dtype == DataType::kBFloat16;
  for (int64_t i = 0; i < n && i < 64; ++i) {
    parts.push_back(is_float ? absl::StrCat(t.GetDouble(i)) : absl::StrCat(t.GetInt(i)));
  }
  if (n > 64) parts.push_back("...");
  return absl::StrCat("{", absl::StrJoin(parts, ","), "}");
}

// Nodes a plan may hold after control-flow ops expanded (bounds the plan's
// memory: a Loop unrolled over a huge trip count is refused, naming it).
constexpr size_t kMaxPlannedNodes = 200000;

// Infers nodes one at a time into an Inference; control-flow nodes expand
// into the nodes they emit, which it infers in turn.
class Inferrer {
 public:
  // `fp16` (may be null): FP16 precision's fp16 activations, applied to
  // every node inferred.
  Inferrer(Inference* inf, int64_t max_fold_elements, Fp16Activations* fp16)
      : inf_(inf), max_fold_elements_(max_fold_elements), fp16_(fp16) {}

  absl::Status InferNode(const Node& node, const Op* op);

 private:
  class Expansion;

  // InferNode without the fp16 rewrite.
  absl::Status InferAsIs(const Node& node, const Op* op);
  // Points `ctx` at the descriptions of `node`'s inputs and records their
  // value ids in `planned` (-1 for an absent optional input).
  absl::Status BindInputs(const Node& node, InferContext* ctx, PlannedNode* planned) const;
  // Adds `node`'s inferred outputs as values, their ids to `planned`;
  // `*all_folded` ends false unless every output is a constant.
  absl::Status AddOutputs(const Node& node, const InferContext& ctx, PlannedNode* planned,
                          bool* all_folded);
  // Infers `node`, which the plan then owns; `op` null: found by its type.
  absl::Status InferOwned(Node node, const Op* op, const Node& origin);
  // Takes `node`, which `origin` brought, into the plan, whose nodes are
  // bounded (kMaxPlannedNodes).
  absl::StatusOr<const Node*> Own(Node node, const Node& origin);
  const TensorDesc* Find(const std::string& name) const {
    auto it = inf_->ids.find(name);
    return it == inf_->ids.end() ? nullptr : &inf_->values[it->second].desc;
  }

  int AddValue(const std::string& name, TensorDesc desc) {
    inf_->ids[name] = static_cast<int>(inf_->values.size());
    PlannedValue v;
    v.name = name;
    v.desc = std::move(desc);
    inf_->values.push_back(std::move(v));
    return static_cast<int>(inf_->values.size() - 1);
  }

  Inference* inf_;
  int64_t max_fold_elements_;
  Fp16Activations* fp16_;
};

class Inferrer::Expansion : public ExpandContext {
 public:
  Expansion(Inferrer* inferrer, const Node& node) : inferrer_(inferrer), node_(node) {}
  const Node& node() const override { return node_; }
  const TensorDesc* Find(const std::string& name) const override { return inferrer_->Find(name); }
  absl::Status Emit(Node node) override {
    node.rewritten_from = node_.rewritten_from.empty() ? node_.name : node_.rewritten_from;
    return inferrer_->InferOwned(std::move(node), nullptr, node_);
  }
  std::string NewName(const std::string& hint) override {
    std::string name = hint;
    for (int i = 1; inferrer_->inf_->ids.contains(name) || taken_.contains(name); ++i) {
      name = absl::StrCat(hint, "_", i);
    }
    taken_.insert(name);
    return name;
  }

 private:
  Inferrer* inferrer_;
  const Node& node_;
  std::set<std::string> taken_;
};

absl::StatusOr<const Node*> Inferrer::Own(Node node, const Node& origin) {
  if (inf_->nodes.size() + inf_->owned_nodes.size() >= kMaxPlannedNodes) {
    return absl::UnimplementedError(absl::StrCat(NodeErrorPrefix(origin), "expands into more than ",
                                                 kMaxPlannedNodes, " nodes"));
  }
  inf_->owned_nodes.push_back(std::make_unique<const Node>(std::move(node)));
  return inf_->owned_nodes.back().get();
}

absl::Status Inferrer::InferOwned(Node node, const Op* op, const Node& origin) {
  if (op == nullptr) {
    ASSIGN_OR_RETURN(op, OpRegistry::Global().Find(node));
    if (absl::Status valid = op->Validate(node); !valid.ok()) return AnnotateNodeError(node, valid);
  }
  ASSIGN_OR_RETURN(const Node* owned, Own(std::move(node), origin));
  return InferNode(*owned, op);
}

absl::Status Inferrer::InferNode(const Node& node, const Op* op) {
  if (fp16_ == nullptr || op->expands() || Fp16Activations::IsOwn(node)) return InferAsIs(node, op);
  const auto find = [this](const std::string& name) { return Find(name); };
  std::optional<Fp16Activations::Rewrite> rewrite = fp16_->Plan(node, *op, find);
  const Node* planned = &node;
  if (rewrite.has_value()) {
    for (Node& cast : rewrite->before) RETURN_IF_ERROR(InferOwned(std::move(cast), nullptr, node));
    ASSIGN_OR_RETURN(planned, Own(std::move(rewrite->node), node));
  }
  RETURN_IF_ERROR(InferAsIs(*planned, op));
  for (Node& cast : fp16_->Finish(*planned, *op, find)) {
    RETURN_IF_ERROR(InferOwned(std::move(cast), nullptr, node));
  }
  return absl::OkStatus();
}

absl::Status Inferrer::BindInputs(const Node& node, InferContext* ctx, PlannedNode* planned) const {
  for (const std::string& in : node.inputs) {
    if (in.empty()) {
      ctx->inputs.push_back(nullptr);
      planned->inputs.push_back(-1);
      continue;
    }
    auto it = inf_->ids.find(in);
    if (it == inf_->ids.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat(NodeErrorPrefix(node), "input '", in, "' is not defined before use"));
    }
    ctx->inputs.push_back(&inf_->values[it->second].desc);
    planned->inputs.push_back(it->second);
  }
  return absl::OkStatus();
}

absl::Status Inferrer::AddOutputs(const Node& node, const InferContext& ctx, PlannedNode* planned,
                                  bool* all_folded) {
  *all_folded = !node.outputs.empty();
  for (size_t o = 0; o < node.outputs.size(); ++o) {
    const TensorDesc& out = ctx.outputs[o];
    if (node.outputs[o].empty()) {
      planned->outputs.push_back(-1);
      continue;
    }
    if (DataTypeSize(out.dtype) == 0) {
      return absl::UnimplementedError(
          absl::StrCat(NodeErrorPrefix(node), "output '", node.outputs[o], "' has type ",
                       std::string(DataTypeName(out.dtype)), ", which vkserve does not run"));
    }
    for (int64_t d : out.shape) {
      if (d < 0) {
        return absl::InternalError(absl::StrCat(NodeErrorPrefix(node), "inferred shape ",
                                                ShapeString(out.shape), " is negative"));
      }
    }
    if (out.value == nullptr) *all_folded = false;
    planned->outputs.push_back(AddValue(node.outputs[o], out));
  }
  return absl::OkStatus();
}

absl::Status Inferrer::InferAsIs(const Node& node, const Op* op) {
  if (op->expands()) {
    Expansion expansion(this, node);
    absl::Status status = op->Expand(expansion);
    return status.ok() ? status : AnnotateNodeError(node, status);
  }
  InferContext ctx{node, {}, {}, max_fold_elements_};
  PlannedNode planned;
  planned.node = &node;
  planned.op = op;
  RETURN_IF_ERROR(BindInputs(node, &ctx, &planned));
  ctx.outputs.resize(node.outputs.size());
  absl::Status status = op->Infer(ctx);
  if (!status.ok()) return AnnotateNodeError(node, status);
  // Asked now: ctx.inputs point into inf_->values, which adding the outputs
  // below may reallocate.
  const int alias = op->AliasedInput(ctx);
  bool all_folded = false;
  RETURN_IF_ERROR(AddOutputs(node, ctx, &planned, &all_folded));
  // Host inputs are read at plan time and never bound on the GPU.
  for (size_t i = 0; i < planned.inputs.size(); ++i) {
    if (planned.inputs[i] >= 0 && op->IsHostInput(node, i)) planned.inputs[i] = -1;
  }
  if (all_folded) {
    planned.kind = PlannedNode::Kind::kFolded;
  } else if (alias >= 0 && static_cast<size_t>(alias) < planned.inputs.size() &&
             planned.inputs[alias] >= 0) {
    planned.kind = PlannedNode::Kind::kAlias;
    planned.alias_input = alias;
  }
  inf_->nodes.push_back(std::move(planned));
  return absl::OkStatus();
}

absl::StatusOr<Inference> Infer(const Graph& graph, const std::vector<const Op*>& ops,
                                const std::vector<ValueInfo>& inputs,
                                const std::vector<std::vector<int64_t>>& input_shapes,
                                int64_t max_fold_elements = kMaxFoldElements,
                                const InputValues& input_values = {},
                                Fp16Activations* fp16 = nullptr) {
  Inference inf;
  auto add_value = [&inf](const std::string& name, TensorDesc desc) {
    inf.ids[name] = static_cast<int>(inf.values.size());
    PlannedValue v;
    v.name = name;
    v.desc = std::move(desc);
    inf.values.push_back(std::move(v));
    return static_cast<int>(inf.values.size() - 1);
  };
  for (const auto& [name, tensor] : graph.initializers) {
    add_value(name, TensorDesc{tensor.dtype, tensor.shape, Borrow(tensor)});
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    add_value(inputs[i].name, TensorDesc{inputs[i].type.dtype, input_shapes[i],
                                         i < input_values.size() ? input_values[i] : nullptr});
  }
  Inferrer inferrer(&inf, max_fold_elements, fp16);
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    RETURN_IF_ERROR(inferrer.InferNode(graph.nodes[n], ops[n]));
  }
  return inf;
}

// KernelContext over one planned node; its constants go to the node's own
// list (CreateKernels numbers them plan-wide afterwards).
class PlannerKernelContext : public KernelContext {
 public:
  PlannerKernelContext(const PlanInputs& model, const Inference& inf, const PlannedNode& planned,
                       std::vector<std::vector<uint8_t>>* constants)
      : model_(model), inf_(inf), planned_(planned), constants_(constants) {}

  const Node& node() const override { return *planned_.node; }
  const TensorDesc* input(size_t i) const override {
    if (i >= planned_.node->inputs.size() || planned_.node->inputs[i].empty()) return nullptr;
    return &inf_.values[inf_.ids.at(planned_.node->inputs[i])].desc;
  }
  size_t num_inputs() const override { return planned_.node->inputs.size(); }
  const TensorDesc& output(size_t i) const override {
    static const TensorDesc kOmitted;  // an omitted optional output
    if (i >= planned_.outputs.size() || planned_.outputs[i] < 0) return kOmitted;
    return inf_.values[planned_.outputs[i]].desc;
  }
  size_t num_outputs() const override { return planned_.outputs.size(); }
  const gpu::Device& device() const override { return *model_.gpu.device; }

  absl::StatusOr<std::shared_ptr<const gpu::Pipeline>> GetPipeline(
      std::string_view shader, uint32_t num_bindings, uint32_t push_constant_bytes,
      std::array<uint32_t, 3> local_size, std::vector<uint32_t> spec_constants) override {
    gpu::PipelineDesc desc;
    desc.name = std::string(shader);
    desc.spirv = shaders::Find(shader);
    if (desc.spirv.empty()) {
      return absl::InternalError(absl::StrCat("no embedded shader '", std::string(shader), "'"));
    }
    desc.num_bindings = num_bindings;
    desc.push_constant_bytes = push_constant_bytes;
    desc.local_size = local_size;
    desc.spec_constants = std::move(spec_constants);
    if (shaders::UsesCooperativeMatrix(desc.spirv)) {
      desc.required_subgroup_size = kTensorCoreSubgroupSize;
    }
    return model_.gpu.pipelines->Get(desc);
  }
  uint32_t RequestScratch(uint64_t bytes) override {
    scratch_.push_back(bytes);
    return static_cast<uint32_t>(scratch_.size() - 1);
  }
  uint32_t AddConstant(std::vector<uint8_t> bytes) override {
    constants_->push_back(std::move(bytes));
    return static_cast<uint32_t>(constants_->size() - 1);
  }

  std::vector<uint64_t> scratch_;

 private:
  const PlanInputs& model_;
  const Inference& inf_;
  const PlannedNode& planned_;
  std::vector<std::vector<uint8_t>>* constants_;
};

// Kernels bind every tensor whole: one larger than maxStorageBufferRange
// would be undefined behaviour on the GPU, so the plan refuses it, naming it.
absl::Status CheckBindable(const PlanInputs& model, const std::string& name,
                           const TensorDesc& desc) {
  const uint64_t limit = model.gpu.device->info().max_storage_buffer_range;
  if (desc.byte_size() <= limit) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "tensor '", name, "' (", desc.ToString(), ", ", desc.byte_size(),
      " bytes) is larger than the device binds at once (maxStorageBufferRange ", limit, " bytes)"));
}

}  // namespace

std::string NodeErrorPrefix(const Node& node) {
  return absl::StrCat(node.op_type, " (node '", node.name, "', domain '",
                      node.domain.empty() ? "ai.onnx" : node.domain, "', opset ", node.opset,
                      "): ");
}

absl::Status AnnotateNodeError(const Node& node, const absl::Status& status) {
  return absl::Status(status.code(),
                      absl::StrCat(NodeErrorPrefix(node), std::string(status.message())));
}

absl::StatusOr<std::map<std::string, TensorDesc>> InferShapes(
    const Graph& graph, const std::vector<const Op*>& ops, const std::vector<ValueInfo>& inputs,
    const std::vector<std::vector<int64_t>>& input_shapes) {
  ASSIGN_OR_RETURN(Inference inf, Infer(graph, ops, inputs, input_shapes));
  std::map<std::string, TensorDesc> out;
  for (PlannedValue& v : inf.values) out[v.name] = std::move(v.desc);
  return out;
}

namespace {

// What BuildPlan's steps share: the inferred graph, the plan being filled,
// and what the steps learn about each value on the way.
struct PlanBuild {
  PlanBuild(const PlanInputs& m, Inference i, Plan* p)
      : model(m),
        inf(std::move(i)),
        plan(p),
        last_use(inf.values.size(), -1),
        first_def(inf.values.size(), -1),
        on_gpu(inf.values.size(), false) {}
  int steps() const { return static_cast<int>(inf.nodes.size()); }
  int root_of(int v) const { return inf.values[v].alias_root >= 0 ? inf.values[v].alias_root : v; }

  const PlanInputs& model;
  Inference inf;
  Plan* plan;
  std::vector<int> last_use;                    // per value: the last step whose kernel reads it
  std::vector<int> first_def;                   // per value: the step whose kernel writes it
  std::vector<bool> on_gpu;                     // per value: read by the GPU
  std::vector<std::vector<uint8_t>> constants;  // bytes the constants buffer holds
  // Arena requests, each a value's (>= 0) or a step's scratch (-1 - step).
  std::vector<MemoryRequest> requests;
  std::vector<int> request_value;
};

std::string PlanSignature(const PlanInputs& model,
                          const std::vector<std::vector<int64_t>>& input_shapes,
                          const InputValues& input_values) {
  std::vector<std::string> sig;
  for (size_t i = 0; i < model.inputs.size(); ++i) {
    sig.push_back(absl::StrCat(model.inputs[i].name, "=", ShapeString(input_shapes[i])));
    if (i < input_values.size() && input_values[i] != nullptr) {
      sig.back() += ValueString(*input_values[i]);  // "axes=[2]{0,2}"
    }
  }
  return absl::StrJoin(sig, ",");
}

// Aliases share their root's bytes.
absl::Status ResolveAliases(PlanBuild& b) {
  for (PlannedNode& n : b.inf.nodes) {
    if (n.kind != PlannedNode::Kind::kAlias) continue;
    const int src =
        static_cast<size_t>(n.alias_input) < n.inputs.size() ? n.inputs[n.alias_input] : -1;
    if (src < 0) return absl::InternalError(NodeErrorPrefix(*n.node) + "alias without input");
    if (n.outputs[0] >= 0) b.inf.values[n.outputs[0]].alias_root = b.root_of(src);
  }
  return absl::OkStatus();
}

// Kernels and aliases whose outputs no model output needs, read by nothing
// on the GPU: only host-folded nodes read them (Shape, Size), for shapes
// the plan knows. They become kUnread and get no kernel. The TorchScript
// exporter reads GPT-2's Q/K/V Split outputs so, which keeps the Split in
// the graph after the fused attention took its input whole
// (runtime/passes/qkv_packing.h).
void DropUnreadNodes(PlanBuild& b) {
  std::vector<bool> needed(b.inf.values.size(), false);
  for (const ValueInfo& out : b.model.outputs) {
    auto it = b.inf.ids.find(out.name);
    if (it != b.inf.ids.end()) needed[it->second] = true;
  }
  for (int step = b.steps() - 1; step >= 0; --step) {
    PlannedNode& n = b.inf.nodes[step];
    if (n.kind == PlannedNode::Kind::kFolded) continue;
    bool read = false;
    for (int out : n.outputs) read = read || (out >= 0 && needed[out]);
    if (!read) {
      n.kind = PlannedNode::Kind::kUnread;
      continue;
    }
    for (int in : n.inputs) {
      if (in >= 0) needed[in] = true;
    }
  }
}

// Which values the GPU reads, and until when; which step writes each.
void MarkGpuUses(PlanBuild& b) {
  for (int step = 0; step < b.steps(); ++step) {
    const PlannedNode& n = b.inf.nodes[step];
    if (n.kind == PlannedNode::Kind::kFolded || n.kind == PlannedNode::Kind::kUnread) continue;
    for (int in : n.inputs) {
      if (in < 0) continue;
      const int r = b.root_of(in);
      b.on_gpu[r] = true;
      b.last_use[r] = std::max(b.last_use[r], step);
    }
    for (int out : n.outputs) {
      if (out >= 0 && n.kind == PlannedNode::Kind::kKernel) b.first_def[out] = step;
    }
  }
}

// Model outputs a kernel writes get their own IO buffer, and so do the
// kernel-written roots of aliased outputs; the rest (inputs, constants,
// weights, a root claimed twice) are copied there after the last node.
// Model inputs are bound to theirs.
absl::Status BindModelIo(PlanBuild& b) {
  std::vector<PlannedValue>& values = b.inf.values;
  const auto& model_outputs = b.model.outputs;
  std::vector<bool> claimed(values.size(), false);
  for (size_t o = 0; o < model_outputs.size(); ++o) {
    auto it = b.inf.ids.find(model_outputs[o].name);
    if (it == b.inf.ids.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("graph output '", model_outputs[o].name, "' is never produced"));
    }
    b.plan->output_values.push_back(it->second);
  }
  // Outputs a kernel writes first, then aliases of what a kernel writes
  // (a Reshape of it, or a Concat with one non-empty input): the aliased
  // bytes are kept in the output's buffer itself, when no output claimed them.
  std::vector<bool> bound(model_outputs.size(), false);
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t o = 0; o < model_outputs.size(); ++o) {
      const int v = b.plan->output_values[o];
      const int r = b.root_of(v);
      const bool direct = pass == 0 && r == v;
      const bool aliased =
          pass == 1 && r != v && values[r].desc.byte_size() == values[v].desc.byte_size();
      if (bound[o] || b.first_def[r] < 0 || claimed[r] || !(direct || aliased)) continue;
      claimed[r] = bound[o] = true;
      values[r].storage = PlannedValue::Storage::kOutput;
      values[r].io_index = static_cast<int>(o);
    }
  }
  for (size_t o = 0; o < model_outputs.size(); ++o) {
    if (bound[o]) continue;
    const int v = b.plan->output_values[o];
    b.plan->output_copies.push_back({static_cast<int>(o), v});
    const int r = b.root_of(v);
    b.on_gpu[r] = true;
    b.last_use[r] = b.steps();  // read by the copy after the last node
  }
  for (size_t i = 0; i < b.model.inputs.size(); ++i) {
    const int v = b.inf.ids.at(b.model.inputs[i].name);
    values[v].storage = PlannedValue::Storage::kInput;
    values[v].io_index = static_cast<int>(i);
    b.plan->input_values.push_back(v);
  }
  return absl::OkStatus();
}

// Storage for everything else the GPU reads or kernels write: weights,
// arena ranges (requested here, laid out later), constants.
absl::Status AssignStorage(PlanBuild& b) {
  const Graph& graph = b.model.graph;
  for (size_t v = 0; v < b.inf.values.size(); ++v) {
    PlannedValue& pv = b.inf.values[v];
    if (pv.alias_root >= 0 || pv.storage != PlannedValue::Storage::kHostOnly) continue;
    if (pv.desc.byte_size() == 0) continue;  // bound to a placeholder, never read
    if (graph.initializers.count(pv.name) && b.on_gpu[v]) {
      if (b.model.weights.count(pv.name) == 0) {
        return absl::InternalError(absl::StrCat("initializer '", pv.name, "' was not uploaded"));
      }
      pv.storage = PlannedValue::Storage::kWeight;
    } else if (b.first_def[v] >= 0) {
      RETURN_IF_ERROR(CheckBindable(b.model, pv.name, pv.desc));
      pv.storage = PlannedValue::Storage::kArena;
      b.requests.push_back(
          {pv.desc.byte_size(), b.first_def[v], std::max(b.first_def[v], b.last_use[v])});
      b.request_value.push_back(static_cast<int>(v));
    } else if (b.on_gpu[v] && pv.desc.value != nullptr) {
      pv.storage = PlannedValue::Storage::kConstant;
      b.constants.push_back(pv.desc.value->data.ToVector());
      pv.io_index = static_cast<int>(b.constants.size() - 1);  // constant index until laid out
    }
  }
  return absl::OkStatus();
}

// Each kernel node's kernel; they may add scratch (arena requests) and
// constants. Kernels are created in parallel, because creating one compiles
// its pipelines (a second or more each on some drivers, the bulk of a cold
// load); their scratch and constants are then added in node order, so a
// plan does not depend on which thread made what, and the first failing
// node in order is the one reported.
absl::Status CreateKernels(PlanBuild& b) {
  const uint64_t max_range = b.model.gpu.device->info().max_storage_buffer_range;
  std::vector<int> kernel_steps;
  for (int step = 0; step < b.steps(); ++step) {
    switch (b.inf.nodes[step].kind) {
      case PlannedNode::Kind::kFolded:
        ++b.plan->folded_nodes;
        break;
      case PlannedNode::Kind::kAlias:
        ++b.plan->alias_nodes;
        break;
      case PlannedNode::Kind::kUnread:
        ++b.plan->unread_nodes;
        break;
      default:
        kernel_steps.push_back(step);
    }
  }
  struct Made {
    absl::Status status;
    std::vector<uint64_t> scratch;
    std::vector<std::vector<uint8_t>> constants;
  };
  std::vector<Made> made(kernel_steps.size());
  ParallelFor(static_cast<int>(kernel_steps.size()), [&](int k) {
    PlannedNode& n = b.inf.nodes[kernel_steps[k]];
    PlannerKernelContext ctx(b.model, b.inf, n, &made[k].constants);
    auto kernel = n.op->CreateKernel(ctx);
    if (!kernel.ok()) {
      made[k].status = AnnotateNodeError(*n.node, kernel.status());
      return;
    }
    n.kernel = std::move(kernel).value();
    made[k].scratch = std::move(ctx.scratch_);
  });
  for (size_t k = 0; k < kernel_steps.size(); ++k) {
    const int step = kernel_steps[k];
    PlannedNode& n = b.inf.nodes[step];
    RETURN_IF_ERROR(made[k].status);
    for (uint64_t bytes : made[k].scratch) {
      if (bytes > max_range) {
        return absl::InvalidArgumentError(absl::StrCat(NodeErrorPrefix(*n.node), "needs ", bytes,
                                                       " bytes of scratch, more than the device "
                                                       "binds at once (maxStorageBufferRange ",
                                                       max_range, " bytes)"));
      }
      n.scratch_sizes.push_back(bytes);
      b.requests.push_back({bytes, step, step});
      b.request_value.push_back(-1 - step);  // scratch of `step`
    }
    // The kernel's constant i becomes the plan's constant n.constants[i].
    for (std::vector<uint8_t>& bytes : made[k].constants) {
      n.constants.push_back(static_cast<uint32_t>(b.constants.size()));
      b.constants.push_back(std::move(bytes));
    }
    ++b.plan->kernel_nodes;
  }
  return absl::OkStatus();
}

// Arena offsets for every request (values and scratch).
void LayOutArena(PlanBuild& b, uint64_t alignment) {
  MemoryLayout layout = PlanMemory(b.requests, alignment);
  b.plan->arena_bytes = layout.arena_bytes;
  b.plan->tensor_bytes_total = layout.total_bytes;
  for (size_t r = 0; r < b.requests.size(); ++r) {
    if (b.request_value[r] >= 0) {
      b.inf.values[b.request_value[r]].offset = layout.offsets[r];
    } else {
      b.inf.nodes[-1 - b.request_value[r]].scratch_offsets.push_back(layout.offsets[r]);
    }
  }
}

// Constants: one buffer, each entry aligned, uploaded once.
absl::Status UploadConstants(PlanBuild& b, uint64_t alignment) {
  Plan& plan = *b.plan;
  uint64_t constant_bytes = 0;
  for (const auto& c : b.constants) {
    plan.constant_ranges.push_back({constant_bytes, c.size()});
    constant_bytes = AlignUp(constant_bytes + std::max<uint64_t>(c.size(), 4), alignment);
  }
  if (constant_bytes > 0) {
    const GpuContext& gpu = b.model.gpu;
    ASSIGN_OR_RETURN(plan.constants,
                     gpu.allocator->Allocate(constant_bytes, gpu::MemoryUsage::kDeviceLocal,
                                             gpu::MemoryKind::kWeights));
    std::vector<uint8_t> packed(constant_bytes, 0);
    for (size_t i = 0; i < b.constants.size(); ++i) {
      if (!b.constants[i].empty()) {
        std::memcpy(packed.data() + plan.constant_ranges[i].first, b.constants[i].data(),
                    b.constants[i].size());
      }
    }
    RETURN_IF_ERROR(gpu::Upload(*gpu.allocator, plan.constants, 0, packed));
  }
  for (PlannedValue& pv : b.inf.values) {
    if (pv.storage == PlannedValue::Storage::kConstant) {
      pv.offset = plan.constant_ranges[pv.io_index].first;
      pv.io_index = -1;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::shared_ptr<const Plan>> BuildPlan(
    const PlanInputs& model, const std::vector<std::vector<int64_t>>& input_shapes,
    const InputValues& input_values) {
  std::optional<Fp16Activations> fp16;
  if (model.fp16_activations) fp16.emplace(model.graph, model.outputs, model.halved_initializers);
  ASSIGN_OR_RETURN(Inference inf, Infer(model.graph, model.ops, model.inputs, input_shapes,
                                        model.max_fold_elements, input_values,
                                        fp16.has_value() ? &*fp16 : nullptr));
  auto plan = std::make_shared<Plan>();
  plan->signature = PlanSignature(model, input_shapes, input_values);
  PlanBuild b(model, std::move(inf), plan.get());
  RETURN_IF_ERROR(ResolveAliases(b));
  DropUnreadNodes(b);
  MarkGpuUses(b);
  RETURN_IF_ERROR(BindModelIo(b));
  RETURN_IF_ERROR(AssignStorage(b));
  RETURN_IF_ERROR(CreateKernels(b));
  const uint64_t alignment = std::max<uint64_t>(
      kTensorAlignment, model.gpu.device->info().min_storage_buffer_offset_alignment);
  LayOutArena(b, alignment);
  RETURN_IF_ERROR(UploadConstants(b, alignment));
  plan->values = std::move(b.inf.values);
  plan->nodes = std::move(b.inf.nodes);
  plan->expanded_nodes = std::move(b.inf.owned_nodes);
  return std::shared_ptr<const Plan>(std::move(plan));
}

}  // namespace vkserve
