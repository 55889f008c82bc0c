// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Initializers rewritten as fp16 in place: what the FP16 weight pass
// (passes/fp16_weights.h) and the planner's fp16 activations
// (plan/fp16_activations.h) share. Pure functions; thread-compatible.
#ifndef VKSERVE_RUNTIME_IR_FP16_TENSORS_H_
#define VKSERVE_RUNTIME_IR_FP16_TENSORS_H_

#include <functional>
#include <string>
#include <vector>

#include "runtime/ir/graph.h"

namespace vkserve {

// The names of `graph`'s float initializers that are not graph outputs and
// every read of which (node index, input index) satisfies `use`.
std::vector<std::string> FloatInitializersReadOnlyWhere(
    const Graph& graph, const std::function<bool(size_t node, size_t input)>& use);

// Rewrites a float tensor as fp16 (FloatToHalf); `saturate`: clamped to
// +-65504 first (SaturateToHalfRange).
void ConvertToHalf(HostTensor* tensor, bool saturate);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_IR_FP16_TENSORS_H_
