// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/passes/fp16_weights.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "runtime/ir/fp16_tensors.h"
#include "runtime/op/activation.h"
#include "runtime/op/graph_uses.h"

namespace vkserve {
namespace {

// Input `i` of `node` is rounded to fp16 as it is read: a GEMM's B operand
// (OpTraits::half_rounded_weight_input) in a node computing at FP16.
bool IsFp16WeightUse(const Node& node, const Op& op, size_t i) {
  return GetPrecision(node) == Precision::kFp16 && op.traits().RoundsWeightToHalf(i);
}

}  // namespace

int StoreWeightsInFp16(Graph* graph, const std::vector<const Op*>& ops) {
  if (HasSubgraphs(*graph)) return 0;
  const std::vector<std::string> weights = FloatInitializersReadOnlyWhere(
      *graph, [&](size_t n, size_t i) { return IsFp16WeightUse(graph->nodes[n], *ops[n], i); });
  for (const std::string& name : weights)
    ConvertToHalf(&graph->initializers[name], /*saturate=*/false);
  return static_cast<int>(weights.size());
}

}  // namespace vkserve
