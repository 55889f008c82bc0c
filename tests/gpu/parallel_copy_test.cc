// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "gpu/parallel_copy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace vkserve::gpu {
namespace {

std::vector<uint8_t> RandomBytes(uint64_t n, uint64_t seed) {
  std::vector<uint8_t> v(n);
  uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
  for (uint64_t i = 0; i < n; ++i) {
    x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
    v[i] = static_cast<uint8_t>((x * 0x2545f4914f6cdd1dull) >> 56);
  }
  return v;
}

// Copies `n` bytes into the middle of a poisoned buffer and checks the copy
// and that nothing around it was written.
void ExpectCopies(ParallelCopy& copier, uint64_t n, uint64_t seed) {
  const std::vector<uint8_t> src = RandomBytes(n, seed);
  std::vector<uint8_t> dst(n + 128, 0xA5);
  copier.Copy(dst.data() + 64, src.data(), n);
  ASSERT_TRUE(std::equal(src.begin(), src.end(), dst.begin() + 64)) << n << " bytes";
  for (int i = 0; i < 64; ++i) {
    ASSERT_EQ(dst[i], 0xA5) << "before the copy, at " << i;
    ASSERT_EQ(dst[64 + n + i], 0xA5) << "after the copy, at " << i;
  }
}

TEST(ParallelCopyTest, CopiesEverySizeAroundThePieceBoundaries) {
  for (int threads : {1, 2, 3, 4}) {
    ParallelCopy copier(threads, /*min_bytes=*/4096);
    for (uint64_t n : {0, 1, 4095, 4096, 4097, 3 * 4096 + 5, 65536 + 7, 1000003}) {
      ExpectCopies(copier, n, n + threads);
    }
  }
}

// A gather: regions of `sizes` bytes from separate sources into one
// destination, back to back, between poisoned guards.
void ExpectGathers(ParallelCopy& copier, const std::vector<uint64_t>& sizes, uint64_t seed) {
  std::vector<std::vector<uint8_t>> sources;
  uint64_t total = 0;
  for (uint64_t n : sizes) {
    sources.push_back(RandomBytes(n, seed + sources.size()));
    total += n;
  }
  std::vector<uint8_t> dst(total + 128, 0xA5);
  std::vector<ParallelCopy::Region> regions;
  uint64_t at = 64;
  for (const std::vector<uint8_t>& src : sources) {
    regions.push_back({dst.data() + at, src.data(), src.size()});
    at += src.size();
  }
  copier.CopyRegions(regions);
  at = 64;
  for (size_t r = 0; r < sources.size(); ++r) {
    ASSERT_TRUE(std::equal(sources[r].begin(), sources[r].end(), dst.begin() + at))
        << "region " << r << " of " << sources[r].size() << " bytes";
    at += sources[r].size();
  }
  for (int i = 0; i < 64; ++i) {
    ASSERT_EQ(dst[i], 0xA5) << "before the regions, at " << i;
    ASSERT_EQ(dst[64 + total + i], 0xA5) << "after the regions, at " << i;
  }
}

TEST(ParallelCopyTest, GathersRegionsAboveAndBelowTheThreshold) {
  for (int threads : {1, 2, 4}) {
    ParallelCopy copier(threads, /*min_bytes=*/65536);
    ExpectGathers(copier, {}, 1);
    ExpectGathers(copier, {0, 0}, 2);
    ExpectGathers(copier, {1000, 0, 3000}, 3);  // below: the caller's memcpy
    // Each below the threshold, together above it: a batch's pieces.
    ExpectGathers(copier, std::vector<uint64_t>(32, 6021), 4);
    // Regions larger than a share, split on page boundaries, mixed with small ones.
    ExpectGathers(copier, {300001, 7, 0, 150000, 4096, 1}, 5);
  }
}

TEST(ParallelCopyTest, ConcurrentCallersShareTheWorkers) {
  ParallelCopy copier(3, /*min_bytes=*/1024);
  std::vector<std::thread> callers;
  for (int c = 0; c < 4; ++c) {
    callers.emplace_back([&copier, c] {
      for (int round = 0; round < 20; ++round)
        ExpectCopies(copier, 300000 + 4096 * c + round, c * 100 + round);
    });
  }
  for (std::thread& t : callers) t.join();
}

TEST(ParallelCopyTest, DefaultThreadsIsBounded) {
  const int n = ParallelCopy::DefaultThreads();
  EXPECT_GE(n, 1);
  EXPECT_LE(n, 8);
}

}  // namespace
}  // namespace vkserve::gpu
