// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/sync_split.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "runtime/model.h"
#include "runtime/op/op_util.h"
#include "runtime/passes/sync_control_flow.h"
#include "runtime/session.h"

namespace vkserve {
namespace {

bool ReadsSubgraphs(const Node& node) {
  for (const auto& [name, a] : node.attributes) {
    if (!a.graphs.empty()) return true;
  }
  return false;
}

// Values computable at load: initializers and what nodes without subgraphs
// compute from them alone (the data-dependent ops fold on those).
std::set<std::string> ConstantValues(const Graph& graph) {
  std::set<std::string> known;
  for (const auto& [name, t] : graph.initializers) known.insert(name);
  for (const Node& node : graph.nodes) {
    bool all = !ReadsSubgraphs(node);
    for (const std::string& in : node.inputs) all = all && (in.empty() || known.contains(in));
    if (!all) continue;
    for (const std::string& out : node.outputs) {
      if (!out.empty()) known.insert(out);
    }
  }
  return known;
}

// What `node` reads: its inputs and what its subgraphs read from the graph.
std::vector<std::string> NodeReads(const Node& node) {
  std::vector<std::string> read = node.inputs;
  for (const std::string& name : CapturedValues(node)) read.push_back(name);
  return read;
}

// The nodes computing `roots` (values), and what they depend on (flags per
// node).
std::vector<bool> Ancestors(const Graph& graph, const std::vector<std::string>& roots) {
  std::map<std::string, int> producer;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    for (const std::string& out : graph.nodes[n].outputs) {
      if (!out.empty()) producer[out] = static_cast<int>(n);
    }
  }
  std::vector<bool> in_prefix(graph.nodes.size(), false);
  std::vector<int> stack;
  for (const std::string& v : roots) {
    if (auto it = producer.find(v); it != producer.end()) stack.push_back(it->second);
  }
  while (!stack.empty()) {
    const int n = stack.back();
    stack.pop_back();
    if (in_prefix[n]) continue;
    in_prefix[n] = true;
    for (const std::string& in : NodeReads(graph.nodes[n])) {
      if (auto it = producer.find(in); it != producer.end()) stack.push_back(it->second);
    }
  }
  return in_prefix;
}

// A sub-graph of `graph`: `nodes`, the initializers they read, and the
// given inputs and outputs.
Graph SubGraph(const Graph& graph, std::vector<Node> nodes, std::vector<ValueInfo> inputs,
               std::vector<ValueInfo> outputs) {
  Graph g;
  g.opset_imports = graph.opset_imports;
  g.ir_version = graph.ir_version;
  g.producer_name = graph.producer_name;
  g.producer_version = graph.producer_version;
  g.format = graph.format;
  g.ort_format_version = graph.ort_format_version;
  g.value_info = graph.value_info;
  std::set<std::string> read;
  for (const Node& node : nodes) {
    for (const std::string& name : NodeReads(node)) read.insert(name);
  }
  for (const ValueInfo& out : outputs) read.insert(out.name);
  for (const auto& [name, t] : graph.initializers) {
    if (read.contains(name)) g.initializers.emplace(name, t);
  }
  g.nodes = std::move(nodes);
  g.inputs = std::move(inputs);
  g.outputs = std::move(outputs);
  return g;
}

ValueInfo Untyped(const std::string& name) {
  ValueInfo v;
  v.name = name;
  return v;
}

constexpr std::string_view kCountSuffix = "/vkserve_sync_count";

// True for the sync node of a prefix: it already has its count output.
bool IsPrefixSyncNode(const Node& node) {
  return !node.outputs.empty() && node.outputs.back().ends_with(kCountSuffix);
}

// The graph cut after the sync node, or before the control-flow node.
struct Cut {
  std::vector<Node> prefix;  // the sync node (with its count output) and what it depends on
  std::vector<Node> suffix;  // every other node
  // Prefix values the suffix or the graph's outputs read, in first-use order.
  std::vector<std::string> crossing;
};

std::set<std::string> Reads(const std::vector<Node>& nodes) {
  std::set<std::string> read;
  for (const Node& node : nodes) {
    for (const std::string& name : NodeReads(node)) read.insert(name);
  }
  return read;
}

// The most elements of an initializer shape arithmetic reads (an index, an
// axis, a scale), so that no weight is copied into the suffix.
constexpr int64_t kShapeArithmeticConstants = 64;

// The ops shape arithmetic is made of: from shapes (Shape, Size) and
// constants, what they compute folds on the host when a plan is made.
bool IsShapeArithmetic(const Node& node) {
  static const std::set<std::string_view> kOps = {
      "Shape",   "Size",   "Constant", "Identity", "Cast",       "Gather",      "Unsqueeze",
      "Squeeze", "Concat", "Slice",    "Reshape",  "Add",        "Sub",         "Mul",
      "Div",     "Mod",    "Min",      "Max",      "Neg",        "Abs",         "Floor",
      "Ceil",    "Sqrt",   "Equal",    "Less",     "Greater",    "LessOrEqual", "GreaterOrEqual",
      "Not",     "And",    "Or",       "Where",    "ReduceProd", "ReduceMin",   "ReduceMax"};
  return (node.domain.empty() || node.domain == "ai.onnx") && !ReadsSubgraphs(node) &&
         kOps.contains(node.op_type);
}

// The prefix nodes the suffix computes again: those computing, from shapes
// and constants alone, a value the suffix reads (a Reshape's shape from the
// Shape of a prefix value, as torchvision's RPN computes it). Crossing the
// cut, such a value would reach the suffix as GPU data, which it could not
// read on the host to set shapes; computed again there, it folds on the host
// when the suffix is planned, from the shapes of the values crossing.
// `ignored` names reads that do not count (the host inputs of the
// control-flow node a variant replaces by constants).
std::vector<bool> ShapeNodesToRepeat(const Graph& graph, const std::vector<bool>& in_prefix,
                                     const std::set<std::pair<std::string, size_t>>& ignored) {
  std::map<std::string, int> producer;
  std::vector<bool> from_shapes(graph.nodes.size(), false);
  std::set<std::string> shape_values, constants;  // from shapes; Constant nodes'
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const Node& node = graph.nodes[n];
    if (!IsShapeArithmetic(node)) continue;
    bool ok = node.op_type == "Shape" || node.op_type == "Size";
    if (node.op_type == "Constant") {  // small ones: value_ints, or value of few elements
      auto value = node.attributes.find("value");
      ok = value == node.attributes.end() ||
           value->second.t.num_elements() <= kShapeArithmeticConstants;
      if (ok) constants.insert(node.outputs.begin(), node.outputs.end());
    } else if (!ok) {  // over a shape, with small constants
      bool over_shape = false;
      ok = true;
      for (const std::string& in : node.inputs) {
        over_shape = over_shape || shape_values.contains(in);
        auto init = graph.initializers.find(in);
        const bool small = init != graph.initializers.end() &&
                           init->second.num_elements() <= kShapeArithmeticConstants;
        ok = ok && (in.empty() || small || constants.contains(in) || shape_values.contains(in));
      }
      ok = ok && over_shape;
    }
    if (!ok) continue;
    from_shapes[n] = true;
    for (const std::string& out : node.outputs) {
      if (out.empty()) continue;
      if (node.op_type != "Constant") shape_values.insert(out);
      producer[out] = static_cast<int>(n);
    }
  }
  std::vector<bool> repeat(graph.nodes.size(), false);
  std::vector<int> stack;
  auto want = [&](const std::string& value) {
    auto it = producer.find(value);
    if (it != producer.end() && in_prefix[it->second]) stack.push_back(it->second);
  };
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (in_prefix[n]) continue;
    const Node& node = graph.nodes[n];
    std::vector<std::string> reads = NodeReads(node);
    for (size_t i = 0; i < reads.size(); ++i) {
      if (!ignored.contains({node.name, i})) want(reads[i]);
    }
  }
  for (const ValueInfo& out : graph.outputs) want(out.name);
  while (!stack.empty()) {
    const int n = stack.back();
    stack.pop_back();
    if (repeat[n]) continue;
    repeat[n] = true;
    const Node& node = graph.nodes[n];
    if (node.op_type == "Shape" || node.op_type == "Size") continue;  // its input crosses
    for (const std::string& in : node.inputs) want(in);
  }
  return repeat;
}

