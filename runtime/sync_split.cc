// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/sync_split.h"

#include <cstring>
#include <map>
#include <set>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "gpu/status_macros.h"
#include "runtime/model.h"
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

// The nodes `sync_node` depends on, and itself (indices, ascending).
std::vector<bool> PrefixNodes(const Graph& graph, int sync_node) {
  std::map<std::string, int> producer;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    for (const std::string& out : graph.nodes[n].outputs) {
      if (!out.empty()) producer[out] = static_cast<int>(n);
    }
  }
  std::vector<bool> in_prefix(graph.nodes.size(), false);
  std::vector<int> stack = {sync_node};
  while (!stack.empty()) {
    const int n = stack.back();
    stack.pop_back();
    if (in_prefix[n]) continue;
    in_prefix[n] = true;
    for (const std::string& in : graph.nodes[n].inputs) {
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
  for (const Node& node : nodes) read.insert(node.inputs.begin(), node.inputs.end());
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

// The graph cut after the sync node.
struct Cut {
  std::vector<Node> prefix;  // the sync node (with its count output) and what it depends on
  std::vector<Node> suffix;  // every other node
  // Prefix values the suffix or the graph's outputs read, in first-use order.
  std::vector<std::string> crossing;
};

std::set<std::string> Reads(const std::vector<Node>& nodes) {
  std::set<std::string> read;
  for (const Node& node : nodes) read.insert(node.inputs.begin(), node.inputs.end());
  return read;
}

absl::StatusOr<Cut> CutAfter(const Graph& graph, int sync_node, size_t count_index,
                             const std::string& count_name) {
  const Node& sync = graph.nodes[sync_node];
  if (sync.outputs.size() > count_index) {
    return absl::InvalidArgumentError(absl::StrCat(sync.Describe(), " has too many outputs"));
  }
  const std::vector<bool> in_prefix = PrefixNodes(graph, sync_node);
  Cut cut;
  std::set<std::string> prefix_values;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (!in_prefix[n]) {
      cut.suffix.push_back(graph.nodes[n]);
      continue;
    }
    cut.prefix.push_back(graph.nodes[n]);
    for (const std::string& out : graph.nodes[n].outputs) {
      if (!out.empty()) prefix_values.insert(out);
    }
  }
  for (Node& node : cut.prefix) {
    if (node.name != sync.name) continue;
    node.outputs.resize(count_index);  // omitted optional outputs stay omitted
    node.outputs.push_back(count_name);
  }
  std::set<std::string> seen;
  auto cross = [&](const std::string& name) {
    if (prefix_values.contains(name) && seen.insert(name).second) cut.crossing.push_back(name);
  };
  for (const Node& node : cut.suffix) {
    for (const std::string& in : node.inputs) cross(in);
  }
  for (const ValueInfo& out : graph.outputs) cross(out.name);
  return cut;
}

// The prefix model (its model inputs in, the crossing values and the count
// out) into `split`, and its plan at the default input shapes.
absl::StatusOr<std::shared_ptr<const Plan>> BuildPrefix(
    const Graph& graph, const std::vector<ValueInfo>& inputs, const Node& sync, Cut& cut,
    const std::string& count_name, const GpuContext& gpu, const ModelOptions& options,
    SyncSplit& split) {
  const std::set<std::string> reads = Reads(cut.prefix);
  std::vector<ValueInfo> prefix_in, prefix_out;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!reads.contains(inputs[i].name)) continue;
    split.prefix_inputs.push_back(static_cast<int>(i));
    prefix_in.push_back(inputs[i]);
  }
  for (const std::string& name : cut.crossing) prefix_out.push_back(Untyped(name));
  prefix_out.push_back(Untyped(count_name));
  split.count_output = static_cast<int>(cut.crossing.size());
  ASSIGN_OR_RETURN(split.prefix,
                   Model::FromGraph(SubGraph(graph, std::move(cut.prefix), std::move(prefix_in),
                                             std::move(prefix_out)),
                                    gpu, options));
  if (split.prefix->has_value_inputs()) {
    return absl::UnimplementedError(
        absl::StrCat(sync.Describe(),
                     " has data-dependent output shapes and runs at a sync point; inputs that "
                     "set shapes before it are not supported there yet"));
  }
  return split.prefix->GetPlan(split.prefix->DefaultInputShapes());
}

