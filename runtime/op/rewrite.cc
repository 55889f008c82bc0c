// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/op/rewrite.h"

#include <deque>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"

namespace vkserve {
namespace {

// A rewrite's nodes may be rewritten again (a contrib op lowered into
// another contrib op); deeper chains mean a rewrite loops.
constexpr int kMaxRewriteDepth = 4;

const std::string& EmptyName() {
  static const std::string* empty = new std::string();
  return *empty;
}

// Every name the graph uses, so that added names never collide.
std::map<std::string, int> UsedNames(const Graph& graph) {
  std::map<std::string, int> used;
  for (const auto& [name, t] : graph.initializers) used[name] = 0;
  for (const ValueInfo& v : graph.inputs) used[v.name] = 0;
  for (const ValueInfo& v : graph.outputs) used[v.name] = 0;
  for (const Node& n : graph.nodes) {
    used[n.name] = 0;
    for (const std::string& s : n.inputs) used[s] = 0;
    for (const std::string& s : n.outputs) used[s] = 0;
  }
  return used;
}

// Checks that the replacement defines every stored output that something
// reads (`read`); UNIMPLEMENTED naming the first that is missing.
absl::Status CheckOutputsDefined(const std::set<std::string>& read, const Node& stored,
                                 const std::vector<Node>& added) {
  std::set<std::string> defined;
  for (const Node& n : added) defined.insert(n.outputs.begin(), n.outputs.end());
  for (const std::string& o : stored.outputs) {
    if (!o.empty() && read.count(o) && !defined.count(o)) {
      return absl::UnimplementedError(
          absl::StrCat("output '", o, "' is not produced by vkserve's rewrite"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

RewriteContext::RewriteContext(const Graph& graph, const Node& node,
                               std::map<std::string, int>* name_counts,
                               std::map<std::string, int64_t>* facts)
    : graph_(graph), node_(node), name_counts_(name_counts), facts_(facts) {}

const std::string& RewriteContext::input(size_t i) const {
  return i < node_.inputs.size() ? node_.inputs[i] : EmptyName();
}

const std::string& RewriteContext::output(size_t i) const {
  return i < node_.outputs.size() ? node_.outputs[i] : EmptyName();
}

const HostTensor* RewriteContext::initializer(const std::string& name) const {
  auto added = initializers_.find(name);
  if (added != initializers_.end()) return &added->second;
  auto stored = graph_.initializers.find(name);
  return stored == graph_.initializers.end() ? nullptr : &stored->second;
}

const TensorType* RewriteContext::declared_type(const std::string& name) const {
  for (const auto* list : {&graph_.inputs, &graph_.outputs, &graph_.value_info}) {
    for (const ValueInfo& v : *list) {
      if (v.name == name) return &v.type;
    }
  }
  return nullptr;
}

std::optional<std::vector<Dim>> RewriteContext::known_shape(const std::string& name) const {
  if (const HostTensor* t = initializer(name)) {
    std::vector<Dim> dims(t->shape.size());
    for (size_t i = 0; i < dims.size(); ++i) dims[i].value = t->shape[i];
    return dims;
  }
  const TensorType* type = declared_type(name);
  if (type == nullptr || !type->has_shape) return std::nullopt;
  return type->shape;
}

std::string RewriteContext::UniqueName(std::string_view base) {
  std::string name(base);
  auto [it, inserted] = name_counts_->try_emplace(name, 0);
  while (!inserted) {
    name = absl::StrCat(std::string(base), "_", ++it->second);
    inserted = name_counts_->try_emplace(name, 0).second;
  }
  return name;
}

std::string RewriteContext::NewValueName(std::string_view hint) {
  return UniqueName(absl::StrCat(node_.name, "/", std::string(hint)));
}

Node& RewriteContext::AddNode(std::string op_type, std::vector<std::string> inputs,
                              std::vector<std::string> outputs, int64_t opset, std::string domain) {
  Node node;
  node.name = UniqueName(absl::StrCat(node_.name, "/", op_type));
  node.op_type = std::move(op_type);
  node.domain = std::move(domain);
  node.opset = opset;
  node.inputs = std::move(inputs);
  node.outputs = std::move(outputs);
  node.rewritten_from = node_.rewritten_from.empty() ? node_.name : node_.rewritten_from;
  nodes_.push_back(std::move(node));
  return nodes_.back();
}

std::string RewriteContext::AddInitializer(std::string_view hint, HostTensor tensor) {
  std::string name = NewValueName(hint);
  initializers_.emplace(name, std::move(tensor));
  return name;
}

RewriteRegistry& RewriteRegistry::Global() {
  // Filled during static initialization, read-only afterwards.
  static RewriteRegistry* registry = new RewriteRegistry();
  return *registry;
}

const Rewrite* RewriteRegistry::Find(const Node& node) const {
  const RewriteRegistration* r = Lookup(node);
  return r == nullptr ? nullptr : r->value.get();
}

absl::StatusOr<int> ApplyRewrites(Graph* graph) {
  const RewriteRegistry& registry = RewriteRegistry::Global();
  std::map<std::string, int> names = UsedNames(*graph);
  std::map<std::string, int64_t> facts;  // shared by this pass's rewrites
  std::set<std::string> read;            // values something reads; rewrites keep output names
  for (const Node& n : graph->nodes) read.insert(n.inputs.begin(), n.inputs.end());
  for (const ValueInfo& v : graph->outputs) read.insert(v.name);
  std::set<std::string> replaced_outputs;
  std::vector<Node> result;
  result.reserve(graph->nodes.size());
  int rewritten = 0;
  // (node, depth); a replacement goes to the front so order is kept. While
  // rewrites run, graph->nodes stays the graph as stored.
  std::deque<std::pair<Node, int>> pending;
  for (const Node& n : graph->nodes) pending.emplace_back(n, 0);
  while (!pending.empty()) {
    auto [node, depth] = std::move(pending.front());
    pending.pop_front();
    const Rewrite* rewrite = registry.Find(node);
    if (rewrite == nullptr) {
      result.push_back(std::move(node));
      continue;
    }
    if (depth >= kMaxRewriteDepth) {
      return absl::InternalError(
          absl::StrCat(node.Describe(), ": rewrites nest deeper than ", kMaxRewriteDepth));
    }
    RewriteContext ctx(*graph, node, &names, &facts);
    absl::Status status = rewrite->Apply(ctx);
    if (status.ok()) status = CheckOutputsDefined(read, node, ctx.added_nodes());
    if (!status.ok()) {
      return absl::Status(status.code(), absl::StrCat(node.Describe(), ": ", status.message()));
    }
    if (depth == 0) ++rewritten;
    for (const std::string& o : node.outputs) replaced_outputs.insert(o);
    for (auto& [name, tensor] : ctx.added_initializers())
      graph->initializers.emplace(name, std::move(tensor));
    std::vector<Node>& added = ctx.added_nodes();
    for (auto it = added.rbegin(); it != added.rend(); ++it)
      pending.emplace_front(std::move(*it), depth + 1);
  }
  graph->nodes = std::move(result);
  if (rewritten > 0) {
    std::erase_if(graph->value_info,
                  [&](const ValueInfo& v) { return replaced_outputs.count(v.name) > 0; });
  }
  return rewritten;
}

}  // namespace vkserve