// The cut of `graph` into the nodes `in_prefix` flags and the others (with
// the shape arithmetic the others read, ShapeNodesToRepeat).
Cut CutBetween(const Graph& graph, const std::vector<bool>& in_prefix,
               const std::set<std::pair<std::string, size_t>>& ignored = {}) {
  Cut cut;
  const std::vector<bool> repeat = ShapeNodesToRepeat(graph, in_prefix, ignored);
  std::set<std::string> prefix_values, suffix_values;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (!in_prefix[n] || repeat[n]) {
      cut.suffix.push_back(graph.nodes[n]);
      for (const std::string& out : graph.nodes[n].outputs) suffix_values.insert(out);
    }
    if (!in_prefix[n]) continue;
    cut.prefix.push_back(graph.nodes[n]);
    for (const std::string& out : graph.nodes[n].outputs) {
      if (!out.empty()) prefix_values.insert(out);
    }
  }
  std::set<std::string> seen;
  auto cross = [&](const std::string& name) {
    if (prefix_values.contains(name) && !suffix_values.contains(name) && seen.insert(name).second)
      cut.crossing.push_back(name);
  };
  for (const Node& node : cut.suffix) {
    for (const std::string& in : NodeReads(node)) cross(in);
  }
  for (const ValueInfo& out : graph.outputs) cross(out.name);
  return cut;
}

