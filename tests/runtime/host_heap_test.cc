// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// HeapTrimmer (base/host_heap.h): memory freed into malloc's arenas but
// still resident is handed back once it exceeds the slack, and a quiet heap
// is left alone. Read from the process's own /proc/self/statm.
#include "base/host_heap.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "absl/base/config.h"

namespace vkserve {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;

TEST(HeapTrimmerTest, HandsBackFreedResidentMemoryPastTheSlack) {
#if defined(ABSL_HAVE_ADDRESS_SANITIZER) || \
    defined(ABSL_HAVE_THREAD_SANITIZER)  // GCC and clang alike
  GTEST_SKIP() << "the sanitizer's allocator replaces malloc's arenas";
#endif
  HeapTrimmer trimmer(/*slack=*/16 * kMiB, /*period=*/1000);
  const uint64_t baseline = ResidentPrivateBytes();
  EXPECT_FALSE(trimmer.Tick()) << "nothing grew: no trim";
  // 96 MiB in 64 KiB blocks (below malloc's mmap threshold: from the arena),
  // every page touched, then freed; a small block allocated after them keeps
  // the freed range off the heap's top, so free() alone cannot return it.
  std::vector<void*> blocks;
  for (int i = 0; i < 1536; ++i) {
    void* p = std::malloc(64 << 10);
    ASSERT_NE(p, nullptr);
    std::memset(p, i & 0xff, 64 << 10);
    asm volatile("" : : "r"(p) : "memory");
    blocks.push_back(p);
  }
  void* pin = std::malloc(64);
  asm volatile("" : : "r"(pin) : "memory");
  for (void* p : blocks) std::free(p);
  const uint64_t before = ResidentPrivateBytes();
  ASSERT_GT(before, baseline + 48 * kMiB) << "the freed blocks stay resident";
  EXPECT_TRUE(trimmer.Tick());
  const uint64_t after = ResidentPrivateBytes();
  EXPECT_LT(after, baseline + 16 * kMiB)
      << "baseline " << baseline / kMiB << " MiB, freed " << before / kMiB << " MiB, trimmed "
      << after / kMiB << " MiB";
  EXPECT_FALSE(trimmer.Tick()) << "trimmed already";
  EXPECT_EQ(trimmer.trims(), 1u);
  std::free(pin);
}

TEST(HeapTrimmerTest, TrimsAtLeastEveryPeriod) {
  HeapTrimmer trimmer(/*slack=*/uint64_t{1} << 40, /*period=*/3);
  EXPECT_FALSE(trimmer.Tick());
  EXPECT_FALSE(trimmer.Tick());
  EXPECT_TRUE(trimmer.Tick());
  EXPECT_EQ(trimmer.trims(), 1u);
}

}  // namespace
}  // namespace vkserve
