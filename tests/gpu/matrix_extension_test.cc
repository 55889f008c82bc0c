// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The choice between VK_NV_ and VK_KHR_cooperative_matrix, on made-up
// devices (no GPU).
#include "gpu/matrix_extension.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace vkserve::gpu {
namespace {

DeviceInfo Device(bool nv, bool khr) {
  DeviceInfo info;
  info.name = "Made-up GPU";
  info.shader_float16 = true;
  info.nv_cooperative_matrix_feature = nv;
  info.khr_cooperative_matrix_feature = khr;
  if (nv) info.nv_coopmat_f16_f32_shapes = {{16, 16, 16}};
  if (khr) info.khr_coopmat_f16_f32_shapes = {{16, 16, 16}};
  return info;
}

std::optional<MatrixExtension> Chosen(const DeviceInfo& info, MatrixExtension wanted) {
  absl::StatusOr<std::optional<MatrixExtension>> chosen = ChooseMatrixExtension(info, wanted);
  EXPECT_TRUE(chosen.ok()) << chosen.status();
  return chosen.ok() ? *chosen : std::nullopt;
}

TEST(MatrixExtensionTest, AutoPrefersKhrThenNv) {
  EXPECT_EQ(Chosen(Device(true, true), MatrixExtension::kAuto), MatrixExtension::kKhr);
  EXPECT_EQ(Chosen(Device(true, false), MatrixExtension::kAuto), MatrixExtension::kNv);
  EXPECT_EQ(Chosen(Device(false, true), MatrixExtension::kAuto), MatrixExtension::kKhr);
  EXPECT_EQ(Chosen(Device(false, false), MatrixExtension::kAuto), std::nullopt);
}

TEST(MatrixExtensionTest, AnExplicitChoiceIsHonouredOrRefused) {
  EXPECT_EQ(Chosen(Device(true, true), MatrixExtension::kKhr), MatrixExtension::kKhr);
  EXPECT_EQ(Chosen(Device(true, true), MatrixExtension::kNv), MatrixExtension::kNv);
  absl::StatusOr<std::optional<MatrixExtension>> refused =
      ChooseMatrixExtension(Device(true, false), MatrixExtension::kKhr);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.status().message(), testing::HasSubstr("Made-up GPU"));
  EXPECT_THAT(refused.status().message(), testing::HasSubstr("VK_KHR_cooperative_matrix"));
  EXPECT_FALSE(ChooseMatrixExtension(Device(false, true), MatrixExtension::kNv).ok());
}

TEST(MatrixExtensionTest, NeedsTheFeatureAShapeAndFloat16) {
  DeviceInfo no_shape = Device(false, true);
  no_shape.khr_coopmat_f16_f32_shapes.clear();
  EXPECT_FALSE(MatrixExtensionUsable(no_shape, MatrixExtension::kKhr));
  DeviceInfo no_fp16 = Device(true, true);
  no_fp16.shader_float16 = false;
  EXPECT_EQ(Chosen(no_fp16, MatrixExtension::kAuto), std::nullopt);
  DeviceInfo no_feature = Device(false, true);
  no_feature.khr_cooperative_matrix_feature = false;
  EXPECT_FALSE(MatrixExtensionUsable(no_feature, MatrixExtension::kKhr));
  EXPECT_FALSE(MatrixExtensionUsable(Device(true, true), MatrixExtension::kAuto));
}

TEST(MatrixExtensionTest, NamesRoundTrip) {
  for (MatrixExtension e : {MatrixExtension::kAuto, MatrixExtension::kNv, MatrixExtension::kKhr}) {
    absl::StatusOr<MatrixExtension> parsed = ParseMatrixExtension(MatrixExtensionName(e));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, e);
  }
  EXPECT_FALSE(ParseMatrixExtension("KHR").ok());
  EXPECT_FALSE(ParseMatrixExtension("").ok());
}

}  // namespace
}  // namespace vkserve::gpu