absl::StatusOr<Cut> CutAfter(const Graph& graph, int sync_node, size_t count_index,
                             const std::string& count_name) {
  const Node& sync = graph.nodes[sync_node];
  if (sync.outputs.size() > count_index) {
    return absl::InvalidArgumentError(absl::StrCat(sync.Describe(), " has too many outputs"));
  }
  std::vector<std::string> roots(sync.outputs.begin(), sync.outputs.end());
  std::vector<bool> in_prefix = Ancestors(graph, roots);
  in_prefix[sync_node] = true;
  Cut cut = CutBetween(graph, in_prefix);
  for (Node& node : cut.prefix) {
    if (node.name != sync.name) continue;
    node.outputs.resize(count_index);  // omitted optional outputs stay omitted
    node.outputs.push_back(count_name);
  }
  return cut;
}

// The prefix model (its model inputs in, the crossing values and `extra`
// out: the count, or the control-flow node's host inputs) into `split`, and
// its plan at the default input shapes.
absl::StatusOr<std::shared_ptr<const Plan>> BuildPrefix(
    const Graph& graph, const std::vector<ValueInfo>& inputs, const Node& at, Cut& cut,
    const std::vector<std::string>& extra, const GpuContext& gpu, const ModelOptions& options,
    SyncSplit& split) {
  const std::set<std::string> reads = Reads(cut.prefix);
  std::vector<ValueInfo> prefix_in, prefix_out;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!reads.contains(inputs[i].name)) continue;
    split.prefix_inputs.push_back(static_cast<int>(i));
    prefix_in.push_back(inputs[i]);
  }
  for (const std::string& name : cut.crossing) prefix_out.push_back(Untyped(name));
  for (const std::string& name : extra) prefix_out.push_back(Untyped(name));
  ASSIGN_OR_RETURN(split.prefix,
                   Model::FromGraph(SubGraph(graph, std::move(cut.prefix), std::move(prefix_in),
                                             std::move(prefix_out)),
                                    gpu, options));
  if (split.prefix->has_value_inputs()) {
    return absl::UnimplementedError(
        absl::StrCat(at.Describe(),
                     split.kind == SyncSplit::Kind::kCount
                         ? " has data-dependent output shapes and runs at a sync point"
                         : " holds a node that runs at a sync point in its subgraph",
                     "; inputs that set shapes before it are not supported there yet"));
  }
  return split.prefix->GetPlan(split.prefix->DefaultInputShapes());
}

