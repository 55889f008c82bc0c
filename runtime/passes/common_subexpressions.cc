// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/passes/common_subexpressions.h"

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/op/graph_uses.h"
#include "runtime/op/op.h"

namespace vkserve {
namespace {

// Initializers up to this size are compared by content (the constants
// exporters repeat); larger ones, the weights, only by name.
constexpr size_t kMaxComparedBytes = 4096;

// Fields are length-prefixed, so no name or byte string can run into the
// next field.
void AppendField(std::string_view field, std::string* key) {
  absl::StrAppend(key, field.size(), ":");
  key->append(field);
}

void AppendTensor(const HostTensor& t, std::string* key) {
  absl::StrAppend(key, "t", static_cast<int32_t>(t.dtype), "[", absl::StrJoin(t.shape, ","), "]");
  AppendField(std::string_view(reinterpret_cast<const char*>(t.data.data()), t.data.size()), key);
}

// Floats by their bits: 0 and -0 differ, a NaN equals itself.
uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}

// Appends the attribute's value; false for a subgraph, which is never
// compared.
bool AppendAttribute(const Attribute& a, std::string* key) {
  absl::StrAppend(key, static_cast<int>(a.type), "=");
  switch (a.type) {
    case Attribute::Type::kUndefined:
      break;
    case Attribute::Type::kFloat:
      absl::StrAppend(key, Bits(a.f));
      break;
    case Attribute::Type::kInt:
      absl::StrAppend(key, a.i);
      break;
    case Attribute::Type::kString:
      AppendField(a.s, key);
      break;
    case Attribute::Type::kTensor:
      AppendTensor(a.t, key);
      break;
    case Attribute::Type::kFloats:
      for (float f : a.floats) absl::StrAppend(key, Bits(f), ",");
      break;
    case Attribute::Type::kInts:
      absl::StrAppend(key, absl::StrJoin(a.ints, ","));
      break;
    case Attribute::Type::kStrings:
      for (const std::string& s : a.strings) AppendField(s, key);
      break;
    case Attribute::Type::kTensors:
      for (const HostTensor& t : a.tensors) AppendTensor(t, key);
      break;
    case Attribute::Type::kGraph:
    case Attribute::Type::kGraphs:
      return false;
  }
  absl::StrAppend(key, ";");
  return true;
}

// What each value is the same as: the surviving output for a removed
// node's, the first of its equals (by name order) for a small initializer.
class Values {
 public:
  explicit Values(const Graph& graph) {
    std::map<std::string, std::string> first_by_content;
    for (const auto& [name, tensor] : graph.initializers) {
      if (tensor.byte_size() > kMaxComparedBytes) continue;
      std::string content;
      AppendTensor(tensor, &content);
      canonical_[name] = first_by_content.emplace(std::move(content), name).first->second;
    }
  }

  const std::string& Canonical(const std::string& name) const {
    auto it = canonical_.find(name);
    return it == canonical_.end() ? name : it->second;
  }
  // The output a reader of `name` reads instead, or nullptr.
  const std::string* Replacement(const std::string& name) const {
    auto it = replaced_.find(name);
    return it == replaced_.end() ? nullptr : &it->second;
  }
  void Replace(const std::string& removed, const std::string& survivor) {
    replaced_[removed] = survivor;
    canonical_[removed] = Canonical(survivor);
  }

 private:
  std::map<std::string, std::string> canonical_;
  std::map<std::string, std::string> replaced_;
};

// The node's computation as a key: op, version, attributes, the canonical
// inputs and which outputs it writes. Empty when it may not merge.
std::string NodeKey(const Node& node, const Op& op, const Values& values) {
  if (!op.traits().pure || node.outputs.empty()) return {};
  std::string key;
  AppendField(node.domain, &key);
  AppendField(node.op_type, &key);
  absl::StrAppend(&key, node.opset, "/", node.since_version, "|");
  for (const auto& [name, attribute] : node.attributes) {
    AppendField(name, &key);
    if (!AppendAttribute(attribute, &key)) return {};
  }
  absl::StrAppend(&key, "|");
  for (const std::string& in : node.inputs) AppendField(values.Canonical(in), &key);
  absl::StrAppend(&key, "|");
  for (const std::string& out : node.outputs) absl::StrAppend(&key, out.empty() ? "-" : "+");
  return key;
}

bool WritesGraphOutput(const Node& node, const GraphUses& uses) {
  for (const std::string& out : node.outputs) {
    if (!out.empty() && uses.IsGraphOutput(out)) return true;
  }
  return false;
}

}  // namespace

int EliminateCommonSubexpressions(Graph* graph, const std::vector<const Op*>& ops) {
  if (HasSubgraphs(*graph)) return 0;
  const GraphUses uses(*graph);
  Values values(*graph);
  std::map<std::string, size_t> first;  // node key -> the node computing it first
  std::vector<bool> removed(graph->nodes.size(), false);
  int merged = 0;
  // Topological order: a node's inputs are canonical before its key is made.
  for (size_t n = 0; n < graph->nodes.size(); ++n) {
    Node& node = graph->nodes[n];
    const std::string key = NodeKey(node, *ops[n], values);
    if (key.empty()) continue;
    auto [it, inserted] = first.emplace(key, n);
    // A graph output's name must stay written: its node may be merged into,
    // never away.
    if (inserted || WritesGraphOutput(node, uses)) continue;
    Node& survivor = graph->nodes[it->second];
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      if (!node.outputs[o].empty()) values.Replace(node.outputs[o], survivor.outputs[o]);
    }
    AbsorbInto(node, &survivor);
    removed[n] = true;
    ++merged;
  }
  if (merged == 0) return 0;
  for (size_t n = 0; n < graph->nodes.size(); ++n) {
    if (removed[n]) continue;
    for (std::string& in : graph->nodes[n].inputs) {
      if (const std::string* to = values.Replacement(in)) in = *to;
    }
  }
  EraseNodes(removed, &graph->nodes);
  return merged;
}

}  // namespace vkserve
