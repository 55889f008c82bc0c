// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// runtime/op/op_traits.h as the registered ops supply it: the defaults (a
// pure op with no part in fusion or FP16, an alias moving fp16), the GEMM
// ops' epilogue slots and fp16-rounded B, the activations' epilogue
// activation with constant parameters, Add as the one elementwise Add, and
// pass-through for Identity and one-input Concat only.
#include "runtime/op/op_traits.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/ir/graph.h"
#include "runtime/op/op_registry.h"
#include "tests/testing/graph_helpers.h"

namespace vkserve {
namespace {

using testing::MakeNode;

// The traits of the registered op for `node` (they outlive it).
const OpTraits& TraitsOf(const Node& node) {
  absl::StatusOr<const Op*> op = OpRegistry::Global().Find(node);
  EXPECT_TRUE(op.ok()) << op.status();
  static const OpTraits kNone;
  return op.ok() ? (*op)->traits() : kNone;
}

const OpTraits& TraitsOf(const char* op_type, std::vector<std::string> inputs = {"x"}) {
  return TraitsOf(MakeNode(op_type, op_type, std::move(inputs), "y", 17));
}

const ConstantInput kNoConstants = [](size_t) -> const HostTensor* { return nullptr; };

TEST(OpTraitsTest, DefaultsArePureWithNoPartInFusionOrFp16) {
  const OpTraits& softmax = TraitsOf("Softmax");
  EXPECT_TRUE(softmax.pure);
  EXPECT_FALSE(softmax.epilogue_slots.has_value());
  EXPECT_FALSE(softmax.elementwise_add);
  EXPECT_FALSE(softmax.computes_on_gemm_engine);
  EXPECT_EQ(softmax.float16, Float16Use::kNone);
  EXPECT_FALSE(softmax.RoundsWeightToHalf(1));
  EXPECT_FALSE(softmax.PassesThrough(MakeNode("s", "Softmax", {"x"}, "y")));
  EXPECT_EQ(softmax.EpilogueActivation(MakeNode("s", "Softmax", {"x"}, "y"), kNoConstants)
                .status()
                .code(),
            absl::StatusCode::kNotFound);
}

TEST(OpTraitsTest, AliasesMoveFp16) {
  EXPECT_EQ(TraitsOf("Reshape", {"x", "shape"}).float16, Float16Use::kMoves);
  EXPECT_EQ(TraitsOf("Flatten").float16, Float16Use::kMoves);
  EXPECT_EQ(TraitsOf("Identity").float16, Float16Use::kMoves);
}

TEST(OpTraitsTest, GemmOpsHaveEpilogueSlotsAndRoundB) {
  for (const char* type : {"Conv", "Gemm", "MatMul"}) {
    SCOPED_TRACE(type);
    const OpTraits& t = TraitsOf(type, {"a", "b"});
    ASSERT_TRUE(t.epilogue_slots.has_value());
    EXPECT_TRUE(t.computes_on_gemm_engine);
    EXPECT_EQ(t.float16, Float16Use::kComputes);
  }
  EXPECT_EQ(TraitsOf("Conv", {"a", "b"}).epilogue_slots->residual_input, 3);
  EXPECT_EQ(TraitsOf("Conv", {"a", "b"}).epilogue_slots->bias_input, -1);
  EXPECT_EQ(TraitsOf("MatMul", {"a", "b"}).epilogue_slots->residual_input, 2);
  EXPECT_EQ(TraitsOf("MatMul", {"a", "b"}).epilogue_slots->bias_input, 3);
  EXPECT_FALSE(TraitsOf("Conv", {"a", "b"}).RoundsWeightToHalf(1));
  for (const char* type : {"Gemm", "MatMul"}) {
    EXPECT_FALSE(TraitsOf(type, {"a", "b"}).RoundsWeightToHalf(0)) << type;
    EXPECT_TRUE(TraitsOf(type, {"a", "b"}).RoundsWeightToHalf(1)) << type;
  }
}

TEST(OpTraitsTest, ActivationsNameTheirEpilogueActivation) {
  absl::StatusOr<ActivationParams> relu =
      TraitsOf("Relu").EpilogueActivation(MakeNode("r", "Relu", {"x"}, "y", 17), kNoConstants);
  ASSERT_TRUE(relu.ok()) << relu.status();
  EXPECT_EQ(relu->kind, Activation::kRelu);
  EXPECT_EQ(TraitsOf("Relu").float16, Float16Use::kComputes);

  // Clip's bounds must be constants.
  const Node clip = MakeNode("c", "Clip", {"x", "lo", "hi"}, "y", 17);
  EXPECT_EQ(TraitsOf(clip).EpilogueActivation(clip, kNoConstants).status().code(),
            absl::StatusCode::kNotFound);
  const HostTensor lo = HostTensor::FromFloats({0.0f}, {});
  const HostTensor hi = HostTensor::FromFloats({6.0f}, {});
  absl::StatusOr<ActivationParams> relu6 =
      TraitsOf(clip).EpilogueActivation(clip, [&](size_t i) -> const HostTensor* {
        return i == 1 ? &lo : i == 2 ? &hi : nullptr;
      });
  ASSERT_TRUE(relu6.ok()) << relu6.status();
  EXPECT_EQ(relu6->kind, Activation::kClip);
  EXPECT_EQ(relu6->alpha, 0.0f);
  EXPECT_EQ(relu6->beta, 6.0f);
}

TEST(OpTraitsTest, OnlyAddIsTheElementwiseAdd) {
  EXPECT_TRUE(TraitsOf("Add", {"a", "b"}).elementwise_add);
  EXPECT_FALSE(TraitsOf("Sum", {"a", "b"}).elementwise_add);
  EXPECT_FALSE(TraitsOf("Mul", {"a", "b"}).elementwise_add);
  EXPECT_EQ(TraitsOf("Add", {"a", "b"}).float16, Float16Use::kComputes);
  EXPECT_EQ(TraitsOf("Pow", {"a", "b"}).float16, Float16Use::kNone);
}

TEST(OpTraitsTest, IdentityAndOneInputConcatPassThrough) {
  const Node identity = MakeNode("i", "Identity", {"x"}, "y", 17);
  EXPECT_TRUE(TraitsOf(identity).PassesThrough(identity));
  const Node one = MakeNode("c1", "Concat", {"x"}, "y", 17);
  const Node two = MakeNode("c2", "Concat", {"x", "z"}, "y", 17);
  EXPECT_TRUE(TraitsOf(one).PassesThrough(one));
  EXPECT_FALSE(TraitsOf(two).PassesThrough(two));
}

}  // namespace
}  // namespace vkserve