// A suffix model's inputs (`split.suffix_inputs`, `split.dynamic_axis`):
// the model inputs it reads, then the crossing values with every dimension
// symbolic (`dynamic_axis` says which one the count sets).
std::vector<ValueInfo> SuffixInputs(const Graph& graph, const std::vector<ValueInfo>& inputs,
                                    const Op* sync_op, const Node& at, const Cut& cut,
                                    const Plan& prefix_plan, SyncSplit& split) {
  std::set<std::string> reads = Reads(cut.suffix);
  for (const ValueInfo& out : graph.outputs) reads.insert(out.name);
  std::vector<ValueInfo> suffix_in;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!reads.contains(inputs[i].name)) continue;
    split.suffix_inputs.push_back({false, static_cast<int>(i)});
    suffix_in.push_back(inputs[i]);
  }
  for (size_t c = 0; c < cut.crossing.size(); ++c) {
    const PlannedValue& v = prefix_plan.values[prefix_plan.output_values[c]];
    int axis = -1;
    for (size_t o = 0; sync_op != nullptr && o < at.outputs.size(); ++o) {
      if (at.outputs[o] == cut.crossing[c]) {
        axis = sync_op->DataDependentAxis(at, o, v.desc.shape.size());
      }
    }
    split.dynamic_axis.push_back(axis);
    ValueInfo in;
    in.name = cut.crossing[c];
    in.type.dtype = v.desc.dtype;
    in.type.has_shape = true;
    in.type.shape.resize(v.desc.shape.size());      // every dim symbolic
    split.crossing_shapes[in.name] = v.desc.shape;  // at the bound: planned at load there
    split.suffix_inputs.push_back({true, static_cast<int>(c)});
    suffix_in.push_back(std::move(in));
  }
  while (split.dynamic_axis.size() < prefix_plan.output_values.size())
    split.dynamic_axis.push_back(-1);  // the count, or the host inputs
  return suffix_in;
}

// Refuses a suffix (or variant) that reads a crossing value on the host.
absl::Status CheckNoHostReadAcross(const SyncSplit& split, const Model& suffix) {
  for (size_t k = 0; k < split.suffix_inputs.size(); ++k) {
    if (split.suffix_inputs[k].from_prefix && suffix.is_value_input(k)) {
      return absl::UnimplementedError(absl::StrCat(
          "value '", suffix.inputs()[k].name,
          "' is read on the host to set shapes, but is computed on the GPU before the sync point "
          "of ",
          split.op_type, " '", split.node_name,
          "'; vkserve never reads tensor data back in the middle of a run beyond the count"));
    }
  }
  return absl::OkStatus();
}

ModelOptions SuffixOptions(const ModelOptions& options,
                           const std::map<std::string, std::vector<int64_t>>& shapes) {
  ModelOptions suffix_options = options;
  suffix_options.plan_at_load = false;  // plans need the count
  for (const auto& [name, shape] : shapes) suffix_options.default_input_shapes[name] = shape;
  return suffix_options;
}

