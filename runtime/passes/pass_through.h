// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Pass-through nodes (OpTraits::passes_through): Identity, and Concat of a single
// input, whose output is its input. The TorchScript exporter writes Hugging Face GPT-2's key and
// value caches that way (a Concat of the new keys alone along the sequence
// axis when there are no past keys), and such a node between the head
// Transposes and the attention hides the pattern the attention layout and
// QKV packing match (runtime/passes/attention_layout.h, runtime/passes/qkv_packing.h):
// GPT-2 then kept its Split and four Transposes per layer. Both ops are
// already aliases at plan time (no dispatch); this pass takes them out of
// the graph before the fusions match, the readers reading the input
// instead. A node whose output is a graph output stays, as does every node
// of a graph with subgraphs (whose bodies may read a value by name). Each
// removed node is recorded as absorbed by its first reader, for inspect.
// Not thread-safe: it rewrites the graph it is given.
#ifndef VKSERVE_RUNTIME_PASSES_PASS_THROUGH_H_
#define VKSERVE_RUNTIME_PASSES_PASS_THROUGH_H_

#include <vector>

#include "runtime/ir/graph.h"
#include "runtime/op/op.h"

namespace vkserve {

// Main graph only, and only when it holds no control-flow subgraph (scope
// kMainGraphWithoutSubgraphs, load_passes.h): it reads every reader across the
// graph, and a subgraph may read any value of the graph by name.
//
// Rewrites `graph` in place (`ops[n]`: node n's op). Returns how many nodes it
// removed.
int DropPassThroughNodes(Graph* graph, const std::vector<const Op*>& ops);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_PASSES_PASS_THROUGH_H_
