// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// FP16 precision's weight storage (runtime/passes/fp16_weights.h): the float -> half
// conversion against the nearest half found by search, and which initializers the
// load-time pass converts.
#include "runtime/passes/fp16_weights.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/op/activation.h"
#include "runtime/op/op_registry.h"

namespace vkserve {
namespace {

// A half's exact value (finite patterns only).
double HalfValue(uint32_t h) {
  const int exponent = static_cast<int>((h >> 10) & 0x1F);
  const double mantissa = static_cast<double>(h & 0x3FF);
  return exponent == 0 ? std::ldexp(mantissa, -24) : std::ldexp(1024.0 + mantissa, exponent - 25);
}

// The half nearest to `f`, ties to the even pattern, found by search over
// every finite half's value: a reference that shares nothing with the bit
// manipulation under test (and needs no _Float16, which clang 14 lacks on
// x86-64). Magnitudes from 65520 up round to infinity.
uint16_t Reference(float f) {
  static const std::vector<double> kHalves = [] {
    std::vector<double> v;
    for (uint32_t h = 0; h <= 0x7BFF; ++h) v.push_back(HalfValue(h));  // ascending
    return v;
  }();
  const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  const double a = std::fabs(static_cast<double>(f));
  if (a >= 65520.0) return sign | 0x7C00;
  const size_t hi =
      static_cast<size_t>(std::lower_bound(kHalves.begin(), kHalves.end(), a) - kHalves.begin());
  if (hi == 0) return sign;  // zero
  if (hi == kHalves.size())
    return static_cast<uint16_t>(sign | 0x7BFF);  // above 65504, below the tie
  const size_t lo = hi - 1;
  const double below = a - kHalves[lo], above = kHalves[hi] - a;
  const size_t nearest = below < above ? lo : above < below ? hi : (lo % 2 == 0 ? lo : hi);
  return static_cast<uint16_t>(sign | nearest);
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

TEST(FloatToHalfTest, MatchesTheNearestHalf) {
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
  n.opset = 17;
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
  g.nodes.push_back(GemmNode("MatMul", {"x", "w1"}, true));     // converted
  g.nodes.push_back(GemmNode("Gemm", {"x", "w2", "c"}, true));  // converted
  g.nodes.push_back(GemmNode("MatMul", {"x", "w3"}, false));    // FP32 node
  g.nodes.push_back(GemmNode("MatMul", {"x", "w4"}, true));     // also read by Add
  Node add;
  add.op_type = "Add";
  add.opset = 17;
  add.inputs = {"w4", "x"};
  g.nodes.push_back(add);
  g.nodes.push_back(GemmNode("MatMul", {"w5", "x"}, true));   // A, not B
  g.nodes.push_back(GemmNode("MatMul", {"x", "w6"}, true));   // a graph output
  g.nodes.push_back(GemmNode("MatMul", {"x", "i64"}, true));  // not float
  g.outputs.push_back({"w6", {}});

  std::vector<const Op*> ops;
  for (const Node& node : g.nodes) {
    auto op = OpRegistry::Global().Find(node);
    ASSERT_TRUE(op.ok()) << op.status();
    ops.push_back(*op);
  }
  EXPECT_EQ(StoreWeightsInFp16(&g, ops), 2);
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
