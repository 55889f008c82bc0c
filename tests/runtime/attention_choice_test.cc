// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The fused Attention's kernel choice (runtime/kernels/attention/attention_choice.h), no
// GPU needed: at the shapes of the H100 measurements it was made from (12
// heads, head size 64), the fused kernel only where it was faster (s128 b1),
// the GEMM lowering at the rest; decoding steps stay fused; scores past the
// budget, past the device's storage range (lavapipe's 128 MiB) or packed
// operands at offsets the device cannot bind keep the fused kernel; the pin
// attribute parses. At FP16 on a device with the 16x16x16 fp16 matrix shape
// the tensor-core kernel runs at every shape (on an H100 it was 1.6-2.7x
// faster than the GEMM lowering at s128-s2048), with the variant its head
// size and shared memory allow.
#include "runtime/kernels/attention/attention_choice.h"

#include <gtest/gtest.h>

#include "runtime/kernels/attention/flash_attention_cm.h"

namespace vkserve {
namespace {

gpu::DeviceInfo Device(uint64_t storage_range, uint64_t offset_alignment) {
  gpu::DeviceInfo info;
  info.max_storage_buffer_range = storage_range;
  info.min_storage_buffer_offset_alignment = offset_alignment;
  return info;
}

const gpu::DeviceInfo kH100 = Device(uint64_t{4} << 30, 16);
const gpu::DeviceInfo kLavapipe = Device(uint64_t{128} << 20, 16);

// kH100 with the limits and matrix shapes the tensor-core kernel needs, or
// lavapipe's (no cooperative matrices, 32 KiB of shared memory).
gpu::DeviceInfo Limits(gpu::DeviceInfo info, bool tensor_cores, uint32_t shared) {
  info.max_shared_memory = shared;
  info.max_workgroup_invocations = 1024;
  info.max_workgroup_size = {1024, 1024, 64};
  info.max_workgroup_count = {65535, 65535, 65535};
  info.subgroup_size = tensor_cores ? 32 : 8;
  info.cooperative_matrix_enabled = tensor_cores;
  if (tensor_cores) info.coopmat_f16_f32_shapes = {{16, 8, 8}, {16, 16, 16}};
  return info;
}
const gpu::DeviceInfo kH100Cm = Limits(kH100, true, 48 << 10);
const gpu::DeviceInfo kLavapipeLimits = Limits(kLavapipe, false, 32 << 10);

FlashAttentionProblem Problem(int64_t batch, int64_t seq, bool causal = false, int64_t keys = 0) {
  FlashAttentionProblem p;
  p.batch = batch;
  p.heads = p.kv_heads = 12;
  p.queries = seq;
  p.keys = keys > 0 ? keys : seq;
  p.head_size = 64;
  p.causal = causal;
  return p;
}

TEST(AttentionChoiceTest, FollowsTheH100Table) {
  // fused vs unfused, GPU ms: 0.0325 vs 0.039.
  EXPECT_EQ(ChooseAttentionKernel(Problem(1, 128), kH100), AttentionKernel::kFused);
  // 0.205 vs 0.120; 0.322 vs 0.117; 2.059 vs 0.730; 4.167 vs 0.955.
  EXPECT_EQ(ChooseAttentionKernel(Problem(8, 128), kH100), AttentionKernel::kUnfused);
  EXPECT_EQ(ChooseAttentionKernel(Problem(1, 512), kH100), AttentionKernel::kUnfused);
  EXPECT_EQ(ChooseAttentionKernel(Problem(8, 512), kH100), AttentionKernel::kUnfused);
  EXPECT_EQ(ChooseAttentionKernel(Problem(1, 2048), kH100), AttentionKernel::kUnfused);
  // Causal: 2.332 vs 1.191.
  EXPECT_EQ(ChooseAttentionKernel(Problem(1, 2048, true), kH100), AttentionKernel::kUnfused);
}

TEST(AttentionChoiceTest, SmallProblemsStayFused) {
  // A decoding step: one query against 2048 keys, batch 8 (50 MFLOP).
  EXPECT_EQ(ChooseAttentionKernel(Problem(8, 1, false, 2048), kH100), AttentionKernel::kFused);
  // Causal halves the fused kernel's work: s128 b2 causal (50 MFLOP of 100).
  EXPECT_EQ(ChooseAttentionKernel(Problem(2, 128, true), kH100), AttentionKernel::kFused);
  EXPECT_EQ(ChooseAttentionKernel(Problem(2, 128), kH100), AttentionKernel::kUnfused);
}

TEST(AttentionChoiceTest, ScoresThatDoNotFitKeepTheFusedKernel) {
  // s2048 b2: 402 MB of scores, past the 256 MiB budget.
  EXPECT_EQ(AttentionScoresBytes(Problem(2, 2048)), uint64_t{2} * 12 * 2048 * 2048 * 4);
  EXPECT_FALSE(UnfusedAttentionFits(Problem(2, 2048), kH100));
  EXPECT_EQ(ChooseAttentionKernel(Problem(2, 2048), kH100), AttentionKernel::kFused);
  // s1024 b4: 201 MB, within the budget but past lavapipe's storage range.
  EXPECT_TRUE(UnfusedAttentionFits(Problem(4, 1024), kH100));
  EXPECT_EQ(ChooseAttentionKernel(Problem(4, 1024), kH100), AttentionKernel::kUnfused);
  EXPECT_FALSE(UnfusedAttentionFits(Problem(4, 1024), kLavapipe));
  EXPECT_EQ(ChooseAttentionKernel(Problem(4, 1024), kLavapipe), AttentionKernel::kFused);
}

TEST(AttentionChoiceTest, PackedOffsetsMustBeBindable) {
  FlashAttentionProblem p = Problem(8, 128);
  p.offsets = {0, 768, 1536};  // BERT-base: 3072-byte steps
  EXPECT_TRUE(UnfusedAttentionFits(p, Device(uint64_t{4} << 30, 256)));
  p.offsets = {0, 12, 24};  // 48 bytes
  EXPECT_TRUE(UnfusedAttentionFits(p, Device(uint64_t{4} << 30, 16)));
  EXPECT_FALSE(UnfusedAttentionFits(p, Device(uint64_t{4} << 30, 64)));
  EXPECT_EQ(ChooseAttentionKernel(p, Device(uint64_t{4} << 30, 64)), AttentionKernel::kFused);
}

TEST(AttentionChoiceTest, Fp16TakesTheTensorCoreKernelWhereTheDeviceHasIt) {
  for (const FlashAttentionProblem& p :
       {Problem(1, 128), Problem(8, 128), Problem(1, 512), Problem(8, 512), Problem(1, 2048),
        Problem(1, 2048, true), Problem(1, 16)}) {
    EXPECT_EQ(ChooseAttentionKernel(p, kH100Cm, /*fp16=*/true), AttentionKernel::kCoopmat);
    // FP32 keeps exact fp32 math; a device without the shape keeps the rule.
    EXPECT_EQ(ChooseAttentionKernel(p, kH100Cm, /*fp16=*/false), ChooseAttentionKernel(p, kH100));
    EXPECT_EQ(ChooseAttentionKernel(p, kLavapipeLimits, /*fp16=*/true),
              ChooseAttentionKernel(p, kLavapipe));
  }
  // Decoding steps (fewer than 16 queries) keep the rule.
  EXPECT_EQ(ChooseAttentionKernel(Problem(8, 1, false, 2048), kH100Cm, true),
            AttentionKernel::kFused);
  EXPECT_EQ(ChooseAttentionKernel(Problem(8, 15, false, 2048), kH100Cm, true),
            AttentionKernel::kUnfused);
  gpu::DeviceInfo no_shape = kH100Cm;
  no_shape.coopmat_f16_f32_shapes = {{16, 8, 16}};
  EXPECT_EQ(ChooseAttentionKernel(Problem(1, 512), no_shape, true), AttentionKernel::kUnfused);
}

TEST(AttentionChoiceTest, PlansTheTensorCoreVariant) {
  FlashAttentionProblem p = Problem(1, 512);
  auto tile = PlanCoopmatAttention(p, kH100Cm, /*emulated=*/false);
  ASSERT_TRUE(tile.has_value());
  EXPECT_EQ(tile->shader(false, false), "ops/flash_attention_cm_e64_w4_c64");
  EXPECT_EQ(tile->shader(false, /*half_io=*/true), "ops/flash_attention_cm_e64_w4_c64_f16");
  EXPECT_EQ(tile->shader(false, true, /*khr=*/true), "ops/flash_attention_cm_e64_w4_c64_f16_khr");
  EXPECT_LE(tile->shared_bytes(), 48u << 10);
  p.head_size = 80;  // padded to 128, 32-key tiles to fit 48 KiB
  tile = PlanCoopmatAttention(p, kH100Cm, false);
  ASSERT_TRUE(tile.has_value());
  EXPECT_EQ(tile->shader(false, false), "ops/flash_attention_cm_e128_w4_c32");
  // Lavapipe: no native kernel; its emulation in 2 subgroups within 32 KiB.
  EXPECT_FALSE(PlanCoopmatAttention(p, kLavapipeLimits, false).has_value());
  tile = PlanCoopmatAttention(p, kLavapipeLimits, /*emulated=*/true);
  ASSERT_TRUE(tile.has_value());
  EXPECT_EQ(tile->shader(true, false), "ops/flash_attention_cm_e128_w2_c32_emu");
  EXPECT_EQ(tile->shader(true, true), "ops/flash_attention_cm_e128_w2_c32_f16_emu");
  EXPECT_EQ(tile->shader(true, true, /*khr=*/true), "ops/flash_attention_cm_e128_w2_c32_f16_emu");
  EXPECT_LE(tile->shared_bytes(), 32u << 10);
  p.head_size = 129;
  EXPECT_FALSE(PlanCoopmatAttention(p, kH100Cm, false).has_value());
}

TEST(AttentionChoiceTest, ParsesThePin) {
  Node node;
  EXPECT_EQ(PinnedAttentionKernel(node).value(), std::nullopt);
  Attribute a;
  a.type = Attribute::Type::kString;
  a.s = "unfused";
  node.attributes[kAttentionKernelAttr] = a;
  EXPECT_EQ(PinnedAttentionKernel(node).value(), AttentionKernel::kUnfused);
  node.attributes[kAttentionKernelAttr].s = "fused";
  EXPECT_EQ(PinnedAttentionKernel(node).value(), AttentionKernel::kFused);
  node.attributes[kAttentionKernelAttr].s = "coopmat";
  EXPECT_EQ(PinnedAttentionKernel(node).value(), AttentionKernel::kCoopmat);
  EXPECT_EQ(PinnedCoopmatAttentionTile(node).value().warps, 0u);
  node.attributes[kAttentionKernelAttr].s = "coopmat:2x64";
  EXPECT_EQ(PinnedAttentionKernel(node).value(), AttentionKernel::kCoopmat);
  EXPECT_EQ(PinnedCoopmatAttentionTile(node).value().warps, 2u);
  EXPECT_EQ(PinnedCoopmatAttentionTile(node).value().keys, 64u);
  EXPECT_EQ(PinnedCoopmatAttentionTile(node).value().softmax, CoopmatSoftmax::kShared);
  node.attributes[kAttentionKernelAttr].s = "coopmat:4x32:registers";
  EXPECT_EQ(PinnedCoopmatAttentionTile(node).value().warps, 4u);
  EXPECT_EQ(PinnedCoopmatAttentionTile(node).value().keys, 32u);
  EXPECT_EQ(PinnedCoopmatAttentionTile(node).value().softmax, CoopmatSoftmax::kRegisters);
  node.attributes[kAttentionKernelAttr].s = "coopmat:2x64:shared";
  EXPECT_EQ(PinnedCoopmatAttentionTile(node).value().softmax, CoopmatSoftmax::kShared);
  EXPECT_EQ(PinnedCoopmatAttentionTile(node).value().warps, 2u);
  node.attributes[kAttentionKernelAttr].s = "coopmat:2x64x32:registers";
  EXPECT_EQ(PinnedCoopmatAttentionTile(node).value().rows, 32u);
  EXPECT_EQ(PinnedCoopmatAttentionTile(node).value().keys, 64u);
  for (const char* bad :
       {"flash", "coopmat:", "coopmat:2", "coopmat:0x64", "coopmat:2x", "coopmat:x64",
        "coopmat:2x64x1", "coopmat:-2x64", "coopmat:registers", "coopmat:2x64:regs",
        "coopmat:2x64:registers:shared", "coopmat:2x64x24", "coopmat:2x64x32x1"}) {
    node.attributes[kAttentionKernelAttr].s = bad;
    EXPECT_EQ(PinnedAttentionKernel(node).status().code(), absl::StatusCode::kInvalidArgument)
        << bad;
    EXPECT_EQ(PinnedCoopmatAttentionTile(node).status().code(), absl::StatusCode::kInvalidArgument)
        << bad;
  }
  node.attributes[kAttentionKernelAttr].type = Attribute::Type::kInt;
  EXPECT_EQ(PinnedAttentionKernel(node).status().code(), absl::StatusCode::kInvalidArgument);
}

// A pin takes that variant where it fits, and nothing else.
TEST(AttentionChoiceTest, PlansThePinnedVariant) {
  FlashAttentionProblem p = Problem(1, 197);
  auto tile = PlanCoopmatAttention(p, kH100Cm, /*emulated=*/false, {.warps = 2, .keys = 64});
  ASSERT_TRUE(tile.has_value());
  EXPECT_EQ(tile->shader(false, true, /*khr=*/true), "ops/flash_attention_cm_e64_w2_c64_f16_khr");
  // Unpinned, the first row that fits stays the choice.
  EXPECT_EQ(PlanCoopmatAttention(p, kH100Cm, false)->shader(false, false),
            "ops/flash_attention_cm_e64_w4_c64");
  EXPECT_FALSE(PlanCoopmatAttention(p, kH100Cm, false, {.warps = 3, .keys = 64}).has_value());
  // 4x64 needs 44 KiB: not on lavapipe, even pinned.
  EXPECT_FALSE(PlanCoopmatAttention(p, kLavapipeLimits, /*emulated=*/true, {.warps = 4, .keys = 64})
                   .has_value());
  EXPECT_TRUE(PlanCoopmatAttention(p, kLavapipeLimits, /*emulated=*/true, {.warps = 2, .keys = 64})
                  .has_value());
}

// Plans keep the softmax in shared memory; a pin takes it into registers,
// natively only where the probe found the mma.sync layout.
TEST(AttentionChoiceTest, PinsTheSoftmaxInRegistersWhereTheLayoutWasMeasured) {
  FlashAttentionProblem p = Problem(8, 128);
  EXPECT_FALSE(PlanCoopmatAttention(p, kH100Cm, false)->registers);
  EXPECT_FALSE(PlanCoopmatAttention(p, kH100Cm, false, {.softmax = CoopmatSoftmax::kRegisters}));
  gpu::DeviceInfo mma = kH100Cm;
  mma.coopmat_mma_fragments = true;
  EXPECT_FALSE(PlanCoopmatAttention(p, mma, false)->registers);
  auto tile = PlanCoopmatAttention(p, mma, false, {.softmax = CoopmatSoftmax::kRegisters});
  ASSERT_TRUE(tile.has_value());
  EXPECT_TRUE(tile->registers);
  EXPECT_EQ(tile->shader(false, true, /*khr=*/true),
            "ops/flash_attention_cm_e64_w4_c64_regs_f16_khr");
  // No scores or P in shared memory: the Q, K and V tiles alone.
  EXPECT_EQ(tile->shared_bytes(), 2u * (64 * 72 + 2 * 64 * 72));
  EXPECT_FALSE(
      PlanCoopmatAttention(p, mma, false, {.softmax = CoopmatSoftmax::kShared})->registers);
  // Two query blocks per subgroup: the softmax in registers only.
  tile = PlanCoopmatAttention(
      p, mma, false, {.warps = 4, .keys = 32, .rows = 32, .softmax = CoopmatSoftmax::kRegisters});
  ASSERT_TRUE(tile.has_value());
  EXPECT_EQ(tile->rows(), 128u);
  EXPECT_EQ(tile->shader(false, true, true), "ops/flash_attention_cm_e64_w4_c32_q32_regs_f16_khr");
  EXPECT_FALSE(PlanCoopmatAttention(
      p, mma, false, {.warps = 4, .keys = 32, .rows = 32, .softmax = CoopmatSoftmax::kShared}));
  // The emulation stages one operand per subgroup: 4x64 fits lavapipe's
  // 32 KiB in registers.
  EXPECT_FALSE(PlanCoopmatAttention(p, kLavapipeLimits, true)->registers);
  tile = PlanCoopmatAttention(p, kLavapipeLimits, true,
                              {.warps = 4, .keys = 64, .softmax = CoopmatSoftmax::kRegisters});
  ASSERT_TRUE(tile.has_value());
  EXPECT_EQ(tile->shader(true, false), "ops/flash_attention_cm_e64_w4_c64_regs_emu");
  EXPECT_EQ(tile->shared_bytes(/*emulated=*/true), 2u * (64 * 72 + 2 * 64 * 72) + 4 * 1024);
}

}  // namespace
}  // namespace vkserve
