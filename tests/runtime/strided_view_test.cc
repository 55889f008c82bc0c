// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// runtime/op/strided_view.h on the chain torch.nn.MultiheadAttention's
// TorchScript export writes from the packed in_proj output to one head-split
// operand: the chain stops at a Gather whose index is not known at load, the
// view undoes every step (through a Reshape no single stride per dim
// describes), a view at a nearer root is the dense one of that root, and a
// value whose dims are not one stride apart each has no view.
#include "runtime/op/strided_view.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/lowering/rewrite_attributes.h"
#include "runtime/op/graph_uses.h"
#include "tests/testing/graph_helpers.h"

namespace vkserve {
namespace {

using ::testing::ElementsAre;
using testing::MakeNode;

constexpr int64_t kS = 7, kN = 3, kH = 2, kE = 8, kHd = kE / kH;

using Shapes = std::map<std::string, TensorDesc>;

TensorDesc Float(std::vector<int64_t> shape) { return {DataType::kFloat, std::move(shape), {}}; }

// qkv [S, N, 3E] -> Reshape [S, N, 3, E] -> Unsqueeze [1, S, N, 3, E] ->
// Transpose(3, 1, 2, 0, 4) -> Squeeze [3, S, N, E] -> Gather(index) [S, N, E]
// -> Reshape flat [S, N*H, hd] -> Transpose(1, 0, 2) [N*H, S, hd] ->
// Reshape q [N, H, S, hd].
struct Chain {
  Graph graph;
  Shapes shapes;
};

Chain PackedChain(int64_t index, bool index_known = true) {
  Chain c;
  Graph& g = c.graph;
  g.inputs.push_back({"qkv", {}});
  g.inputs.push_back({"i", {}});
  auto add = [&](const char* name, const char* op, std::vector<std::string> in, const char* out,
                 std::vector<int64_t> shape) {
    g.nodes.push_back(MakeNode(name, op, std::move(in), out));
    c.shapes[out] = Float(std::move(shape));
    return &g.nodes.back();
  };
  c.shapes["qkv"] = Float({kS, kN, 3 * kE});
  TensorDesc i{DataType::kInt64, {}, {}};
  if (index_known) i.value = std::make_shared<HostTensor>(HostTensor::FromInts({index}, {}));
  c.shapes["i"] = i;
  add("split", "Reshape", {"qkv", "s0"}, "split", {kS, kN, 3, kE});
  add("unsqueeze", "Unsqueeze", {"split", "a0"}, "u", {1, kS, kN, 3, kE});
  add("transpose", "Transpose", {"u"}, "t", {3, kS, kN, 1, kE})->attributes["perm"] =
      IntsAttribute({3, 1, 2, 0, 4});
  add("squeeze", "Squeeze", {"t", "a1"}, "sq", {3, kS, kN, kE});
  add("gather", "Gather", {"sq", "i"}, "x", {kS, kN, kE});
  add("flatten", "Reshape", {"x", "s1"}, "flat", {kS, kN * kH, kHd});
  add("heads", "Transpose", {"flat"}, "th", {kN * kH, kS, kHd})->attributes["perm"] =
      IntsAttribute({1, 0, 2});
  add("split_heads", "Reshape", {"th", "s2"}, "q", {kN, kH, kS, kHd});
  return c;
}

TEST(StridedViewTest, UndoesTheChainToThePackedProjection) {
  Chain c = PackedChain(1);
  const GraphUses uses(c.graph);
  const MovementChain chain = MovementChainOf(c.graph, uses, "q", c.shapes);
  ASSERT_EQ(chain.nodes.size(), 8u);
  EXPECT_EQ(chain.roots.back(), "qkv");
  std::optional<StridedView> v = ViewInRoot(c.graph, chain, chain.nodes.size() - 1, c.shapes);
  ASSERT_TRUE(v.has_value());
  EXPECT_THAT(v->shape, ElementsAre(kN, kH, kS, kHd));
  // K's columns of each packed row: batch one row apart, heads hd apart,
  // positions a whole [N, 3E] plane apart.
  EXPECT_THAT(v->strides, ElementsAre(3 * kE, kHd, kN * 3 * kE, 1));
  EXPECT_EQ(v->offset, kE);
}

TEST(StridedViewTest, ANearerRootIsDense) {
  Chain c = PackedChain(2);
  const GraphUses uses(c.graph);
  const MovementChain chain = MovementChainOf(c.graph, uses, "q", c.shapes);
  ASSERT_EQ(chain.roots[2], "x");
  std::optional<StridedView> v = ViewInRoot(c.graph, chain, 2, c.shapes);
  ASSERT_TRUE(v.has_value());
  EXPECT_THAT(v->strides, ElementsAre(kE, kHd, kN * kE, 1));
  EXPECT_EQ(v->offset, 0);
}

// [S, N*H, hd] of the packed rows: N*H elements are not one stride apart
// (a row of 3E holds H heads of one batch entry).
TEST(StridedViewTest, MergedDimsOfDifferentStridesHaveNoView) {
  Chain c = PackedChain(0);
  const GraphUses uses(c.graph);
  const MovementChain chain = MovementChainOf(c.graph, uses, "flat", c.shapes);
  ASSERT_EQ(chain.roots.back(), "qkv");
  EXPECT_FALSE(ViewInRoot(c.graph, chain, chain.nodes.size() - 1, c.shapes).has_value());
  // Up to the Gather's output it is a plain reshape.
  std::optional<StridedView> v = ViewInRoot(c.graph, chain, 0, c.shapes);
  ASSERT_TRUE(v.has_value());
  EXPECT_THAT(v->strides, ElementsAre(kN * kE, kHd, 1));
}

TEST(StridedViewTest, StopsAtAGatherOfAnIndexKnownOnlyAtRunTime) {
  Chain c = PackedChain(0, /*index_known=*/false);
  const GraphUses uses(c.graph);
  const MovementChain chain = MovementChainOf(c.graph, uses, "q", c.shapes);
  EXPECT_EQ(chain.nodes.size(), 3u);
  EXPECT_EQ(chain.roots.back(), "x");
}

TEST(StridedViewTest, NegativeIndexCountsFromTheEnd) {
  Chain c = PackedChain(-1);
  const GraphUses uses(c.graph);
  const MovementChain chain = MovementChainOf(c.graph, uses, "q", c.shapes);
  std::optional<StridedView> v = ViewInRoot(c.graph, chain, chain.nodes.size() - 1, c.shapes);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->offset, 2 * kE);
}

}  // namespace
}  // namespace vkserve
