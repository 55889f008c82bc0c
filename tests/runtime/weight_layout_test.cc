// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The load-time re-layout of unaligned MatMul weights (runtime/
// weight_layout.h): which initializers it transposes, their bytes after, and
// the transpose flag on their readers. (tests/ops/cases/weight_layout_cases.py
// runs such models against onnxruntime.)
#include "runtime/passes/weight_layout.h"

#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/ops/math/mat_mul.h"

namespace vkserve {
namespace {

// [k, n] holding 0, 1, 2, ... in row-major order.
HostTensor Counting(int64_t k, int64_t n) {
  std::vector<float> v(static_cast<size_t>(k * n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
  return HostTensor::FromFloats(v, {k, n});
}

Node Op(const std::string& type, std::vector<std::string> inputs) {
  Node n;
  n.name = type + "_" + inputs.back();
  n.op_type = type;
  n.inputs = std::move(inputs);
  n.outputs = {n.name + "_y"};
  return n;
}

float At(const HostTensor& t, int64_t i) {
  float f;
  std::memcpy(&f, t.data.data() + 4 * i, 4);
  return f;
}

TEST(TransposeUnalignedMatMulWeightsTest, TransposesOnlyUnalignedPlainMatMulWeights) {
  Graph g;
  for (const char* w :
       {"lm_head", "aligned", "short_k", "shared", "as_a", "output", "input", "trans"}) {
    g.initializers[w] = Counting(16, 13);
  }
  g.initializers["aligned"] = Counting(16, 24);
  g.initializers["short_k"] = Counting(12, 13);
  g.nodes.push_back(Op("MatMul", {"x", "lm_head"}));  // transposed
  g.nodes.push_back(Op("MatMul", {"x", "aligned"}));  // N a multiple of 8
  g.nodes.push_back(Op("MatMul", {"x", "short_k"}));  // K not a multiple of 8
  g.nodes.push_back(Op("MatMul", {"x", "shared"}));   // also read by a Gather
  g.nodes.push_back(Op("Gather", {"shared", "ids"}));
  g.nodes.push_back(Op("MatMul", {"as_a", "x"}));    // A, not B
  g.nodes.push_back(Op("MatMul", {"x", "output"}));  // a graph output
  g.nodes.push_back(Op("MatMul", {"x", "input"}));   // a graph input may replace it
  Node trans = Op("MatMul", {"x", "trans"});         // already read transposed
  trans.attributes[kMatMulTransBAttr].type = Attribute::Type::kInt;
  trans.attributes[kMatMulTransBAttr].i = 1;
  g.nodes.push_back(trans);
  g.outputs.push_back({"output", {}});
  g.inputs.push_back({"input", {}});

  EXPECT_EQ(TransposeUnalignedMatMulWeights(&g), 1);
  const HostTensor& t = g.initializers["lm_head"];
  ASSERT_EQ(t.shape, (std::vector<int64_t>{13, 16}));
  for (int64_t c = 0; c < 13; ++c) {
    for (int64_t r = 0; r < 16; ++r) ASSERT_EQ(At(t, c * 16 + r), static_cast<float>(r * 13 + c));
  }
  EXPECT_EQ(g.nodes[0].GetInt(kMatMulTransBAttr, 0), 1);
  for (size_t n = 1; n < 8; ++n) {
    EXPECT_EQ(g.nodes[n].GetInt(kMatMulTransBAttr, 0), 0) << g.nodes[n].name;
  }
  for (const char* w : {"shared", "as_a", "output", "input", "trans"}) {
    EXPECT_EQ(g.initializers[w].shape, (std::vector<int64_t>{16, 13})) << w;
  }
}

}  // namespace
}  // namespace vkserve
