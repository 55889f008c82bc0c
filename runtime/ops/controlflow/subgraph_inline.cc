// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/ops/controlflow/subgraph_inline.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "runtime/op/op_registry.h"

namespace vkserve {
namespace {

Attribute MakeInt(int64_t v) {
  Attribute a;
  a.type = Attribute::Type::kInt;
  a.i = v;
  return a;
}

Attribute MakeInts(std::vector<int64_t> v) {
  Attribute a;
  a.type = Attribute::Type::kInts;
  a.ints = std::move(v);
  return a;
}

Node MakeNode(std::string op_type, std::vector<std::string> inputs,
              std::vector<std::string> outputs, int64_t opset, const std::string& name) {
  Node n;
  n.op_type = std::move(op_type);
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  n.opset = opset;
  n.name = name;
  return n;
}

// `graph` with the names it reads from outside (not defined in it) renamed
// by `renamed`, nested graphs included.
std::shared_ptr<const Graph> RenameCaptured(const Graph& graph,
                                            const std::map<std::string, std::string>& renamed) {
  std::map<std::string, std::string> visible = renamed;
  for (const ValueInfo& in : graph.inputs) visible.erase(in.name);
  for (const auto& [name, t] : graph.initializers) visible.erase(name);
  for (const Node& n : graph.nodes) {
    for (const std::string& o : n.outputs) visible.erase(o);
  }
  auto copy = std::make_shared<Graph>(graph);
  for (Node& n : copy->nodes) {
    for (std::string& in : n.inputs) {
      auto it = visible.find(in);
      if (it != visible.end()) in = it->second;
    }
    for (auto& [attr_name, a] : n.attributes) {
      for (auto& g : a.graphs) g = RenameCaptured(*g, visible);
    }
  }
  for (ValueInfo& out : copy->outputs) {
    auto it = visible.find(out.name);
    if (it != visible.end()) out.name = it->second;
  }
  return copy;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> InlineSubgraph(ExpandContext& ctx, const Graph& body,
                                                        const std::vector<std::string>& inputs,
                                                        const std::string& prefix) {
  if (inputs.size() != body.inputs.size()) {
    return absl::InvalidArgumentError(absl::StrCat("the subgraph has ", body.inputs.size(),
                                                   " inputs, the op binds ", inputs.size()));
  }
  std::map<std::string, std::string> renamed;
  for (size_t i = 0; i < inputs.size(); ++i) renamed[body.inputs[i].name] = inputs[i];
  auto rename = [&](const std::string& name) {
    auto it = renamed.find(name);
    return it == renamed.end() ? name : it->second;
  };
  for (const auto& [name, tensor] : body.initializers) {
    const std::string fresh = ctx.NewName(prefix + name);
    Node constant = MakeNode("Constant", {}, {fresh}, 13, prefix + name);
    Attribute value;
    value.type = Attribute::Type::kTensor;
    value.t = tensor;
    constant.attributes["value"] = std::move(value);
    RETURN_IF_ERROR(ctx.Emit(std::move(constant)));
    renamed[name] = fresh;
  }
  for (const Node& stored : body.nodes) {
    Node n = stored;
    n.name = prefix + stored.name;
    for (std::string& in : n.inputs) {
      if (!in.empty()) in = rename(in);
    }
    for (auto& [attr_name, a] : n.attributes) {
      for (auto& g : a.graphs) g = RenameCaptured(*g, renamed);
    }
    for (std::string& out : n.outputs) {
      if (out.empty()) continue;
      const std::string fresh = ctx.NewName(prefix + out);
      renamed[out] = fresh;
      out = fresh;
    }
    RETURN_IF_ERROR(ctx.Emit(std::move(n)));
  }
  std::vector<std::string> outputs;
  for (const ValueInfo& out : body.outputs) {
    const std::string name = rename(out.name);
    if (ctx.Find(name) == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("subgraph output '", out.name.substr(0, 64), "' is never defined"));
    }
    outputs.push_back(name);
  }
  return outputs;
}

absl::StatusOr<const Graph*> GraphAttribute(const Node& node, const std::string& name) {
  const Attribute* a = node.FindAttribute(name);
  if (a == nullptr || a->type != Attribute::Type::kGraph || a->graphs.empty() ||
      a->graphs[0] == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("graph attribute '", name, "' is required"));
  }
  return a->graphs[0].get();
}

absl::Status ValidateSubgraph(const Graph& graph) {
  for (const Node& node : graph.nodes) {
    absl::StatusOr<const Op*> op = OpRegistry::Global().Find(node);
    if (!op.ok()) {
      return absl::Status(op.status().code(),
                          absl::StrCat("in its subgraph: ", op.status().message()));
    }
    if (absl::Status s = (*op)->Validate(node); !s.ok()) {
      return absl::Status(s.code(),
                          absl::StrCat("in its subgraph: ", node.Describe(), ": ", s.message()));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> EmitIdentity(ExpandContext& ctx, const std::string& in,
                                         const std::string& out) {
  RETURN_IF_ERROR(ctx.Emit(MakeNode("Identity", {in}, {out}, 16, out + "/identity")));
  return out;
}

absl::StatusOr<std::string> EmitGatherIndex(ExpandContext& ctx, const std::string& in,
                                            int64_t index, int64_t axis, const std::string& hint) {
  const std::string idx = ctx.NewName(hint + "/index");
  Node constant = MakeNode("Constant", {}, {idx}, 13, idx);
  constant.attributes["value_int"] = MakeInt(index);
  RETURN_IF_ERROR(ctx.Emit(std::move(constant)));
  const std::string out = ctx.NewName(hint);
  Node gather = MakeNode("Gather", {in, idx}, {out}, 13, out);
  gather.attributes["axis"] = MakeInt(axis);
  RETURN_IF_ERROR(ctx.Emit(std::move(gather)));
  return out;
}

absl::Status EmitStack(ExpandContext& ctx, const std::vector<std::string>& parts, int64_t axis,
                       const std::string& out) {
  std::vector<std::string> expanded;
  for (const std::string& p : parts) {
    const std::string e = ctx.NewName(p + "/expanded");
    Node unsqueeze = MakeNode("Unsqueeze", {p}, {e}, 11, e);
    unsqueeze.attributes["axes"] = MakeInts({axis});
    RETURN_IF_ERROR(ctx.Emit(std::move(unsqueeze)));
    expanded.push_back(e);
  }
  Node concat = MakeNode("Concat", expanded, {out}, 13, out + "/stack");
  concat.attributes["axis"] = MakeInt(axis);
  return ctx.Emit(std::move(concat));
}

}  // namespace vkserve