// The suffix model into `split`: its model inputs, then the crossing values
// with every dimension symbolic (`dynamic_axis` says which one the count
// sets), planned per run.
absl::Status BuildSuffix(const Graph& graph, const std::vector<ValueInfo>& inputs,
                         const Op& sync_op, const Node& sync, Cut& cut, const Plan& prefix_plan,
                         const GpuContext& gpu, const ModelOptions& options, SyncSplit& split) {
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
    for (size_t o = 0; o < sync.outputs.size(); ++o) {
      if (sync.outputs[o] == cut.crossing[c]) {
        axis = sync_op.DataDependentAxis(sync, o, v.desc.shape.size());
      }
    }
    split.dynamic_axis.push_back(axis);
    ValueInfo in;
    in.name = cut.crossing[c];
    in.type.dtype = v.desc.dtype;
    in.type.has_shape = true;
    in.type.shape.resize(v.desc.shape.size());  // every dim symbolic
    split.suffix_inputs.push_back({true, static_cast<int>(c)});
    suffix_in.push_back(std::move(in));
  }
  split.dynamic_axis.push_back(-1);  // the count
  ModelOptions suffix_options = options;
  suffix_options.plan_at_load = false;  // plans need the count
  ASSIGN_OR_RETURN(split.suffix, Model::FromGraph(SubGraph(graph, std::move(cut.suffix),
                                                           std::move(suffix_in), graph.outputs),
                                                  gpu, suffix_options));
  for (size_t k = 0; k < split.suffix_inputs.size(); ++k) {
    if (split.suffix_inputs[k].from_prefix && split.suffix->is_value_input(k)) {
      return absl::UnimplementedError(absl::StrCat("value '", split.suffix->inputs()[k].name,
                                                   "' is read on the host to set shapes, but is "
                                                   "computed on the GPU at ",
                                                   sync.Describe(),
                                                   "'s sync point; vkserve never reads tensor data "
                                                   "back in the middle of a run beyond the count"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

int FindSyncNode(const Graph& graph, const std::vector<const Op*>& ops) {
  std::set<std::string> known;
  bool computed = false;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
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
  const Node& sync = graph.nodes[sync_node];
  for (const Node& node : graph.nodes) {
    if (ReadsSubgraphs(node)) {
      return absl::UnimplementedError(
          absl::StrCat(sync.Describe(),
                       " has data-dependent output shapes, which need a sync point; vkserve "
                       "cannot cut a graph with control flow (",
                       node.Describe(), ") there yet"));
    }
  }
  auto split = std::make_unique<SyncSplit>();
  split->node_name = sync.name;
  split->op_type = sync.op_type;
  const std::string count_name = absl::StrCat(sync.name, std::string(kCountSuffix));
  const size_t count_index = static_cast<size_t>(ops[sync_node]->sync_count_output());
  ASSIGN_OR_RETURN(Cut cut, CutAfter(graph, sync_node, count_index, count_name));
  ASSIGN_OR_RETURN(std::shared_ptr<const Plan> plan,
                   BuildPrefix(graph, inputs, sync, cut, count_name, gpu, options, *split));
  RETURN_IF_ERROR(
      BuildSuffix(graph, inputs, *ops[sync_node], sync, cut, *plan, gpu, options, *split));
  return split;
}

absl::StatusOr<RunResult> RunSplit(const SyncSplit& split, Session& prefix, Session& suffix,
                                   const RunRequest& request) {
  const Model& pre = *split.prefix;
  const Model& post = *split.suffix;
  auto find = [&](const std::string& name) -> const InputBinding* {
    for (const InputBinding& b : request.inputs) {
      if (b.name == name) return &b;
    }
    return nullptr;
  };
  auto add_input = [&](RunRequest& r, const std::string& name) -> absl::Status {
    const InputBinding* b = find(name);
    if (b == nullptr)
      return absl::InvalidArgumentError(absl::StrCat("input '", name, "' is not bound"));
    r.inputs.push_back(*b);
    if (auto it = request.host_input_readers.find(name); it != request.host_input_readers.end()) {
      r.host_input_readers.insert(*it);
    }
    return absl::OkStatus();
  };

  // 1. The prefix: every crossing value stays in its GPU output buffer,
  // borrowed (so the prefix's recording replays); n comes back.
  RunRequest first;
  first.profile = request.profile;
  for (const ValueInfo& in : pre.inputs()) RETURN_IF_ERROR(add_input(first, in.name));
  for (size_t o = 0; o < pre.outputs().size(); ++o) {
    first.output_locations[pre.outputs()[o].name] = static_cast<int>(o) == split.count_output
                                                        ? OutputLocation::kHost
                                                        : OutputLocation::kDeviceBorrowed;
  }
  // 2. While the prefix holds its buffers: the suffix at the actual shapes.
  RunResult result;
  auto run_suffix = [&](RunResult& head) -> absl::Status {
    const HostTensor& count = head.outputs[split.count_output].host;
    int64_t n = 0;
    if (count.data.size() != sizeof(n))
      return absl::InternalError("sync point: no count came back");
    std::memcpy(&n, count.data.data(), sizeof(n));
    RunRequest second;
    second.output_locations = request.output_locations;
    second.profile = request.profile;
    second.host_output_sink = request.host_output_sink;
    second.host_output_scatter = request.host_output_scatter;
    for (size_t k = 0; k < split.suffix_inputs.size(); ++k) {
      const SyncSplit::Source& from = split.suffix_inputs[k];
      if (!from.from_prefix) {
        RETURN_IF_ERROR(add_input(second, post.inputs()[k].name));
        continue;
      }
      std::shared_ptr<DeviceTensor> t = head.outputs[from.index].device;
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
      InputBinding b;
      b.name = post.inputs()[k].name;
      b.device = std::move(t);
      second.inputs.push_back(std::move(b));
    }
    ASSIGN_OR_RETURN(result, suffix.Run(second));
    return absl::OkStatus();
  };
  ASSIGN_OR_RETURN(RunResult head, prefix.Run(first, run_suffix));
  // The borrowed views die with `head`; none reached `result` (the suffix
  // copies what it outputs).
  for (RunOutput& out : head.outputs) out.device.reset();

  // One run: the two parts' phases added up, the prefix's trace first.
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
  return result;
}

}  // namespace vkserve
