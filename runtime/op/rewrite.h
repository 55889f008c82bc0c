// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Rewrite: a load-time replacement of one stored node by plain nodes that
// vkserve has GPU kernels for. It is how operators that exist only as
// another runtime's fusions — ONNX Runtime's com.microsoft contrib ops
// (FusedConv, FusedMatMul, SkipLayerNormalization, ...) and its NCHWc
// blocked-layout ops — run on the GPU: FusedConv becomes Conv + Relu, which
// the epilogue fusion pass then merges back into one GPU kernel.
//
// A rewrite is registered once per (domain, op_type, opset range) by a
// VKSERVE_REGISTER_REWRITE line at the end of its own file
// (runtime/lowering/<group>/<op>.cc); no central switch names op types. The opset is
// the model's import of the node's domain, as for OpRegistry (runtime/op/registry.h).
//
// ApplyRewrites runs before ops are matched: each node with a rewrite is
// replaced, in place, by the nodes its rewrite adds (which may themselves be
// rewritten, up to a small depth). Every added node records the stored node
// it came from in Node::rewritten_from, so `vkserve inspect` can say what
// runs for each node of the file.
//
// The registry is filled during static initialization and read-only after;
// rewrites are stateless and thread-safe.
#ifndef VKSERVE_RUNTIME_OP_REWRITE_H_
#define VKSERVE_RUNTIME_OP_REWRITE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/status_macros.h"
#include "runtime/ir/graph.h"
#include "runtime/op/registry.h"

namespace vkserve {

// What a rewrite sees of the graph and how it builds the replacement.
class RewriteContext {
 public:
  // `graph` must outlive the context; `node` is the node being replaced.
  // `facts` is shared by every rewrite of one ApplyRewrites pass.
  RewriteContext(const Graph& graph, const Node& node, std::map<std::string, int>* name_counts,
                 std::map<std::string, int64_t>* facts);

  const Node& node() const { return node_; }
  // The graph with its nodes as stored (before any rewrite ran), e.g. to
  // look at a value's consumers.
  const Graph& graph() const { return graph_; }

  // Stored input i, or "" when omitted or beyond the node's inputs.
  const std::string& input(size_t i) const;
  // Stored output i, or "" when omitted or beyond the node's outputs.
  const std::string& output(size_t i) const;

  // The initializer (stored or added by this rewrite) named `name`, or null.
  const HostTensor* initializer(const std::string& name) const;
  // The declared type of a graph input, output or value_info entry, or null.
  const TensorType* declared_type(const std::string& name) const;
  // The shape of `name` where the file states one (an initializer's, all
  // fixed, or a declared type's), else nullopt.
  std::optional<std::vector<Dim>> known_shape(const std::string& name) const;

  // Facts about the whole stored graph that one rewrite derives and the
  // others of the same pass reuse (e.g. the NCHWc block size), by key. The
  // stored graph does not change during a pass, so they stay true.
  std::map<std::string, int64_t>& pass_facts() { return *facts_; }

  // A value name unused in the graph, derived from the node's name and `hint`.
  std::string NewValueName(std::string_view hint);

  // Appends a node to the replacement; returns it for setting attributes.
  // Nodes must be added in an order where each reads only values defined
  // before it (stored values, added initializers, earlier added nodes).
  // `opset` is the opset the node's semantics follow (e.g. 13 for Softmax
  // with a single axis), independent of the model's imports.
  Node& AddNode(std::string op_type, std::vector<std::string> inputs,
                std::vector<std::string> outputs, int64_t opset, std::string domain = "");

  // Adds an initializer (a re-laid-out weight, a constant scale); returns its
  // name, derived from `hint` and unused in the graph.
  std::string AddInitializer(std::string_view hint, HostTensor tensor);

  // Taken by ApplyRewrites.
  std::vector<Node>& added_nodes() { return nodes_; }
  std::map<std::string, HostTensor>& added_initializers() { return initializers_; }

 private:
  std::string UniqueName(std::string_view base);

  const Graph& graph_;
  const Node& node_;
  std::map<std::string, int>* name_counts_;
  std::map<std::string, int64_t>* facts_;
  std::vector<Node> nodes_;
  std::map<std::string, HostTensor> initializers_;
};

class Rewrite {
 public:
  virtual ~Rewrite() = default;
  // Builds the replacement of ctx.node() with ctx.AddNode/AddInitializer.
  // Every stored output the graph uses must be produced by an added node
  // under the same name. Unsupported attribute values are UNIMPLEMENTED,
  // malformed ones INVALID_ARGUMENT; messages need not name the node.
  virtual absl::Status Apply(RewriteContext& ctx) const = 0;
};

using RewriteRegistration = Registration<Rewrite>;

class RewriteRegistry : public Registry<Rewrite> {
 public:
  // The process-wide registry that VKSERVE_REGISTER_REWRITE fills.
  static RewriteRegistry& Global();
  // The rewrite for `node`, or null when it has none (then it runs as is).
  const Rewrite* Find(const Node& node) const;
};

// Replaces every node that has a rewrite, in place, keeping topological
// order. value_info entries of replaced nodes' outputs are dropped (a blocked
// layout's declared shapes no longer hold). Returns how many stored nodes were
// rewritten; errors name the node.
absl::StatusOr<int> ApplyRewrites(Graph* graph);

#define VKSERVE_REGISTER_REWRITE(domain, op_type, min_opset, max_opset, RewriteClass)             \
  static const ::vkserve::internal::Registrar<::vkserve::RewriteRegistry, ::vkserve::Rewrite>     \
  VKSERVE_CONCAT_(vkserve_rewrite_registrar_, __COUNTER__)(domain, op_type, min_opset, max_opset, \
                                                           std::make_unique<RewriteClass>())

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_OP_REWRITE_H_
