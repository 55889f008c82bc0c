// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Memory planner: tensors alive at the same time never share bytes; tensors
// that are not reuse them; the arena is never larger than the sum.
#include "runtime/plan/memory_planner.h"

#include <gtest/gtest.h>

#include <random>

namespace vkserve {
namespace {

void ExpectNoLiveOverlap(const std::vector<MemoryRequest>& reqs, const MemoryLayout& layout,
                         uint64_t alignment) {
  for (size_t a = 0; a < reqs.size(); ++a) {
    EXPECT_EQ(layout.offsets[a] % alignment, 0u);
    EXPECT_LE(layout.offsets[a] + reqs[a].size, layout.arena_bytes);
    for (size_t b = a + 1; b < reqs.size(); ++b) {
      const bool live_together =
          reqs[a].first_step <= reqs[b].last_step && reqs[b].first_step <= reqs[a].last_step;
      if (!live_together || reqs[a].size == 0 || reqs[b].size == 0) continue;
      const bool disjoint = layout.offsets[a] + reqs[a].size <= layout.offsets[b] ||
                            layout.offsets[b] + reqs[b].size <= layout.offsets[a];
      EXPECT_TRUE(disjoint) << "requests " << a << " and " << b << " overlap";
    }
  }
}

TEST(MemoryPlannerTest, ChainReusesMemory) {
  // A chain a -> b -> c -> d: each tensor is dead two steps later.
  std::vector<MemoryRequest> reqs = {{1000, 0, 1}, {1000, 1, 2}, {1000, 2, 3}, {1000, 3, 4}};
  MemoryLayout layout = PlanMemory(reqs, 256);
  ExpectNoLiveOverlap(reqs, layout, 256);
  EXPECT_EQ(layout.total_bytes, 4u * 1024);
  EXPECT_EQ(layout.arena_bytes, 2u * 1024);  // two live at a time
}

TEST(MemoryPlannerTest, RandomLifetimesNeverOverlap) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<MemoryRequest> reqs;
    const int n = 1 + static_cast<int>(rng() % 200);
    for (int i = 0; i < n; ++i) {
      const int first = static_cast<int>(rng() % 100);
      reqs.push_back({rng() % 5000, first, first + static_cast<int>(rng() % 10)});
    }
    MemoryLayout layout = PlanMemory(reqs, 64);
    ExpectNoLiveOverlap(reqs, layout, 64);
    EXPECT_LE(layout.arena_bytes, layout.total_bytes);
  }
}

TEST(MemoryPlannerTest, EmptyAndZeroSized) {
  EXPECT_EQ(PlanMemory({}, 256).arena_bytes, 0u);
  MemoryLayout layout = PlanMemory({{0, 0, 3}, {10, 1, 2}}, 256);
  EXPECT_EQ(layout.arena_bytes, 256u);
}

}  // namespace
}  // namespace vkserve
