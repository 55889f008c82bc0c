// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Inlining a control-flow op's subgraph (If's branch, one Loop or Scan
// iteration's body) into the plan being built: its nodes are emitted through
// an ExpandContext with every value the subgraph defines renamed to a fresh
// plan name (so a body unrolled N times defines N distinct values), names it
// reads from enclosing scopes left as they are, and its initializers emitted
// as Constant nodes. Nested subgraphs are copied with their reads of renamed
// values renamed too. Also the small node builders the control-flow ops
// share. Pure functions; thread-safe.
#ifndef VKSERVE_RUNTIME_OPS_CONTROLFLOW_SUBGRAPH_INLINE_H_
#define VKSERVE_RUNTIME_OPS_CONTROLFLOW_SUBGRAPH_INLINE_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/op/op.h"

namespace vkserve {

// Emits `body` with its inputs bound: `inputs[i]` is the plan value body
// input i reads (body inputs beyond `inputs` are an error). `prefix` starts
// every fresh name. Returns the plan values of the body's outputs, in order.
absl::StatusOr<std::vector<std::string>> InlineSubgraph(ExpandContext& ctx, const Graph& body,
                                                        const std::vector<std::string>& inputs,
                                                        const std::string& prefix);

// The graph attribute `name` of ctx.node(); INVALID_ARGUMENT when missing.
absl::StatusOr<const Graph*> GraphAttribute(const Node& node, const std::string& name);

// Load-time check for a control-flow node: every node of `graph` (and of its
// nested subgraphs) has a GPU op that accepts its attributes. Errors name the
// inner node.
absl::Status ValidateSubgraph(const Graph& graph);

// Node builders (emit at once; return the new value's name).
absl::StatusOr<std::string> EmitIdentity(ExpandContext& ctx, const std::string& in,
                                         const std::string& out);
absl::StatusOr<std::string> EmitGatherIndex(ExpandContext& ctx, const std::string& in,
                                            int64_t index, int64_t axis, const std::string& hint);
// Stacks `parts` along a new axis `axis` (Unsqueeze each, then Concat).
absl::Status EmitStack(ExpandContext& ctx, const std::vector<std::string>& parts, int64_t axis,
                       const std::string& out);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_OPS_CONTROLFLOW_SUBGRAPH_INLINE_H_
