// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/fp16_weights.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "runtime/activation.h"
#include "runtime/graph_uses.h"

namespace vkserve {
namespace {

// Input `i` of `node` is the B operand of a GEMM computing at FP16.
bool IsFp16WeightUse(const Node& node, size_t i) {
  return i == 1 && node.domain.empty() && (node.op_type == "MatMul" || node.op_type == "Gemm") &&
         GetPrecision(node) == Precision::kFp16;
}

}  // namespace

int StoreWeightsInFp16(Graph* graph) {
  if (HasSubgraphs(*graph)) return 0;
  std::map<std::string, bool> only_weight;  // name -> read only as an FP16 GEMM's B
  for (const Node& node : graph->nodes) {
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      if (node.inputs[i].empty()) continue;
      const bool weight = IsFp16WeightUse(node, i);
      auto [it, inserted] = only_weight.emplace(node.inputs[i], weight);
      if (!inserted) it->second = it->second && weight;
    }
  }
  for (const ValueInfo& out : graph->outputs) only_weight[out.name] = false;
  int converted = 0;
  for (auto& [name, tensor] : graph->initializers) {
    auto it = only_weight.find(name);
    if (it == only_weight.end() || !it->second || tensor.dtype != DataType::kFloat) continue;
    const size_t n = tensor.data.size() / 4;
    std::vector<uint8_t> half(n * 2);
    for (size_t e = 0; e < n; ++e) {
      float v;
      std::memcpy(&v, tensor.data.data() + e * 4, 4);
      const uint16_t h = FloatToHalf(v);
      std::memcpy(half.data() + e * 2, &h, 2);
    }
    tensor.dtype = DataType::kFloat16;
    tensor.data = TensorBytes(std::move(half));
    ++converted;
  }
  return converted;
}

}  // namespace vkserve
