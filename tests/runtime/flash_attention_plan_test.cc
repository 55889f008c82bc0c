// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The fused attention kernel's tiling (runtime/kernels/attention/flash_attention.h), no
// GPU needed: on the smallest shared memory Vulkan allows, lavapipe's and an
// H100's, every head size up to the maximum gets a tiling whose shared
// arrays fit and whose workgroup is within the invocation limit; the H100
// takes 64-row tiles for the benchmark's long sequences and smaller ones
// where 64 rows would leave most of it idle; problems past the kernel's
// limits are refused.
#include <gtest/gtest.h>

#include "runtime/kernels/attention/flash_attention.h"

namespace vkserve {
namespace {

gpu::DeviceInfo Limits(uint32_t shared, uint32_t invocations) {
  gpu::DeviceInfo info;
  info.max_workgroup_invocations = invocations;
  info.max_workgroup_size = {invocations, invocations, 64};
  info.max_workgroup_count = {65535, 65535, 65535};
  info.max_shared_memory = shared;
  return info;
}

FlashAttentionProblem Problem(int64_t batch, int64_t heads, int64_t seq, int64_t head_size) {
  FlashAttentionProblem p;
  p.batch = batch;
  p.heads = p.kv_heads = heads;
  p.queries = p.keys = seq;
  p.head_size = head_size;
  p.q_strides = p.k_strides = p.v_strides =
      p.y_strides = {heads * seq * head_size, seq * head_size, head_size};
  return p;
}

TEST(FlashAttentionPlanTest, EveryHeadSizeFitsTheDevice) {
  // Vulkan's minimum (16 KiB, 128 invocations), lavapipe's, an H100's.
  for (const gpu::DeviceInfo& device :
       {Limits(16384, 128), Limits(32768, 1024), Limits(49152, 1024)}) {
    for (int64_t e = 1; e <= kFlashAttentionMaxHeadSize; ++e) {
      for (int64_t seq : {1, 7, 129, 2048}) {
        const std::optional<FlashAttentionTiling> t =
            PlanFlashAttention(Problem(2, 12, seq, e), device);
        ASSERT_TRUE(t.has_value()) << "head " << e << " seq " << seq;
        EXPECT_LE(t->shared_bytes(e), device.max_shared_memory) << "head " << e;
        EXPECT_LE(t->invocations(), device.max_workgroup_invocations);
        EXPECT_EQ(t->keys % t->column_groups, 0u);  // whole score columns per invocation
        EXPECT_EQ(t->keys % 4, 0u);                 // whole float4s of P
        EXPECT_EQ(t->rows % t->rows_per_invocation, 0u);
      }
    }
  }
}

TEST(FlashAttentionPlanTest, RowTilesFollowTheGrid) {
  const gpu::DeviceInfo h100 = Limits(49152, 1024);
  // 12 heads of 64: long sequences fill the GPU with 64-row tiles ...
  for (auto [batch, seq] : {std::pair<int64_t, int64_t>{8, 128}, {1, 512}, {8, 512}, {1, 2048}}) {
    EXPECT_EQ(PlanFlashAttention(Problem(batch, 12, seq, 64), h100)->rows, 64u)
        << batch << "x" << seq;
  }
  // ... s128 b1 (24 such tiles) and decoding take smaller ones.
  EXPECT_EQ(PlanFlashAttention(Problem(1, 12, 128, 64), h100)->rows, 16u);
  EXPECT_EQ(PlanFlashAttention(Problem(8, 12, 1, 64), h100)->rows, 8u);
}

TEST(FlashAttentionPlanTest, RefusesWhatTheKernelCannotServe) {
  const gpu::DeviceInfo device = Limits(32768, 1024);
  EXPECT_FALSE(PlanFlashAttention(Problem(1, 2, 16, kFlashAttentionMaxHeadSize + 1), device));
  FlashAttentionProblem gqa = Problem(1, 3, 16, 64);
  gqa.kv_heads = 2;  // query heads must be a multiple of the KV heads
  EXPECT_FALSE(PlanFlashAttention(gqa, device));
  // Indices past 32 bits.
  EXPECT_FALSE(PlanFlashAttention(Problem(4096, 16, 4096, 64), device));
  // A device too small for any tile.
  EXPECT_FALSE(PlanFlashAttention(Problem(1, 2, 16, 64), Limits(2048, 128)));
}

}  // namespace
}  // namespace vkserve
