// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Allocator: random allocate/free stress with overlap detection, accounting
// per kind, block reuse, and out-of-memory as a Status.
#include "gpu/allocator.h"

#include <map>
#include <random>
#include <vector>

#include "tests/testing/gpu_fixture.h"

namespace vkserve::gpu {
namespace {

using testing::GpuTest;

TEST_F(GpuTest, AllocatorStressNeverOverlapsAndAccountsExactly) {
  std::mt19937 rng(1234);
  struct Live {
    Buffer buffer;
    uint8_t tag;
  };
  std::vector<Live> live;
  std::array<uint64_t, kMemoryKindCount> expected{};
  uint8_t next_tag = 1;
  // Fills a live buffer with its tag; any overlap shows up as a wrong byte.
  auto check = [](const Live& l) {
    const uint8_t* p = l.buffer.mapped();
    for (uint64_t i = 0; i < l.buffer.size(); i += 1 + l.buffer.size() / 64) {
      if (p[i] != l.tag) return false;
    }
    return p[l.buffer.size() - 1] == l.tag;
  };
  for (int step = 0; step < 4000; ++step) {
    const bool allocate = live.empty() || rng() % 100 < 55;
    if (allocate) {
      // Mostly small, sometimes up to a few MiB, sometimes larger than a block.
      uint64_t size = 1 + rng() % 4096;
      if (rng() % 10 == 0) size = 1 + rng() % (4 << 20);
      if (rng() % 200 == 0) size = (uint64_t{70} << 20) + rng() % 1000;
      const auto kind = static_cast<MemoryKind>(rng() % kMemoryKindCount);
      VKSERVE_ASSERT_OK_AND_ASSIGN(Buffer b,
                                   allocator_->Allocate(size, MemoryUsage::kHostUpload, kind));
      ASSERT_NE(b.mapped(), nullptr);
      ASSERT_EQ(b.offset() % device_->info().min_storage_buffer_offset_alignment, 0u);
      const uint8_t tag = next_tag++ == 0 ? next_tag++ : next_tag - 1;
      std::memset(b.mapped(), tag, size);
      expected[static_cast<int>(kind)] += size;
      live.push_back({std::move(b), tag});
    } else {
      const size_t victim = rng() % live.size();
      ASSERT_TRUE(check(live[victim])) << "buffer contents changed: overlapping allocations";
      expected[static_cast<int>(live[victim].buffer.kind())] -= live[victim].buffer.size();
      live.erase(live.begin() + static_cast<long>(victim));
    }
    if (step % 500 == 0) {
      for (const Live& l : live) ASSERT_TRUE(check(l));
      AllocatorStats stats = allocator_->stats();
      EXPECT_EQ(stats.bytes_by_kind, expected);
      EXPECT_EQ(stats.allocation_count, live.size());
    }
  }
  for (const Live& l : live) ASSERT_TRUE(check(l));
  live.clear();
  AllocatorStats stats = allocator_->stats();
  EXPECT_EQ(stats.allocation_count, 0u);
  for (uint64_t bytes : stats.bytes_by_kind) EXPECT_EQ(bytes, 0u);
  // Everything but one kept block per memory type went back to the driver.
  EXPECT_LE(stats.block_count, 3u);
}

TEST_F(GpuTest, FreedRangesAreReused) {
  uint64_t first_offset;
  VkBuffer first_buffer;
  {
    VKSERVE_ASSERT_OK_AND_ASSIGN(
        Buffer a, allocator_->Allocate(1000, MemoryUsage::kDeviceLocal, MemoryKind::kActivations));
    first_offset = a.offset();
    first_buffer = a.handle();
  }
  VKSERVE_ASSERT_OK_AND_ASSIGN(
      Buffer b, allocator_->Allocate(1000, MemoryUsage::kDeviceLocal, MemoryKind::kActivations));
  EXPECT_EQ(b.handle(), first_buffer);
  EXPECT_EQ(b.offset(), first_offset);
}

TEST_F(GpuTest, RejectsZeroAndUnbindableSizes) {
  EXPECT_EQ(allocator_->Allocate(0, MemoryUsage::kDeviceLocal, MemoryKind::kOther).status().code(),
            absl::StatusCode::kInvalidArgument);
  const uint64_t too_big = device_->info().max_storage_buffer_range + 1;
  auto status =
      allocator_->Allocate(too_big, MemoryUsage::kDeviceLocal, MemoryKind::kOther).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("maxStorageBufferRange"), std::string::npos) << status;
}

TEST_F(GpuTest, OutOfMemoryIsAStatus) {
  // A budget far below what the loop asks for: allocation must fail cleanly.
  AllocatorOptions options;
  options.block_size = 4 << 20;
  options.budget_bytes = 32 << 20;
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto small, Allocator::Create(*device_, options));
  std::vector<Buffer> held;
  absl::Status status;
  for (int i = 0; i < 100 && status.ok(); ++i) {
    auto b = small->Allocate(3 << 20, MemoryUsage::kDeviceLocal, MemoryKind::kWeights);
    if (b.ok())
      held.push_back(std::move(b).value());
    else
      status = b.status();
  }
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted) << status;
  EXPECT_GE(held.size(), 8u);
  EXPECT_LE(small->stats().block_bytes, options.budget_bytes);
  // Freeing makes room again.
  held.clear();
  EXPECT_TRUE(small->Allocate(3 << 20, MemoryUsage::kDeviceLocal, MemoryKind::kWeights).ok());
}

TEST_F(GpuTest, OutOfHeapIsAStatus) {
  // Many blocks whose total exceeds the largest heap: the allocator refuses
  // before the driver is asked for memory it does not have.
  const DeviceInfo& info = device_->info();
  uint64_t largest_heap = 0;
  for (const auto& h : info.heaps) largest_heap = std::max(largest_heap, h.size);
  AllocatorOptions options;
  options.block_size = info.max_allocation_size;
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto alloc, Allocator::Create(*device_, options));
  const uint64_t chunk = std::min(info.max_storage_buffer_range, info.max_allocation_size);
  const uint64_t chunks_needed = largest_heap / chunk + 2;
  // Reserve the heap's bookkeeping without touching pages: blocks are never
  // written, and lavapipe maps them lazily.
  std::vector<Buffer> held;
  absl::Status status;
  for (uint64_t i = 0; i < chunks_needed && status.ok(); ++i) {
    auto b = alloc->Allocate(chunk, MemoryUsage::kDeviceLocal, MemoryKind::kWeights);
    if (b.ok())
      held.push_back(std::move(b).value());
    else
      status = b.status();
  }
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted) << status;
}

}  // namespace
}  // namespace vkserve::gpu
