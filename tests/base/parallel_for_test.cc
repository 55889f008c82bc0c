// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ParallelFor against what its callers rely on: every index runs once and
// has run when the call returns (plain writes, no atomics, so the
// ThreadSanitizer build checks the ordering), nested and concurrent calls
// finish on the one shared pool, and HostCores reports this process's
// affinity.
#include "base/parallel_for.h"

#include <sched.h>

#include <thread>
#include <vector>

#include "base/host_threads.h"
#include "gtest/gtest.h"

namespace vkserve {
namespace {

TEST(ParallelForTest, RunsEveryIndexOnceAndReturnsAfterAll) {
  for (int count : {0, 1, 2, 7, 1000}) {
    std::vector<int> runs(count, 0);
    ParallelFor(count, [&](int i) { ++runs[i]; });
    for (int i = 0; i < count; ++i) ASSERT_EQ(runs[i], 1) << "index " << i << " of " << count;
  }
}

TEST(ParallelForTest, NestedCallsFinish) {
  // A plan's kernels compile in parallel inside plans built in parallel.
  constexpr int kOuter = 6, kInner = 50;
  std::vector<std::vector<int>> runs(kOuter, std::vector<int>(kInner, 0));
  ParallelFor(kOuter, [&](int o) { ParallelFor(kInner, [&](int i) { runs[o][i] += o + 1; }); });
  for (int o = 0; o < kOuter; ++o) {
    for (int i = 0; i < kInner; ++i) ASSERT_EQ(runs[o][i], o + 1);
  }
}

TEST(ParallelForTest, ConcurrentCallersEachGetTheirOwnIndices) {
  constexpr int kCallers = 4, kCount = 300;
  std::vector<std::vector<int>> runs(kCallers, std::vector<int>(kCount, 0));
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c) {
    callers.emplace_back([&, c] {
      for (int round = 0; round < 20; ++round) ParallelFor(kCount, [&](int i) { ++runs[c][i]; });
    });
  }
  for (std::thread& t : callers) t.join();
  for (int c = 0; c < kCallers; ++c) {
    for (int i = 0; i < kCount; ++i) ASSERT_EQ(runs[c][i], 20);
  }
}

TEST(HostCoresTest, CountsTheAffinityMask) {
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
  EXPECT_EQ(HostCores(), CPU_COUNT(&set));
  EXPECT_GE(HostCores(), 1);
}

}  // namespace
}  // namespace vkserve
