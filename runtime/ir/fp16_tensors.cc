// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/ir/fp16_tensors.h"

#include <cstring>
#include <map>

#include "runtime/ir/data_type.h"

namespace vkserve {

std::vector<std::string> FloatInitializersReadOnlyWhere(
    const Graph& graph, const std::function<bool(size_t node, size_t input)>& use) {
  std::map<std::string, bool> only;  // name -> every read satisfies `use`
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const Node& node = graph.nodes[n];
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      if (node.inputs[i].empty()) continue;
      const bool ok = use(n, i);
      auto [it, inserted] = only.emplace(node.inputs[i], ok);
      if (!inserted) it->second = it->second && ok;
    }
  }
  for (const ValueInfo& out : graph.outputs) only[out.name] = false;
  std::vector<std::string> names;
  for (const auto& [name, tensor] : graph.initializers) {
    auto it = only.find(name);
    if (it != only.end() && it->second && tensor.dtype == DataType::kFloat) names.push_back(name);
  }
  return names;
}

void ConvertToHalf(HostTensor* tensor, bool saturate) {
  const size_t n = tensor->data.size() / 4;
  std::vector<uint8_t> half(n * 2);
  for (size_t e = 0; e < n; ++e) {
    float v;
    std::memcpy(&v, tensor->data.data() + e * 4, 4);
    const uint16_t h = FloatToHalf(saturate ? SaturateToHalfRange(v) : v);
    std::memcpy(half.data() + e * 2, &h, 2);
  }
  tensor->dtype = DataType::kFloat16;
  tensor->data = TensorBytes(std::move(half));
}

}  // namespace vkserve