// A split after data-dependent node `sync_node`.
absl::StatusOr<std::unique_ptr<SyncSplit>> SplitAfter(const Graph& graph,
                                                      const std::vector<ValueInfo>& inputs,
                                                      const Op& sync_op, int sync_node,
                                                      const GpuContext& gpu,
                                                      const ModelOptions& options) {
  const Node& sync = graph.nodes[sync_node];
  auto split = std::make_unique<SyncSplit>();
  split->node_name = sync.name;
  split->op_type = sync.op_type;
  const std::string count_name = absl::StrCat(sync.name, std::string(kCountSuffix));
  const size_t count_index = static_cast<size_t>(sync_op.sync_count_output());
  ASSIGN_OR_RETURN(Cut cut, CutAfter(graph, sync_node, count_index, count_name));
  split->count_output = static_cast<int>(cut.crossing.size());
  ASSIGN_OR_RETURN(std::shared_ptr<const Plan> plan,
                   BuildPrefix(graph, inputs, sync, cut, {count_name}, gpu, options, *split));
  std::vector<ValueInfo> suffix_in =
      SuffixInputs(graph, inputs, &sync_op, sync, cut, *plan, *split);
  ASSIGN_OR_RETURN(
      split->suffix,
      Model::FromGraph(SubGraph(graph, std::move(cut.suffix), std::move(suffix_in), graph.outputs),
                       gpu, SuffixOptions(options, split->crossing_shapes)));
  RETURN_IF_ERROR(CheckNoHostReadAcross(*split, *split->suffix));
  return split;
}

// A split before control-flow node `node_index`, whose subgraph holds a
// data-dependent node.
absl::StatusOr<std::unique_ptr<SyncSplit>> SplitBefore(const Graph& graph,
                                                       const std::vector<ValueInfo>& inputs,
                                                       const Op& op, int node_index,
                                                       const GpuContext& gpu,
                                                       const ModelOptions& options) {
  const Node& node = graph.nodes[node_index];
  const Node* inner = SyncNodeInside(node);
  const std::string inner_name = inner != nullptr ? inner->Describe() : "a data-dependent node";
  if ((node.op_type != "If" && node.op_type != "Loop") ||
      !(node.domain.empty() || node.domain == "ai.onnx")) {
    return absl::UnimplementedError(absl::StrCat(
        inner_name, " in the subgraph of ", node.Describe(),
        " has data-dependent output shapes, which need a sync point; vkserve cuts at sync points "
        "inside If branches and Loop bodies only"));
  }
  auto split = std::make_unique<SyncSplit>();
  split->kind = SyncSplit::Kind::kControl;
  split->node_name = node.name;
  split->op_type = node.op_type;
  std::vector<std::string> decisions;
  std::set<std::string> produced;
  for (const Node& n : graph.nodes) produced.insert(n.outputs.begin(), n.outputs.end());
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (node.inputs[i].empty() || !op.IsHostInput(node, i)) continue;
    if (!produced.contains(node.inputs[i]) && !graph.initializers.contains(node.inputs[i])) {
      return absl::UnimplementedError(absl::StrCat(
          node.Describe(), " holds ", inner_name,
          ", which needs a sync point, in its subgraph: its host input '", node.inputs[i],
          "' must be computable when the part before it is planned, not a model input"));
    }
    split->decision_inputs.push_back(static_cast<int>(i));
    decisions.push_back(node.inputs[i]);
  }
  std::vector<bool> in_prefix = Ancestors(graph, decisions);
  std::set<std::pair<std::string, size_t>> host_reads;
  for (int i : split->decision_inputs) host_reads.insert({node.name, static_cast<size_t>(i)});
  Cut cut = CutBetween(graph, in_prefix, host_reads);
  // A host input the rest reads only there crosses on the host alone: the
  // variants hold it as a constant.
  std::set<std::string> read_on_gpu;
  for (const Node& n : cut.suffix) {
    std::vector<std::string> reads = NodeReads(n);
    if (n.name == node.name) {
      for (int i : split->decision_inputs) reads[i].clear();
    }
    read_on_gpu.insert(reads.begin(), reads.end());
  }
  for (const ValueInfo& out : graph.outputs) read_on_gpu.insert(out.name);
  std::erase_if(cut.crossing, [&](const std::string& v) {
    return !read_on_gpu.contains(v) &&
           std::find(decisions.begin(), decisions.end(), v) != decisions.end();
  });
  // The host inputs are prefix outputs: crossing ones where they are, the
  // others after them.
  std::vector<std::string> extra;
  for (const std::string& d : decisions) {
    auto it = std::find(cut.crossing.begin(), cut.crossing.end(), d);
    if (it != cut.crossing.end()) {
      split->decision_outputs.push_back(static_cast<int>(it - cut.crossing.begin()));
      continue;
    }
    split->decision_outputs.push_back(static_cast<int>(cut.crossing.size() + extra.size()));
    extra.push_back(d);
  }
  ASSIGN_OR_RETURN(std::shared_ptr<const Plan> plan,
                   BuildPrefix(graph, inputs, node, cut, extra, gpu, options, *split));
  for (size_t k = 0; k < decisions.size(); ++k) {
    const PlannedValue& v = plan->values[plan->output_values[split->decision_outputs[k]]];
    if (v.desc.value == nullptr || v.desc.num_elements() != 1) {
      return absl::UnimplementedError(absl::StrCat(
          node.Describe(), " holds ", inner_name,
          ", which needs a sync point, in its subgraph; its host input '", decisions[k],
          "' must be a scalar known when the part before it is planned (from constants, shapes "
          "and counts read back at earlier sync points), not data computed on the GPU"));
    }
  }
  std::vector<ValueInfo> suffix_in = SuffixInputs(graph, inputs, nullptr, node, cut, *plan, *split);
  split->rest = SubGraph(graph, std::move(cut.suffix), std::move(suffix_in), graph.outputs);
  split->gpu = std::make_shared<GpuContext>(gpu);
  split->rest_options = std::make_shared<ModelOptions>(SuffixOptions(options, {}));
  return split;
}

