// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// BatchPacing on explicit times: a batch is held only while another run of
// learned, long GPU work is on its GPU, until that work's expected end less
// the batch's lead and a margin; estimates follow the closest learned size,
// move by moving averages, and stay within kMaxSizes sizes; of equally
// loaded GPUs a batch goes to the one whose work ends first.
#include "server/scheduling/batch_pacing.h"

#include <gtest/gtest.h>

namespace vkserve {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(1000);
int kSessionA, kSessionB, kSessionC;  // their addresses are the keys

BatchPacing::Ended Ending(int64_t rows, absl::Duration lead, absl::Duration gpu) {
  BatchPacing::Ended e;
  e.rows = rows;
  e.lead = lead;
  e.gpu = gpu;
  return e;
}

// Teaches `pacing` one run of `rows` on GPU 0 through session C.
void Teach(BatchPacing& pacing, int64_t rows, absl::Duration lead, absl::Duration gpu) {
  pacing.Started(0, &kSessionC, rows, kT0);
  pacing.Finished(0, &kSessionC, Ending(rows, lead, gpu));
}

TEST(BatchPacingTest, NothingRunningOrNothingLearnedNeverHolds) {
  BatchPacing pacing(1);
  EXPECT_EQ(pacing.SendBy(0, 32), absl::InfinitePast());
  pacing.Started(0, &kSessionA, 32, kT0);
  EXPECT_EQ(pacing.SendBy(0, 32), absl::InfinitePast()) << "no run has ended yet";
}

TEST(BatchPacingTest, HoldsUntilTheRunningGpuWorkEndsLessTheLead) {
  BatchPacing pacing(1);
  Teach(pacing, 32, absl::Milliseconds(3), absl::Milliseconds(11));
  pacing.Started(0, &kSessionA, 32, kT0);
  // Its GPU work ends 3 + 11 ms after dispatch; a batch needing a 3 ms lead
  // leaves 3.3 ms (the lead and a tenth) plus 50 µs before that.
  EXPECT_EQ(pacing.SendBy(0, 32), kT0 + absl::Microseconds(14000 - 3300 - 50));
  // The run ended: nothing holds the GPU.
  pacing.Finished(0, &kSessionA, Ending(32, absl::Milliseconds(3), absl::Milliseconds(11)));
  EXPECT_EQ(pacing.SendBy(0, 32), absl::InfinitePast());
}

TEST(BatchPacingTest, TheLatestOfSeveralRunsAndOnlyOnItsOwnGpu) {
  BatchPacing pacing(2);
  Teach(pacing, 8, absl::Milliseconds(1), absl::Milliseconds(4));
  pacing.Started(0, &kSessionA, 8, kT0);
  pacing.Started(0, &kSessionB, 8, kT0 + absl::Milliseconds(2));
  EXPECT_EQ(pacing.SendBy(0, 8), kT0 + absl::Microseconds(2000 + 5000 - 1100 - 50));
  EXPECT_EQ(pacing.SendBy(1, 8), absl::InfinitePast()) << "GPU 1 runs nothing";
}

TEST(BatchPacingTest, ShortGpuWorkNeverHolds) {
  BatchPacing pacing(1);
  Teach(pacing, 8, absl::Microseconds(30), BatchPacing::kMinHeldGpu - absl::Microseconds(1));
  pacing.Started(0, &kSessionA, 8, kT0);
  EXPECT_EQ(pacing.SendBy(0, 8), absl::InfinitePast());
}

TEST(BatchPacingTest, UnlearnedSizesTakeTheClosestLargerElseSmaller) {
  BatchPacing pacing(1);
  Teach(pacing, 4, absl::Milliseconds(1), absl::Milliseconds(2));
  Teach(pacing, 16, absl::Milliseconds(2), absl::Milliseconds(6));
  pacing.Started(0, &kSessionA, 7, kT0);  // as 16: ends at 8 ms
  EXPECT_EQ(pacing.SendBy(0, 3), kT0 + absl::Microseconds(8000 - 1100 - 50)) << "lead of 4";
  EXPECT_EQ(pacing.SendBy(0, 32), kT0 + absl::Microseconds(8000 - 2200 - 50)) << "lead of 16";
}

TEST(BatchPacingTest, EachRunMovesTheAveragesAnEighth) {
  BatchPacing pacing(1);
  Teach(pacing, 8, absl::Milliseconds(1), absl::Milliseconds(8));
  Teach(pacing, 8, absl::Milliseconds(1), absl::Milliseconds(16));  // gpu 8 + 8/8 = 9 ms
  pacing.Started(0, &kSessionA, 8, kT0);
  EXPECT_EQ(pacing.SendBy(0, 8), kT0 + absl::Microseconds(1000 + 9000 - 1100 - 50));
}

TEST(BatchPacingTest, KeepsAtMostMaxSizesForgettingTheLeastRecentlyTaught) {
  BatchPacing pacing(1);
  // Size r's GPU time is r ms; sizes 1 .. kMaxSizes + 1, in order.
  const int64_t n = static_cast<int64_t>(BatchPacing::kMaxSizes) + 1;
  for (int64_t r = 1; r <= n; ++r) Teach(pacing, r, absl::ZeroDuration(), absl::Milliseconds(r));
  // Size 1 was forgotten: a run of 1 row now takes size 2's estimate.
  pacing.Started(0, &kSessionA, 1, kT0);
  EXPECT_EQ(pacing.SendBy(0, n), kT0 + absl::Microseconds(2000 - 50));
}

TEST(BatchPacingTest, ARunThatFailedTeachesNothing) {
  BatchPacing pacing(1);
  pacing.Started(0, &kSessionA, 8, kT0);
  pacing.Finished(0, &kSessionA, BatchPacing::Ended{});
  pacing.Started(0, &kSessionA, 8, kT0);
  EXPECT_EQ(pacing.SendBy(0, 8), absl::InfinitePast());
}

TEST(BatchPacingTest, OfEquallyLoadedGpusTheOneWhoseWorkEndsFirst) {
  BatchPacing pacing(3);
  Teach(pacing, 8, absl::Milliseconds(1), absl::Milliseconds(4));
  absl::Time by;
  EXPECT_EQ(pacing.Soonest({}, 8, &by), -1);
  pacing.Started(0, &kSessionA, 8, kT0 + absl::Milliseconds(2));  // ends at 7 ms
  pacing.Started(1, &kSessionB, 8, kT0);                          // ends at 5 ms
  EXPECT_EQ(pacing.Soonest({0, 1}, 8, &by), 1);
  EXPECT_EQ(by, kT0 + absl::Microseconds(5000 - 1100 - 50));
  EXPECT_EQ(pacing.Soonest({0}, 8, &by), 0);
  EXPECT_EQ(by, kT0 + absl::Microseconds(7000 - 1100 - 50));
  // A GPU that holds nothing back wins at once; ties go to the first listed.
  EXPECT_EQ(pacing.Soonest({0, 2, 1}, 8, &by), 2);
  EXPECT_EQ(by, absl::InfinitePast());
  pacing.Started(2, &kSessionC, 8, kT0);  // ends at 5 ms, as GPU 1's
  EXPECT_EQ(pacing.Soonest({0, 2, 1}, 8, &by), 2);
}

TEST(BatchPacingDeathTest, ASessionStartingTwiceIsABug) {
  BatchPacing pacing(1);
  pacing.Started(0, &kSessionA, 8, kT0);
  EXPECT_DEATH(pacing.Started(0, &kSessionA, 8, kT0), "");
}

}  // namespace
}  // namespace vkserve
