// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// OutputBufferPool: buffers come back with their memory (the same bytes,
// not a copy), the smallest that fits is chosen, the budget bounds what is
// kept (oldest dropped first), small buffers are not pooled, and concurrent
// takers and givers keep the books straight.
#include "server/grpc/output_buffer_pool.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace vkserve {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;

TEST(OutputBufferPoolTest, AGivenBufferIsTakenAgainWithItsMemory) {
  OutputBufferPool pool(64 * kMiB);
  std::string a = pool.Take(2 * kMiB);
  ASSERT_EQ(a.size(), 2 * kMiB);
  const char* memory = a.data();
  pool.Give(std::move(a));
  EXPECT_EQ(pool.stats().pooled_buffers, 1u);
  EXPECT_GE(pool.stats().pooled_bytes, 2 * kMiB);
  // Smaller, then larger again within the capacity: the same memory.
  std::string b = pool.Take(3 * kMiB / 2);
  EXPECT_EQ(b.size(), 3 * kMiB / 2);
  EXPECT_EQ(b.data(), memory);
  pool.Give(std::move(b));
  std::string c = pool.Take(2 * kMiB);
  EXPECT_EQ(c.size(), 2 * kMiB);
  EXPECT_EQ(c.data(), memory);
  const OutputBufferPoolStats s = pool.stats();
  EXPECT_EQ(s.allocated, 1u);
  EXPECT_EQ(s.reused, 2u);
  EXPECT_EQ(s.pooled_buffers, 0u);
  EXPECT_EQ(s.pooled_bytes, 0u);
}

TEST(OutputBufferPoolTest, TheSmallestBufferThatFitsIsChosen) {
  OutputBufferPool pool(64 * kMiB);
  std::string big = pool.Take(8 * kMiB), mid = pool.Take(3 * kMiB), small = pool.Take(kMiB);
  const char* mid_memory = mid.data();
  pool.Give(std::move(big));
  pool.Give(std::move(mid));
  pool.Give(std::move(small));
  std::string got = pool.Take(2 * kMiB);
  EXPECT_EQ(got.data(), mid_memory);
  // Nothing pooled is large enough: a new buffer.
  std::string huge = pool.Take(16 * kMiB);
  EXPECT_EQ(pool.stats().allocated, 4u);
}

TEST(OutputBufferPoolTest, TheBudgetDropsTheOldestBuffers) {
  OutputBufferPool pool(5 * kMiB);
  std::string first = pool.Take(2 * kMiB), second = pool.Take(2 * kMiB),
              third = pool.Take(2 * kMiB);
  const char* third_memory = third.data();
  pool.Give(std::move(first));
  pool.Give(std::move(second));
  pool.Give(std::move(third));  // over 5 MiB: `first` goes
  OutputBufferPoolStats s = pool.stats();
  EXPECT_LE(s.pooled_bytes, 5 * kMiB);
  EXPECT_EQ(s.pooled_buffers, 2u);
  EXPECT_EQ(s.dropped, 1u);
  // A buffer larger than the whole budget is not kept at all.
  pool.Give(std::string(6 * kMiB, 'x'));
  EXPECT_EQ(pool.stats().dropped, 2u);
  EXPECT_EQ(pool.Take(2 * kMiB).data(), third_memory);  // the newest of the fitting
}

TEST(OutputBufferPoolTest, SmallBuffersAndAZeroBudgetKeepNothing) {
  OutputBufferPool pool(64 * kMiB);
  pool.Give(pool.Take(kMiB / 2));
  EXPECT_EQ(pool.stats().pooled_buffers, 0u);
  EXPECT_EQ(pool.stats().allocated, 0u);  // below min_bytes: not counted
  OutputBufferPool none(0);
  none.Give(none.Take(2 * kMiB));
  EXPECT_EQ(none.stats().pooled_bytes, 0u);
  EXPECT_EQ(none.stats().dropped, 1u);
}

TEST(OutputBufferPoolTest, ConcurrentTakersAndGiversKeepTheBooks) {
  OutputBufferPool pool(16 * kMiB);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&pool, t] {
      for (int i = 0; i < 50; ++i) {
        std::string b = pool.Take(kMiB + static_cast<uint64_t>((t * 50 + i) % 7) * 4096);
        b[0] = static_cast<char>(i);
        b[b.size() - 1] = static_cast<char>(t);
        pool.Give(std::move(b));
      }
    });
  }
  for (auto& th : threads) th.join();
  const OutputBufferPoolStats s = pool.stats();
  EXPECT_EQ(s.reused + s.allocated, 200u);
  EXPECT_LE(s.pooled_bytes, 16 * kMiB);
}

}  // namespace
}  // namespace vkserve
