// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Load-time re-layout of constant GEMM operands for the kernels' wide loads.
// A MatMul's constant B stored [K, N] is read along N; when N is not a
// multiple of 8 (GPT-2's tied LM head: [768, 50257], the exporter's
// Transpose of the embedding folded into a constant), no row of it is
// 16-byte aligned and the GEMM engine gathers it element by element. Stored
// [N, K] with K a multiple of 8 instead, and read transposed
// (runtime/ops/math/mat_mul.h's _vkserve_trans_b), every row is aligned. Runs on
// the graph before weights are uploaded; single-threaded.
#ifndef VKSERVE_RUNTIME_PASSES_WEIGHT_LAYOUT_H_
#define VKSERVE_RUNTIME_PASSES_WEIGHT_LAYOUT_H_

#include "runtime/ir/graph.h"

namespace vkserve {

// Transposes every float or float16 2-D initializer [K, N] that is read only
// as the B input of MatMuls without a B transpose (not a graph input or
// output), when N % 8 != 0 and
// K % 8 == 0, and marks those MatMuls _vkserve_trans_b = 1. Leaves graphs
// with subgraphs alone (a subgraph may read the initializer too). Returns
// how many initializers it transposed.
int TransposeUnalignedMatMulWeights(Graph* graph);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_PASSES_WEIGHT_LAYOUT_H_
