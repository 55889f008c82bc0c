// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Host <-> GPU round trips of odd sizes through both the mapped path and the
// staging path, including one buffer near the device's storage range limit.
#include "gpu/transfer.h"

#include <algorithm>
#include <random>
#include <vector>

#include "tests/testing/gpu_fixture.h"

namespace vkserve::gpu {
namespace {

using testing::GpuTest;

std::vector<uint8_t> RandomBytes(size_t n, uint32_t seed) {
  std::vector<uint8_t> bytes(n);
  std::mt19937 rng(seed);
  for (auto& b : bytes) b = static_cast<uint8_t>(rng());
  return bytes;
}

class TransferTest : public GpuTest, public ::testing::WithParamInterface<TransferPath> {};

TEST_P(TransferTest, RoundTripsOddSizes) {
  for (uint64_t size : {1, 3, 4097, 65537}) {
    SCOPED_TRACE(size);
    for (MemoryUsage usage : {MemoryUsage::kDeviceLocal, MemoryUsage::kHostUpload}) {
      VKSERVE_ASSERT_OK_AND_ASSIGN(Buffer buffer,
                                   allocator_->Allocate(size, usage, MemoryKind::kIo));
      const std::vector<uint8_t> data = RandomBytes(size, static_cast<uint32_t>(size));
      VKSERVE_ASSERT_OK(Upload(*allocator_, buffer, 0, data, GetParam()));
      std::vector<uint8_t> back(size);
      VKSERVE_ASSERT_OK(Download(*allocator_, buffer, 0, back, GetParam()));
      EXPECT_EQ(back, data);
    }
  }
}

TEST_P(TransferTest, RoundTripsNearStorageRangeLimit) {
  const DeviceInfo& info = device_->info();
  // The largest buffer one binding may cover, less a few bytes so the size is
  // odd; capped to keep the test's host memory reasonable on big GPUs.
  const uint64_t limit = std::min<uint64_t>(
      {info.max_storage_buffer_range, info.max_allocation_size, uint64_t{256} << 20});
  const uint64_t size = limit - 3;
  VKSERVE_ASSERT_OK_AND_ASSIGN(
      Buffer buffer, allocator_->Allocate(size, MemoryUsage::kDeviceLocal, MemoryKind::kIo));
  std::vector<uint8_t> data = RandomBytes(size, 7);
  VKSERVE_ASSERT_OK(Upload(*allocator_, buffer, 0, data, GetParam()));
  std::vector<uint8_t> back(size);
  VKSERVE_ASSERT_OK(Download(*allocator_, buffer, 0, back, GetParam()));
  EXPECT_TRUE(std::equal(back.begin(), back.end(), data.begin()));
  EXPECT_EQ(back.back(), data.back());
}

TEST_P(TransferTest, PartialRangesAndBounds) {
  VKSERVE_ASSERT_OK_AND_ASSIGN(
      Buffer buffer, allocator_->Allocate(100, MemoryUsage::kDeviceLocal, MemoryKind::kIo));
  std::vector<uint8_t> zeros(100, 0);
  VKSERVE_ASSERT_OK(Upload(*allocator_, buffer, 0, zeros, GetParam()));
  const std::vector<uint8_t> part = RandomBytes(7, 3);
  VKSERVE_ASSERT_OK(Upload(*allocator_, buffer, 93, part, GetParam()));
  std::vector<uint8_t> back(100);
  VKSERVE_ASSERT_OK(Download(*allocator_, buffer, 0, back, GetParam()));
  EXPECT_TRUE(std::equal(part.begin(), part.end(), back.begin() + 93));
  EXPECT_EQ(back[92], 0);
  // One byte too many is refused, not written.
  const std::vector<uint8_t> too_long(8, 1);
  EXPECT_EQ(Upload(*allocator_, buffer, 93, too_long, GetParam()).code(),
            absl::StatusCode::kOutOfRange);
  std::vector<uint8_t> out(2);
  EXPECT_EQ(Download(*allocator_, buffer, 99, out, GetParam()).code(),
            absl::StatusCode::kOutOfRange);
}

INSTANTIATE_TEST_SUITE_P(Paths, TransferTest,
                         ::testing::Values(TransferPath::kAuto, TransferPath::kStaging),
                         [](const auto& info) {
                           return info.param == TransferPath::kAuto ? "Auto" : "Staging";
                         });

}  // namespace
}  // namespace vkserve::gpu