// The key of a variant: each host input's type, shape and bytes.
std::string DecisionKey(const std::vector<HostTensor>& decisions) {
  std::string key;
  for (const HostTensor& t : decisions) {
    absl::StrAppend(&key, static_cast<int>(t.dtype), ShapeString(t.shape), ":",
                    std::string(reinterpret_cast<const char*>(t.data.data()), t.data.size()), "|");
  }
  return key;
}

// One run's timing and trace: `head`'s then `result`'s, added up.
void AddPrefixRun(RunResult& head, RunResult& result) {
  RunTiming& t = result.timing;
  const RunTiming& h = head.timing;
  for (TraceEvent& e : result.trace) e.start_ns += h.total_ns;
  head.trace.insert(head.trace.end(), std::make_move_iterator(result.trace.begin()),
                    std::make_move_iterator(result.trace.end()));
  result.trace = std::move(head.trace);
  t.upload_ns += h.upload_ns;
  t.record_ns += h.record_ns;
  t.submit_ns += h.submit_ns;
  t.gpu_ns += h.gpu_ns;
  t.wait_ns += h.wait_ns;
  t.readback_ns += h.readback_ns;
  t.total_ns += h.total_ns;
  t.replayed = t.replayed && h.replayed;
  t.bytes_uploaded += h.bytes_uploaded;
  t.bytes_read_back += h.bytes_read_back;
  t.sync_points += h.sync_points + 1;
}

}  // namespace

int FindSyncNode(const Graph& graph, const std::vector<const Op*>& ops) {
  std::set<std::string> known;
  bool computed = false;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (ReadsSubgraphs(graph.nodes[n]) && SyncNodeInside(graph.nodes[n]) != nullptr)
      return static_cast<int>(n);
    if (ops[n]->sync_count_output() < 0 || IsPrefixSyncNode(graph.nodes[n])) continue;
    if (!computed) {
      known = ConstantValues(graph);
      computed = true;
    }
    bool foldable = true;
    for (const std::string& in : graph.nodes[n].inputs)
      foldable = foldable && (in.empty() || known.contains(in));
    if (!foldable) return static_cast<int>(n);
  }
  return -1;
}

absl::StatusOr<std::unique_ptr<SyncSplit>> SplitAtSyncPoint(const Graph& graph,
                                                            const std::vector<ValueInfo>& inputs,
                                                            const std::vector<const Op*>& ops,
                                                            int sync_node, const GpuContext& gpu,
                                                            const ModelOptions& options) {
  if (ops[sync_node]->sync_count_output() >= 0)
    return SplitAfter(graph, inputs, *ops[sync_node], sync_node, gpu, options);
  return SplitBefore(graph, inputs, *ops[sync_node], sync_node, gpu, options);
}

