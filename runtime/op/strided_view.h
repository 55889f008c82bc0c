// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// StridedView: where the elements of a value that data-movement nodes
// (Reshape, Unsqueeze, Squeeze, Flatten, Identity, Transpose, a Gather of
// one constant index) made lie in a value they started from: its shape, its
// element strides and the offset of its first element. A pass that lets a
// kernel read such a value in place, at strides and an offset, uses it
// instead of running the nodes that move the bytes. Plain data and pure
// functions; thread-safe.
#ifndef VKSERVE_RUNTIME_OP_STRIDED_VIEW_H_
#define VKSERVE_RUNTIME_OP_STRIDED_VIEW_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/ir/graph.h"
#include "runtime/op/graph_uses.h"
#include "runtime/op/op.h"

namespace vkserve {

struct StridedView {
  std::vector<int64_t> shape, strides;  // in elements; a dim of size 1 has stride 0
  int64_t offset = 0;                   // in elements
};

// The data-movement nodes `value` comes out of, nearest first: the
// producer of `value`, then the producer of its data input, and so on while
// each is such a node (matched by op type in the default domain; a Gather
// only with one index known at load). `roots`
// holds the values along the way: roots[i] is nodes[i]'s data input.
struct MovementChain {
  std::vector<size_t> nodes;
  std::vector<std::string> roots;
};
MovementChain MovementChainOf(const Graph& graph, const GraphUses& uses, const std::string& value,
                              const std::map<std::string, TensorDesc>& shapes);

// The view of `value` in chain.roots[depth] (the first depth + 1 nodes
// undone) at the signature `shapes` describes, or nullopt where a shape is
// unknown or the result has a dim whose elements are not one stride apart.
// The steps between may be views no single stride per dim describes (a
// Reshape merging N with the heads of a packed [S, N, 3 * H * E] row, say):
// each dim is followed as a product of factors, each with its own stride.
std::optional<StridedView> ViewInRoot(const Graph& graph, const MovementChain& chain, size_t depth,
                                      const std::map<std::string, TensorDesc>& shapes);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_OP_STRIDED_VIEW_H_
