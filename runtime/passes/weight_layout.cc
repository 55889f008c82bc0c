// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/passes/weight_layout.h"

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "runtime/op/graph_uses.h"
#include "runtime/ops/math/mat_mul.h"

namespace vkserve {
namespace {

// Input `i` of `node` is the B of a MatMul that reads it untransposed.
bool IsPlainMatMulB(const Node& node, size_t i) {
  return i == 1 && node.domain.empty() && node.op_type == "MatMul" &&
         node.GetInt(kMatMulTransBAttr, 0) == 0;
}

bool Unaligned(const HostTensor& t) {
  return (t.dtype == DataType::kFloat || t.dtype == DataType::kFloat16) && t.shape.size() == 2 &&
         t.shape[0] > 0 && t.shape[1] > 1 && t.shape[0] % 8 == 0 && t.shape[1] % 8 != 0;
}

// `t` [K, N] as [N, K].
void Transpose(HostTensor& t) {
  const size_t k = static_cast<size_t>(t.shape[0]), n = static_cast<size_t>(t.shape[1]);
  const size_t width = t.dtype == DataType::kFloat ? 4 : 2;
  std::vector<uint8_t> out(t.data.size());
  const uint8_t* in = t.data.data();
  for (size_t r = 0; r < k; ++r) {
    for (size_t c = 0; c < n; ++c)
      std::memcpy(out.data() + (c * k + r) * width, in + (r * n + c) * width, width);
  }
  t.data = TensorBytes(std::move(out));
  t.shape = {static_cast<int64_t>(n), static_cast<int64_t>(k)};
}

}  // namespace

int TransposeUnalignedMatMulWeights(Graph* graph) {
  if (HasSubgraphs(*graph)) return 0;
  std::map<std::string, bool> only_b;  // name -> read only as a plain MatMul's B
  for (const Node& node : graph->nodes) {
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      if (node.inputs[i].empty()) continue;
      auto [it, inserted] = only_b.emplace(node.inputs[i], IsPlainMatMulB(node, i));
      if (!inserted) it->second = it->second && IsPlainMatMulB(node, i);
    }
  }
  // A graph input may override an initializer with a [K, N] of its own.
  for (const ValueInfo& in : graph->inputs) only_b[in.name] = false;
  for (const ValueInfo& out : graph->outputs) only_b[out.name] = false;
  int transposed = 0;
  for (auto& [name, tensor] : graph->initializers) {
    auto it = only_b.find(name);
    if (it == only_b.end() || !it->second || !Unaligned(tensor)) continue;
    Transpose(tensor);
    for (Node& node : graph->nodes) {
      if (node.inputs.size() > 1 && node.inputs[1] == name) {
        Attribute a;
        a.type = Attribute::Type::kInt;
        a.i = 1;
        node.attributes[kMatMulTransBAttr] = a;
      }
    }
    ++transposed;
  }
  return transposed;
}

}  // namespace vkserve
