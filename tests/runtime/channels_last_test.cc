// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The channels-last pass (runtime/passes/channels_last.h) on hand-built
// graphs: which Convs it marks NHWC, the Transposes it inserts (one per
// value in, one per value read as NCHW out), the weights' repacked bytes,
// and what keeps a Conv NCHW. (tests/ops/cases/conv_nhwc_cases.py runs such
// models against onnxruntime.)
#include "runtime/passes/channels_last.h"

#include <cstring>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/kernels/gemm/gemm_plan.h"
#include "runtime/ops/nn/conv_layout.h"
#include "tests/testing/graph_helpers.h"

namespace vkserve {
namespace {

using ::testing::ElementsAre;
using testing::MakeNode;
using testing::OpTypes;

// [o, i, kh, kw] holding 0, 1, 2, ... in row-major order.
HostTensor Counting(int64_t o, int64_t i, int64_t kh, int64_t kw) {
  std::vector<float> v(static_cast<size_t>(o * i * kh * kw));
  for (size_t n = 0; n < v.size(); ++n) v[n] = static_cast<float>(n);
  return HostTensor::FromFloats(v, {o, i, kh, kw});
}

TensorDesc Desc(std::vector<int64_t> shape) {
  TensorDesc d;
  d.dtype = DataType::kFloat16;
  d.shape = std::move(shape);
  return d;
}

float At(const HostTensor& t, int64_t i) {
  float f;
  std::memcpy(&f, t.data.data() + 4 * i, 4);
  return f;
}

// x [1, 8, 5, 5] -> Conv a (3x3) -> Conv b (1x1) -> Relu -> y, and Conv d
// reading a with a weight a Gather reads too.
struct Chain {
  Graph graph;
  ValueShapes shapes;
  Chain() {
    Graph& g = graph;
    g.inputs.push_back({"x", {}});
    g.outputs.push_back({"y", {}});
    g.outputs.push_back({"g", {}});
    g.initializers["wa"] = Counting(8, 8, 3, 3);
    g.initializers["wb"] = Counting(16, 8, 1, 1);
    g.initializers["wd"] = Counting(8, 8, 1, 1);
    g.nodes.push_back(MakeNode("a", "Conv", {"x", "wa"}, "a"));
    g.nodes.push_back(MakeNode("b", "Conv", {"a", "wb"}, "b"));
    g.nodes.push_back(MakeNode("relu", "Relu", {"b"}, "y"));
    g.nodes.push_back(MakeNode("d", "Conv", {"a", "wd"}, "d"));
    g.nodes.push_back(MakeNode("gather", "Gather", {"wd", "d"}, "g"));
    for (const char* v : {"x", "a", "d"}) shapes[v] = Desc({1, 8, 5, 5});
    shapes["b"] = Desc({1, 16, 5, 5});
  }
  void Pin(size_t node, const char* plan) {
    graph.nodes[node].attributes[kGemmPlanAttr].type = Attribute::Type::kString;
    graph.nodes[node].attributes[kGemmPlanAttr].s = plan;
  }
  absl::StatusOr<int> Run(bool fp16_activations, bool tensor_cores) {
    return ConvertConvsToChannelsLast(
        &graph, shapes, shapes,
        {.fp16_activations = fp16_activations, .tensor_cores = tensor_cores});
  }
};

bool Nhwc(const Node& n) { return n.GetString(kConvLayoutAttr, "") == kConvLayoutNhwc; }

TEST(ChannelsLastTest, KeepsChainsNhwcWithOneTransposePerValue) {
  Chain c;
  ASSERT_EQ(*c.Run(/*fp16_activations=*/false, /*tensor_cores=*/true), 2);
  const std::vector<Node>& n = c.graph.nodes;
  // x in; a out (d reads it NCHW); b out (Relu reads it); d keeps NCHW (its
  // weight is shared).
  EXPECT_THAT(OpTypes(c.graph), ElementsAre("Transpose", "Conv", "Transpose", "Conv", "Transpose",
                                            "Relu", "Conv", "Gather"));
  EXPECT_EQ(n[0].inputs[0], "x");
  EXPECT_THAT(n[0].GetInts("perm"), ElementsAre(0, 2, 3, 1));
  EXPECT_TRUE(Nhwc(n[1]) && Nhwc(n[3]));
  EXPECT_FALSE(Nhwc(n[6]));
  EXPECT_EQ(n[1].inputs[0], n[0].outputs[0]);
  EXPECT_EQ(n[3].inputs[0], n[1].outputs[0]);  // b reads a's NHWC form
  EXPECT_EQ(n[2].inputs[0], n[1].outputs[0]);
  EXPECT_THAT(n[2].GetInts("perm"), ElementsAre(0, 3, 1, 2));
  EXPECT_EQ(n[2].outputs[0], "a");  // the NCHW value keeps its name
  EXPECT_EQ(n[4].outputs[0], "b");
  EXPECT_EQ(n[6].inputs[0], "a");
  // wa [8, 8, 3, 3] is now [8, 3, 3, 8]: element (o, y, x, i) was (o, i, y, x).
  const HostTensor& wa = c.graph.initializers["wa"];
  ASSERT_EQ(wa.shape, (std::vector<int64_t>{8, 3, 3, 8}));
  for (int64_t o = 0; o < 8; ++o) {
    for (int64_t i = 0; i < 8; ++i) {
      for (int64_t y = 0; y < 3; ++y) {
        for (int64_t x = 0; x < 3; ++x) {
          ASSERT_EQ(At(wa, ((o * 3 + y) * 3 + x) * 8 + i),
                    static_cast<float>(((o * 8 + i) * 3 + y) * 3 + x));
        }
      }
    }
  }
  EXPECT_EQ(c.graph.initializers["wd"].shape, (std::vector<int64_t>{8, 8, 1, 1}));
}

TEST(ChannelsLastTest, LeavesConvsTheEngineCannotRunNhwc) {
  // fp32 activations at FP32 precision.
  Chain fp32;
  for (auto& [name, desc] : fp32.shapes) desc.dtype = DataType::kFloat;
  EXPECT_EQ(*fp32.Run(/*fp16_activations=*/false, /*tensor_cores=*/true), 0);
  // The same at FP16 precision (activations kept in fp16).
  EXPECT_EQ(*fp32.Run(/*fp16_activations=*/true, /*tensor_cores=*/true), 2);
  // No tensor cores: only a Conv pinning a tensor-core tile.
  Chain pinned;
  pinned.Pin(1, "cm64x64");
  pinned.Pin(0, "64x64");
  EXPECT_EQ(*pinned.Run(false, /*tensor_cores=*/false), 1);
  EXPECT_TRUE(Nhwc(pinned.graph.nodes[2]));  // b, after a and a's Transpose to NHWC
  // Channels not a multiple of 8, groups, or a non-constant weight.
  Chain odd;
  odd.shapes["x"].shape = {1, 6, 5, 5};
  odd.graph.initializers["wa"] = Counting(8, 6, 3, 3);
  odd.graph.nodes[1].attributes["group"].type = Attribute::Type::kInt;
  odd.graph.nodes[1].attributes["group"].i = 2;
  odd.graph.nodes[1].inputs[1] = "x";
  EXPECT_EQ(*odd.Run(false, true), 0);
  EXPECT_THAT(OpTypes(odd.graph), ElementsAre("Conv", "Conv", "Relu", "Conv", "Gather"));
}

// x -> p (1x1) -> q (1x1) -> y: a chain of 1x1 Convs; z -> s (3x3) -> v,
// and z -> u (1x1) -> w: u joins s's chain by reading the same value.
TEST(ChannelsLastTest, SpatialChainsOnlyLeavesChainsOf1x1ConvsNchw) {
  auto build = [](Graph& g, ValueShapes& shapes) {
    g.inputs = {{"x", {}}, {"z", {}}};
    g.outputs = {{"y", {}}, {"v", {}}, {"w", {}}};
    g.initializers["wp"] = Counting(8, 8, 1, 1);
    g.initializers["wq"] = Counting(8, 8, 1, 1);
    g.initializers["ws"] = Counting(8, 8, 3, 3);
    g.initializers["wu"] = Counting(8, 8, 1, 1);
    g.nodes.push_back(MakeNode("p", "Conv", {"x", "wp"}, "p"));
    g.nodes.push_back(MakeNode("q", "Conv", {"p", "wq"}, "y"));
    g.nodes.push_back(MakeNode("s", "Conv", {"z", "ws"}, "v"));
    g.nodes.push_back(MakeNode("u", "Conv", {"z", "wu"}, "w"));
    for (const char* v : {"x", "p", "y", "z", "v", "w"}) shapes[v] = Desc({1, 8, 5, 5});
  };
  Graph all;
  ValueShapes shapes;
  build(all, shapes);
  EXPECT_EQ(*ConvertConvsToChannelsLast(&all, shapes, shapes, {.tensor_cores = true}), 4);

  Graph spatial;
  build(spatial, shapes);
  EXPECT_EQ(*ConvertConvsToChannelsLast(&spatial, shapes, shapes,
                                        {.tensor_cores = true, .spatial_chains_only = true}),
            2);
  // p and q as they were; z transposed once for s and u.
  EXPECT_THAT(OpTypes(spatial), ElementsAre("Conv", "Conv", "Transpose", "Conv", "Transpose",
                                            "Conv", "Transpose"));
  EXPECT_FALSE(Nhwc(spatial.nodes[0]) || Nhwc(spatial.nodes[1]));
  EXPECT_TRUE(Nhwc(spatial.nodes[3]) && Nhwc(spatial.nodes[5]));
  EXPECT_EQ(spatial.nodes[3].inputs[0], spatial.nodes[5].inputs[0]);
  EXPECT_EQ(spatial.initializers["wp"].shape, (std::vector<int64_t>{8, 8, 1, 1}));

  // p now shares u's weight: p's chain stays NCHW, so u keeps NCHW too (its
  // weight is not repacked under p).
  Graph shared;
  build(shared, shapes);
  shared.nodes[0].inputs[1] = "wu";
  EXPECT_EQ(*ConvertConvsToChannelsLast(&shared, shapes, shapes,
                                        {.tensor_cores = true, .spatial_chains_only = true}),
            1);
  EXPECT_EQ(shared.initializers["wu"].shape, (std::vector<int64_t>{8, 8, 1, 1}));
  EXPECT_TRUE(Nhwc(shared.nodes[3]));  // s, after z's Transpose
}

}  // namespace
}  // namespace vkserve
