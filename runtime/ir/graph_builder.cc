// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/ir/graph_builder.h"

#include <climits>
#include <functional>
#include <queue>
#include <set>
#include <unordered_map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"

namespace vkserve {
namespace {

// The last element type vkserve's DataType knows; numbers past it (float8
// variants, int4, ...) are valid but unsupported.
constexpr int64_t kLastKnownType = static_cast<int64_t>(DataType::kInt2);

}  // namespace

bool GraphScope::Contains(const std::string& name) const {
  for (const GraphScope* s = this; s != nullptr; s = s->parent) {
    if ((s->defined && s->defined->count(name)) || (s->produced && s->produced->count(name)))
      return true;
  }
  return false;
}

absl::Status MalformedModel(absl::string_view model, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(std::string(model), ": ", std::string(what)));
}

absl::Status UnsupportedModel(absl::string_view model, absl::string_view what) {
  return absl::UnimplementedError(absl::StrCat(std::string(model), ": ", std::string(what)));
}

absl::StatusOr<DataType> CheckElementType(absl::string_view model, int64_t type,
                                          const std::string& what, bool allow_undefined) {
  if (type == static_cast<int64_t>(DataType::kUndefined)) {
    if (allow_undefined) return DataType::kUndefined;
    return MalformedModel(model, absl::StrCat(what, " has no element type (0, UNDEFINED)"));
  }
  if (type < 0)
    return MalformedModel(model, absl::StrCat(what, " has invalid element type ", type));
  if (type > kLastKnownType || !IsKnownDataType(static_cast<int32_t>(type))) {
    return UnsupportedModel(
        model, absl::StrCat(what, " has element type ", type, ", which vkserve does not support"));
  }
  if (type == static_cast<int64_t>(DataType::kString)) {
    return UnsupportedModel(
        model, absl::StrCat(what, " has element type string (8), which vkserve does not support"));
  }
  return static_cast<DataType>(type);
}

absl::StatusOr<uint64_t> CheckedTensorBytes(absl::string_view model, DataType dtype,
                                            const std::vector<int64_t>& dims, uint64_t max_bytes,
                                            const std::string& what) {
  const uint64_t elem = DataTypeSize(dtype);
  if (elem == 0)
    return UnsupportedModel(model, absl::StrCat(what, " has a type without a fixed size"));
  uint64_t n = 1;
  bool zero = false;
  for (int64_t d : dims) {
    if (d < 0) return MalformedModel(model, absl::StrCat(what, " has negative dimension ", d));
    if (d == 0) zero = true;
    if (zero) continue;
    if (static_cast<uint64_t>(d) > max_bytes / elem / n) {
      return MalformedModel(model, absl::StrCat(what, " is larger than ", max_bytes, " bytes"));
    }
    n *= static_cast<uint64_t>(d);
  }
  return zero ? 0 : n * elem;
}

GraphBuilder::GraphBuilder(std::string model, std::map<std::string, int64_t> opsets, int depth,
                           absl::string_view subgraph_name, const GraphScope* outer)
    : model_(std::move(model)),
      opsets_(std::move(opsets)),
      depth_(depth),
      graph_what_(depth == 0 ? "" : absl::StrCat("subgraph '", std::string(subgraph_name), "': ")),
      outer_(outer),
      scope_{&defined_, &produced_, outer} {
  graph_.opset_imports = opsets_;
}

absl::Status GraphBuilder::Malformed(absl::string_view what) const {
  return MalformedModel(model_, absl::StrCat(graph_what_, std::string(what)));
}

absl::Status GraphBuilder::Unsupported(absl::string_view what) const {
  return UnsupportedModel(model_, absl::StrCat(graph_what_, std::string(what)));
}

absl::Status GraphBuilder::AddInitializer(const std::string& name, HostTensor tensor) {
  if (!graph_.initializers.emplace(name, std::move(tensor)).second) {
    return Malformed(absl::StrCat("initializer '", name, "' is defined twice"));
  }
  defined_.insert(name);
  return absl::OkStatus();
}

absl::Status GraphBuilder::AddInput(ValueInfo value) {
  if (graph_.initializers.count(value.name)) return absl::OkStatus();
  if (!defined_.insert(value.name).second) {
    return Malformed(absl::StrCat("graph input '", value.name, "' is listed twice"));
  }
  graph_.inputs.push_back(std::move(value));
  return absl::OkStatus();
}

absl::Status GraphBuilder::AddOutput(ValueInfo value) {
  for (const ValueInfo& o : graph_.outputs) {
    if (o.name == value.name)
      return Malformed(absl::StrCat("graph output '", value.name, "' is listed twice"));
  }
  graph_.outputs.push_back(std::move(value));
  return absl::OkStatus();
}

void GraphBuilder::AddValueInfo(ValueInfo value) {
  if (!value.name.empty()) graph_.value_info.push_back(std::move(value));
}

absl::Status GraphBuilder::DeclareNodeOutputs(const std::string& node_label,
                                              const std::vector<std::string>& outputs) {
  for (const std::string& o : outputs) {
    if (o.empty()) continue;
    if (defined_.count(o) || !produced_.insert(o).second) {
      return Malformed(absl::StrCat("value '", o, "' (output of node '", node_label,
                                    "') is defined more than once"));
    }
  }
  return absl::OkStatus();
}

