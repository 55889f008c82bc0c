// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The one check of an input against its model input (CheckInputShape,
// CheckInput) and the copy of a host input's bytes (CopyHostInput): no GPU.
#include "runtime/run_request.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace vkserve {
namespace {

using ::testing::HasSubstr;

// A float input "x" of shape [?, 4]: a symbolic batch dimension, one fixed.
ValueInfo Declared() {
  ValueInfo v;
  v.name = "x";
  v.type.dtype = DataType::kFloat;
  v.type.has_shape = true;
  v.type.shape = {Dim{-1, "batch", ""}, Dim{4, "", ""}};
  return v;
}

std::string Refusal(const absl::StatusOr<uint64_t>& checked) {
  EXPECT_TRUE(absl::IsInvalidArgument(checked.status())) << checked.status();
  EXPECT_THAT(std::string(checked.status().message()), HasSubstr("input 'x'"));
  return std::string(checked.status().message());
}

TEST(CheckInputShapeTest, ReturnsTheByteSizeOfAShapeTheModelTakes) {
  EXPECT_EQ(*CheckInputShape(Declared(), DataType::kFloat, {3, 4}), 48u);
  EXPECT_EQ(*CheckInputShape(Declared(), DataType::kFloat, {0, 4}), 0u);
}

TEST(CheckInputShapeTest, RefusesWhatTheModelDoesNotTakeNamingTheInput) {
  const ValueInfo x = Declared();
  EXPECT_THAT(Refusal(CheckInputShape(x, DataType::kInt64, {1, 4})),
              HasSubstr("datatype INT64 but the model expects FP32"));
  EXPECT_THAT(Refusal(CheckInputShape(x, DataType::kFloat, {-1, 4})),
              HasSubstr("has a negative dimension"));
  EXPECT_THAT(Refusal(CheckInputShape(x, DataType::kFloat, {int64_t{1} << 40, int64_t{1} << 40})),
              HasSubstr("is too large"));
  EXPECT_THAT(Refusal(CheckInputShape(x, DataType::kFloat, {int64_t{1} << 62, 4})),
              HasSubstr("is too large"));
  EXPECT_THAT(Refusal(CheckInputShape(x, DataType::kFloat, {1, 4, 1})),
              HasSubstr("has rank 3 but the model expects rank 2"));
  EXPECT_THAT(Refusal(CheckInputShape(x, DataType::kFloat, {2, 2})),
              HasSubstr("dimension 1 is 2 but the model fixes it at 4"));
}

TEST(CheckInputTest, HostBytesAndPiecesMustHoldTheShapesSize) {
  const ValueInfo x = Declared();
  const std::vector<uint8_t> bytes(32);
  EXPECT_EQ(*CheckInput(x, InputBinding::Host("x", DataType::kFloat, {2, 4}, bytes)), 32u);
  EXPECT_THAT(Refusal(CheckInput(x, InputBinding::Host("x", DataType::kFloat, {1, 4}, bytes))),
              HasSubstr("holds 32 bytes but shape [1,4] of FP32 needs 16"));
  const HostBytes half(bytes.data(), 16);
  EXPECT_EQ(*CheckInput(x, InputBinding::Pieces("x", DataType::kFloat, {2, 4}, {half, half})), 32u);
  EXPECT_THAT(
      Refusal(CheckInput(x, InputBinding::Pieces("x", DataType::kFloat, {3, 4}, {half, half}))),
      HasSubstr("holds 32 bytes"));
  // A reader fills whatever the shape needs.
  const InputBinding read = InputBinding::Read("x", DataType::kFloat, {5, 4},
                                               [](std::span<uint8_t>) { return absl::OkStatus(); });
  EXPECT_EQ(*CheckInput(x, read), 80u);
  // A resident input without its tensor.
  InputBinding empty{"x", DataType::kFloat, {1, 4}, DeviceInput()};
  EXPECT_THAT(Refusal(CheckInput(x, empty)), HasSubstr("has no GPU tensor"));
}

TEST(CopyHostInputTest, CopiesBytesPiecesOrWhatTheReaderReads) {
  const std::vector<uint8_t> a = {1, 2, 3}, b = {4, 5};
  std::vector<uint8_t> to(5);
  ASSERT_TRUE(CopyHostInput(InputBinding::Pieces("x", DataType::kUint8, {5}, {a, {}, b}), to).ok());
  EXPECT_EQ(to, (std::vector<uint8_t>{1, 2, 3, 4, 5}));
  std::vector<uint8_t> three(3);
  ASSERT_TRUE(CopyHostInput(InputBinding::Host("x", DataType::kUint8, {3}, a), three).ok());
  EXPECT_EQ(three, a);
  EXPECT_TRUE(absl::IsInternal(
      CopyHostInput(InputBinding::Host("x", DataType::kUint8, {3}, a), to)));  // 3 bytes for 5
  const InputBinding read =
      InputBinding::Read("x", DataType::kUint8, {5}, [](std::span<uint8_t> into) {
        for (size_t i = 0; i < into.size(); ++i) into[i] = static_cast<uint8_t>(9 - i);
        return absl::OkStatus();
      });
  ASSERT_TRUE(CopyHostInput(read, to).ok());
  EXPECT_EQ(to, (std::vector<uint8_t>{9, 8, 7, 6, 5}));
}

TEST(RunRequestTest, FindsAndAddsBindingsByName) {
  RunRequest r;
  r.inputs.push_back(InputBinding::Host("x", DataType::kUint8, {0}, {}));
  EXPECT_NE(r.FindInput("x"), nullptr);
  EXPECT_EQ(r.FindInput("y"), nullptr);
  EXPECT_EQ(r.FindOutput("y"), nullptr);
  r.Output("y").location = OutputLocation::kDevice;
  r.Output("y");  // found, not added twice
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.FindOutput("y")->location, OutputLocation::kDevice);
}

}  // namespace
}  // namespace vkserve
