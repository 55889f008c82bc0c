// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// FP16 precision's weight storage: at load, every fp32 initializer that only
// FP16-precision GEMMs read, and only as the B operand they round to fp16
// (OpTraits::half_rounded_weight_input: MatMul's and Gemm's), becomes an fp16
// initializer (rounded to nearest, ties to even), so the GPU holds and streams
// half its bytes and the GEMM kernels read it as fp16 directly (the "_b16"
// variants of the GEMM engine) instead of rounding every element they load.
// The result is the one the FP16 contract already gives: those kernels round
// B to fp16 anyway. Pure functions; thread-compatible.
#ifndef VKSERVE_RUNTIME_PASSES_FP16_WEIGHTS_H_
#define VKSERVE_RUNTIME_PASSES_FP16_WEIGHTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/ir/graph.h"
#include "runtime/op/op.h"

namespace vkserve {

// Converts the initializers described above in `graph` (whose nodes carry
// their precision, SetPrecision; `ops[n]` is node n's op) and returns how
// many. Leaves graphs with
// control-flow subgraphs alone (a subgraph may read an outer initializer),
// and initializers that are graph outputs or read anywhere else.
int StoreWeightsInFp16(Graph* graph, const std::vector<const Op*>& ops);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_PASSES_FP16_WEIGHTS_H_