absl::Status GraphBuilder::AddNode(Node node, const NameSet& captured, size_t index) {
  if (node.op_type.empty()) return Malformed(absl::StrCat("node #", index, " has no op_type"));
  auto opset = opsets_.find(node.domain);
  if (opset == opsets_.end()) {
    return Malformed(absl::StrCat("node '", node.name, "' (", node.op_type, ") uses domain '",
                                  node.domain.empty() ? "ai.onnx" : node.domain,
                                  "', which the model's opset_import does not list"));
  }
  node.opset = opset->second;
  for (const auto& [name, attr] : node.attributes) {
    if (name.empty())
      return Malformed(absl::StrCat("node '", node.name, "' has an attribute with no name"));
    if (name.rfind("_vkserve_", 0) == 0) {
      return Malformed(absl::StrCat("node '", node.name, "' uses reserved attribute '", name, "'"));
    }
  }
  std::vector<std::string> deps = node.inputs;
  deps.insert(deps.end(), captured.begin(), captured.end());
  // Values from enclosing graphs are available up front, but are recorded
  // as captured so the enclosing graph orders its nodes by them.
  for (const std::string& in : deps) {
    if (in.empty() || defined_.count(in) || produced_.count(in)) continue;
    if (outer_ != nullptr && outer_->Contains(in)) captured_from_outer_.insert(in);
  }
  deps_.push_back(std::move(deps));
  graph_.nodes.push_back(std::move(node));
  return absl::OkStatus();
}

absl::StatusOr<Graph> GraphBuilder::Finish(NameSet* captured) {
  ASSIGN_OR_RETURN(graph_.nodes, SortNodes());
  for (const ValueInfo& out : graph_.outputs) {
    if (defined_.count(out.name) || produced_.count(out.name)) continue;
    if (outer_ != nullptr && outer_->Contains(out.name)) {
      captured_from_outer_.insert(out.name);
      continue;
    }
    return Malformed(absl::StrCat("graph output '", out.name, "' is never produced"));
  }
  if (captured != nullptr)
    captured->insert(captured_from_outer_.begin(), captured_from_outer_.end());
  return std::move(graph_);
}

bool GraphBuilder::Available(const std::string& name) const {
  return defined_.count(name) > 0 ||
         (!produced_.count(name) && outer_ != nullptr && outer_->Contains(name));
}

// Stable topological sort: a sorted file keeps its order. deps_[i] are the
// values node i reads, including names its subgraphs capture.
absl::StatusOr<std::vector<Node>> GraphBuilder::SortNodes() {
  std::vector<Node>& nodes = graph_.nodes;
  std::unordered_map<std::string, size_t> producer;
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const std::string& o : nodes[i].outputs) {
      if (!o.empty()) producer.emplace(o, i);
    }
  }
  std::vector<std::vector<size_t>> users(nodes.size());
  std::vector<size_t> pending(nodes.size(), 0);
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const std::string& in : deps_[i]) {
      if (in.empty() || Available(in)) continue;
      auto p = producer.find(in);
      if (p == producer.end()) {
        return Malformed(
            absl::StrCat("node '", nodes[i].name, "' (", nodes[i].op_type, ") reads '", in,
                         "', which is not a graph input, an initializer or a node output"));
      }
      users[p->second].push_back(i);
      ++pending[i];
    }
  }
  std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>> ready;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (pending[i] == 0) ready.push(i);
  }
  std::vector<bool> placed(nodes.size(), false);
  std::vector<size_t> order;
  order.reserve(nodes.size());
  while (!ready.empty()) {
    const size_t i = ready.top();
    ready.pop();
    placed[i] = true;
    order.push_back(i);
    for (size_t u : users[i]) {
      if (--pending[u] == 0) ready.push(u);
    }
  }
  if (order.size() != nodes.size()) return CycleError(placed, producer);
  std::vector<Node> sorted;
  sorted.reserve(nodes.size());
  for (size_t i : order) sorted.push_back(std::move(nodes[i]));
  return sorted;
}

absl::Status GraphBuilder::CycleError(
    const std::vector<bool>& placed,
    const std::unordered_map<std::string, size_t>& producer) const {
  const std::vector<Node>& nodes = graph_.nodes;
  // Walk unplaced producers from an unplaced node until one repeats: that
  // node is on a cycle.
  size_t at = 0;
  while (placed[at]) ++at;
  std::vector<size_t> seen_at(nodes.size(), SIZE_MAX);
  std::vector<size_t> path;
  std::vector<std::string> via;
  while (seen_at[at] == SIZE_MAX) {
    seen_at[at] = path.size();
    path.push_back(at);
    bool stepped = false;
    for (const std::string& in : deps_[at]) {
      if (in.empty() || Available(in)) continue;
      const size_t p = producer.at(in);
      if (!placed[p]) {
        via.push_back(in);
        at = p;
        stepped = true;
        break;
      }
    }
    if (!stepped) {  // cannot happen: an unplaced node waits on an unplaced producer
      return Malformed(absl::StrCat("node '", nodes[at].name, "' cannot be ordered"));
    }
  }
  // "'a' reads 'x' from 'b', which reads 'y' from 'a'"
  std::string cycle = absl::StrCat("'", nodes[at].name, "'");
  for (size_t k = seen_at[at]; k < path.size(); ++k) {
    const size_t next = k + 1 < path.size() ? path[k + 1] : at;
    absl::StrAppend(&cycle, k == seen_at[at] ? " reads '" : ", which reads '", via[k], "' from '",
                    nodes[next].name, "'");
  }
  return Malformed(absl::StrCat("node '", nodes[at].name, "' (", nodes[at].op_type,
                                ") is part of a cycle: ", cycle));
}

}  // namespace vkserve