absl::StatusOr<std::shared_ptr<Model>> SyncSplit::Variant(
    const std::vector<HostTensor>& decisions,
    const std::map<std::string, std::vector<int64_t>>& input_shapes) const {
  const std::string key = DecisionKey(decisions);
  MutexLock lock(&mu_);
  if (auto it = variants_.find(key); it != variants_.end()) return it->second;
  if (variants_.size() >= kMaxControlVariants) {
    return absl::UnimplementedError(absl::StrCat(
        op_type, " '", node_name, "': more than ", kMaxControlVariants,
        " distinct conditions or trip counts, each a variant of the rest of the model"));
  }
  Graph graph = rest;
  auto node = std::find_if(graph.nodes.begin(), graph.nodes.end(),
                           [&](const Node& n) { return n.name == node_name; });
  if (node == graph.nodes.end() || decisions.size() != decision_inputs.size())
    return absl::InternalError(absl::StrCat("sync point: ", op_type, " '", node_name, "' lost"));
  for (size_t k = 0; k < decisions.size(); ++k) {
    const std::string name = absl::StrCat(node_name, "/vkserve_decided_", decision_inputs[k]);
    graph.initializers[name] = decisions[k];
    node->inputs[decision_inputs[k]] = name;
  }
  ModelOptions options = *rest_options;
  options.default_input_shapes = input_shapes;  // its cuts planned at load at this run's shapes
  ASSIGN_OR_RETURN(std::shared_ptr<Model> variant,
                   Model::FromGraph(std::move(graph), *gpu, options));
  RETURN_IF_ERROR(CheckNoHostReadAcross(*this, *variant));
  variants_.emplace(key, variant);
  return variant;
}

SplitSessions::SplitSessions(const SyncSplit& split, const SessionOptions& options)
    : split_(split), options_(std::make_unique<SessionOptions>(options)) {}

SplitSessions::~SplitSessions() = default;

absl::StatusOr<std::unique_ptr<SplitSessions>> SplitSessions::Create(
    const SyncSplit& split, const SessionOptions& options) {
  auto s = std::unique_ptr<SplitSessions>(new SplitSessions(split, options));
  ASSIGN_OR_RETURN(s->prefix_, Session::Create(split.prefix, options));
  if (split.suffix != nullptr) {
    ASSIGN_OR_RETURN(s->suffix_, Session::Create(split.suffix, options));
  }
  return s;
}

size_t SplitSessions::recording_count() const {
  size_t n = prefix_->recording_count() + (suffix_ != nullptr ? suffix_->recording_count() : 0);
  for (const auto& [key, v] : variants_) n += v->recording_count();
  return n;
}

size_t SplitSessions::cached_state_count() const {
  size_t n =
      prefix_->cached_state_count() + (suffix_ != nullptr ? suffix_->cached_state_count() : 0);
  for (const auto& [key, v] : variants_) n += v->cached_state_count();
  return n;
}

