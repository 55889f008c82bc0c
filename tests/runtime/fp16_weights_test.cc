// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// FP16 precision's weight storage (runtime/fp16_weights.h): the float -> half
// conversion against the compiler's _Float16, and which initializers the
// load-time pass converts.
#include "runtime/fp16_weights.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/activation.h"

namespace vkserve {
namespace {

uint16_t Reference(float f) {
  const _Float16 h = static_cast<_Float16>(f);
  uint16_t bits;
  std::memcpy(&bits, &h, 2);
  return bits;
}

TEST(FloatToHalfTest, KnownValues) {
  EXPECT_EQ(FloatToHalf(1.0f), 0x3C00);
  EXPECT_EQ(FloatToHalf(-2.0f), 0xC000);
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7BFF);
  EXPECT_EQ(FloatToHalf(65519.99f), 0x7BFF);
  EXPECT_EQ(FloatToHalf(65520.0f), 0x7C00);  // the tie rounds to even: infinity
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -25)), 0x0000);  // tie to even
  EXPECT_EQ(FloatToHalf(std::ldexp(3.0f, -25)), 0x0002);  // tie to even
  EXPECT_EQ(FloatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
  EXPECT_EQ(FloatToHalf(1.0f + std::ldexp(3.0f, -11)), 0x3C02);
  EXPECT_EQ(FloatToHalf(std::numeric_limits<float>::infinity()), 0x7C00);
  const uint16_t nan = FloatToHalf(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7C00, 0x7C00);
  EXPECT_NE(nan & 0x03FF, 0);
}

TEST(FloatToHalfTest, MatchesTheCompilersConversion) {
  // About a million bit patterns spread over all floats (NaNs aside).
  for (uint64_t bits = 0; bits <= 0xFFFFFFFFu; bits += 4093) {
    const uint32_t u = static_cast<uint32_t>(bits);
    float f;
    std::memcpy(&f, &u, 4);
    if (std::isnan(f)) continue;
    ASSERT_EQ(FloatToHalf(f), Reference(f)) << "bits 0x" << std::hex << u;
  }
}

HostTensor Floats(std::vector<float> v) {
  const int64_t n = static_cast<int64_t>(v.size());
  return HostTensor::FromFloats(v, {n, 1});
}

Node GemmNode(const std::string& op, std::vector<std::string> inputs, bool fp16) {
  Node n;
  n.name = op + "_" + inputs[1];
  n.op_type = op;
  n.inputs = std::move(inputs);
  n.outputs = {n.name + "_y"};
  if (fp16) SetPrecision(Precision::kFp16, &n);
  return n;
}

TEST(StoreWeightsInFp16Test, ConvertsOnlyWeightsOfFp16Gemms) {
  Graph g;
  for (const char* w : {"w1", "w2", "w3", "w4", "w5", "w6"}) {
    g.initializers[w] = Floats({1.0f, -2.0f, 1.0f + std::ldexp(3.0f, -11)});
  }
  g.initializers["i64"] = HostTensor::FromInts({1, 2}, {2});
  g.nodes.push_back(GemmNode("MatMul", {"x", "w1"}, true));        // converted
  g.nodes.push_back(GemmNode("Gemm", {"x", "w2", "c"}, true));     // converted
  g.nodes.push_back(GemmNode("MatMul", {"x", "w3"}, false));       // FP32 node
  g.nodes.push_back(GemmNode("MatMul", {"x", "w4"}, true));        // also read by Add
  Node add;
  add.op_type = "Add";
  add.inputs = {"w4", "x"};
  g.nodes.push_back(add);
  g.nodes.push_back(GemmNode("MatMul", {"w5", "x"}, true));        // A, not B
  g.nodes.push_back(GemmNode("MatMul", {"x", "w6"}, true));        // a graph output
  g.nodes.push_back(GemmNode("MatMul", {"x", "i64"}, true));       // not float
  g.outputs.push_back({"w6", {}});

  EXPECT_EQ(StoreWeightsInFp16(&g), 2);
  for (const char* w : {"w1", "w2"}) {
    const HostTensor& t = g.initializers[w];
    EXPECT_EQ(t.dtype, DataType::kFloat16) << w;
    ASSERT_EQ(t.data.size(), 6u);
    uint16_t h[3];
    std::memcpy(h, t.data.data(), 6);
    EXPECT_EQ(h[0], 0x3C00);
    EXPECT_EQ(h[1], 0xC000);
    EXPECT_EQ(h[2], 0x3C02);
    EXPECT_EQ(t.shape, (std::vector<int64_t>{3, 1}));
  }
  for (const char* w : {"w3", "w4", "w5", "w6"}) {
    EXPECT_EQ(g.initializers[w].dtype, DataType::kFloat) << w;
  }
  EXPECT_EQ(g.initializers["i64"].dtype, DataType::kInt64);
}

}  // namespace
}  // namespace vkserve
