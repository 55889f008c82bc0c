// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/fp16_weights.h"

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

uint16_t FloatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t a = x & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return sign | 0x7E00u;  // NaN
  if (a >= 0x477FF000u) return sign | 0x7C00u;  // >= 65520 rounds to infinity
  if (a < 0x38800000u) {
    // Below 2^-14: a subnormal half, in units of 2^-24 (scaling by 2^24 is
    // exact; the default rounding mode is to nearest even). 1024 units is
    // the smallest normal's encoding, so rounding up into it is right.
    float v;
    std::memcpy(&v, &a, 4);
    return sign | static_cast<uint16_t>(std::nearbyint(v * 16777216.0f));
  }
  const uint32_t rounded = a + 0xFFFu + ((a >> 13) & 1u);
  return sign | static_cast<uint16_t>((rounded >> 13) - ((127u - 15u) << 10));
}

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