absl::StatusOr<RunResult> SplitSessions::Run(const RunRequest& request) {
  const SyncSplit& split = split_;
  const Model& pre = *split.prefix;
  auto add_input = [&](RunRequest& r, const std::string& name) -> absl::Status {
    const InputBinding* b = request.FindInput(name);
    if (b == nullptr)
      return absl::InvalidArgumentError(absl::StrCat("input '", name, "' is not bound"));
    r.inputs.push_back(*b);
    return absl::OkStatus();
  };
  std::set<int> host_outputs;
  if (split.kind == SyncSplit::Kind::kCount) host_outputs.insert(split.count_output);
  host_outputs.insert(split.decision_outputs.begin(), split.decision_outputs.end());

  // 1. The prefix: every crossing value stays in its GPU output buffer,
  // borrowed (so the prefix's recording replays); n, or the control-flow
  // node's host inputs, come back.
  RunRequest first;
  first.profile = request.profile;
  for (const ValueInfo& in : pre.inputs()) RETURN_IF_ERROR(add_input(first, in.name));
  for (size_t o = 0; o < pre.outputs().size(); ++o) {
    first.outputs.push_back({pre.outputs()[o].name,
                             host_outputs.contains(static_cast<int>(o))
                                 ? OutputLocation::kHost
                                 : OutputLocation::kDeviceBorrowed,
                             nullptr});
  }
  // 2. While the prefix holds its buffers: the suffix at the actual shapes,
  // or the variant for the host inputs.
  RunResult result;
  auto run_suffix = [&](RunResult& head) -> absl::Status {
    int64_t n = 0;
    Session* suffix = suffix_.get();
    if (split.kind == SyncSplit::Kind::kCount) {
      const HostTensor& count = head.outputs[split.count_output].host;
      if (count.data.size() != sizeof(n))
        return absl::InternalError("sync point: no count came back");
      std::memcpy(&n, count.data.data(), sizeof(n));
    } else {
      std::vector<HostTensor> decisions;
      for (int o : split.decision_outputs) decisions.push_back(head.outputs[o].host);
      const std::string key = DecisionKey(decisions);
      auto it = variants_.find(key);
      if (it == variants_.end()) {
        std::map<std::string, std::vector<int64_t>> shapes;
        for (size_t k = 0; k < split.suffix_inputs.size() && k < split.rest.inputs.size(); ++k) {
          const SyncSplit::Source& from = split.suffix_inputs[k];
          const std::string& name = split.rest.inputs[k].name;
          if (from.from_prefix) {
            const RunOutput& o = head.outputs[from.index];
            shapes[name] = o.device != nullptr ? o.device->shape() : o.host.shape;
          } else if (const InputBinding* b = request.FindInput(name)) {
            shapes[name] = b->shape;
          }
        }
        ASSIGN_OR_RETURN(std::shared_ptr<Model> variant, split.Variant(decisions, shapes));
        ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::Create(variant, *options_));
        it = variants_.emplace(key, std::move(session)).first;
      }
      suffix = it->second.get();
    }
    const Model& post = suffix->model();
    RunRequest second;
    second.outputs = request.outputs;
    second.profile = request.profile;
    for (size_t k = 0; k < split.suffix_inputs.size(); ++k) {
      const SyncSplit::Source& from = split.suffix_inputs[k];
      if (!from.from_prefix) {
        RETURN_IF_ERROR(add_input(second, post.inputs()[k].name));
        continue;
      }
      std::shared_ptr<DeviceTensor> t = head.outputs[from.index].device;
      if (t == nullptr && host_outputs.contains(from.index)) {
        // A host input of the control-flow node another node also reads.
        second.inputs.push_back(
            InputBinding::Host(post.inputs()[k].name, head.outputs[from.index].host));
        continue;
      }
      if (t == nullptr)
        return absl::InternalError("sync point: a crossing value is not on the GPU");
      if (const int axis = split.dynamic_axis[from.index]; axis >= 0) {
        std::vector<int64_t> shape = t->shape();
        if (axis >= static_cast<int>(shape.size()) || n < 0 || n > shape[axis]) {
          return absl::InternalError(absl::StrCat(split.op_type, " '", split.node_name,
                                                  "' counted ", n, " beyond its bound"));
        }
        shape[axis] = n;
        ASSIGN_OR_RETURN(t, t->WithShape(std::move(shape)));
      }
      second.inputs.push_back(InputBinding::Device(post.inputs()[k].name, std::move(t)));
    }
    ASSIGN_OR_RETURN(result, suffix->Run(second));
    return absl::OkStatus();
  };
  ASSIGN_OR_RETURN(RunResult head, prefix_->Run(first, run_suffix));
  // The borrowed views die with `head`; none reached `result` (the suffix
  // copies what it outputs).
  for (RunOutput& out : head.outputs) out.device.reset();
  AddPrefixRun(head, result);
  return result;
}

}  // namespace vkserve
