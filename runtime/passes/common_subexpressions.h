// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Common subexpression elimination: a node computing what an earlier node
// already computes (same op, domain, opset and attributes, reading the same
// values) goes, its readers reading the earlier node's outputs. Two inputs
// are the same value when they have the same name or are small initializers
// with the same type, shape and bytes (exporters write a Constant per use,
// which the loader lifts to initializers of their own names). Exporters
// repeat work per layer: BERT's key-padding mask is one Where per layer on
// the same inputs (12 dispatches for bert-base, one after this pass).
//
// Run after the fusions, on what they left: merging first would give values
// several readers and stop patterns that absorb a sole producer. Nodes whose
// results are not a function of their inputs (OpTraits::pure false) never merge; a
// node writing a graph output stays; a graph with subgraphs is left alone
// (their bodies may read any value by name). Each removed node is recorded as
// absorbed by the node it duplicates, for inspect.
// Not thread-safe: it rewrites the graph it is given.
#ifndef VKSERVE_RUNTIME_PASSES_COMMON_SUBEXPRESSIONS_H_
#define VKSERVE_RUNTIME_PASSES_COMMON_SUBEXPRESSIONS_H_

#include <vector>

#include "runtime/ir/graph.h"

namespace vkserve {

class Op;

// Main graph only, and only when it holds no control-flow subgraph (scope
// kMainGraphWithoutSubgraphs, load_passes.h): it reads every node's inputs
// across the graph, and a subgraph may read any value of the graph by name.
//
// Rewrites `graph` in place; `ops` holds each node's op (the caller matches
// them again when nodes were removed). Returns how many nodes it removed.
int EliminateCommonSubexpressions(Graph* graph, const std::vector<const Op*>& ops);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_PASSES_COMMON_SUBEXPRESSIONS_H_
