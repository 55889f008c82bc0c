// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The fragment-layout probe (runtime/kernels/tensor_core_layout.h): the
// decision on the probe's output, which must refuse any other layout or
// length, and the probe's round trip through the GPU with its scalar
// emulation (which writes the mma.sync layout on any device). On a device
// with cooperative matrices the native probe must also run.
#include "runtime/kernels/tensor_core_layout.h"

#include <gtest/gtest.h>

#include <iostream>
#include <utility>
#include <vector>

#include "tests/testing/gpu_fixture.h"

namespace vkserve {
namespace {

using testing::GpuTest;

// What a device in the mma.sync layout writes.
std::vector<float> MmaProbe() {
  std::vector<float> probe(kFragmentProbeFloats, 0.0f);
  for (uint32_t lane = 0; lane < 32; ++lane) {
    for (uint32_t e = 0; e < 8; ++e) {
      probe[8 * lane + e] = static_cast<float>(MmaFragmentElement(lane, e));
      probe[256 + 8 * lane + e] = static_cast<float>(MmaFragmentElement(lane, e));
    }
  }
  probe[512] = probe[513] = 8.0f;
  return probe;
}

TEST(FragmentLayoutTest, MmaElementsCoverTheMatrixOnce) {
  std::vector<int> seen(256, 0);
  for (uint32_t lane = 0; lane < 32; ++lane) {
    for (uint32_t e = 0; e < 8; ++e) ++seen[MmaFragmentElement(lane, e)];
  }
  for (int n : seen) EXPECT_EQ(n, 1);
  // Lane 5 holds row 1 and row 9, columns 2-3 and 10-11.
  EXPECT_EQ(MmaFragmentElement(5, 0), 16u * 1 + 2);
  EXPECT_EQ(MmaFragmentElement(5, 3), 16u * 9 + 3);
  EXPECT_EQ(MmaFragmentElement(5, 6), 16u * 9 + 10);
}

TEST(FragmentLayoutTest, DecidesFromEveryElementAndLength) {
  EXPECT_TRUE(FragmentsMatchMma(MmaProbe()));
  std::vector<float> probe = MmaProbe();
  std::swap(probe[8 * 3 + 1], probe[8 * 3 + 2]);  // accumulator elements of lane 3
  EXPECT_FALSE(FragmentsMatchMma(probe));
  probe = MmaProbe();
  std::swap(probe[256 + 8 * 31 + 4], probe[256 + 8 * 31 + 5]);  // the A operand's
  EXPECT_FALSE(FragmentsMatchMma(probe));
  probe = MmaProbe();
  probe[513] = 16.0f;  // another length per lane
  EXPECT_FALSE(FragmentsMatchMma(probe));
  probe = MmaProbe();
  probe.resize(kFragmentProbeFloats - 1);
  EXPECT_FALSE(FragmentsMatchMma(probe));
}

class FragmentProbeTest : public GpuTest {};

TEST_F(FragmentProbeTest, EmulatedProbeReportsTheMmaLayout) {
  VKSERVE_ASSERT_OK_AND_ASSIGN(const bool mma, ProbeMmaFragments(context(), /*emulated=*/true));
  EXPECT_TRUE(mma);
}

TEST_F(FragmentProbeTest, NativeProbeRunsWhereTheDeviceHasCooperativeMatrices) {
  if (!device_->info().cooperative_matrix_enabled) {
    GTEST_SKIP() << "no cooperative-matrix extension enabled on this device";
  }
  VKSERVE_ASSERT_OK_AND_ASSIGN(const bool mma, ProbeMmaFragments(context()));
  // The answer, for a run on a new device to show.
  std::cout << device_->info().name << ": fragments " << (mma ? "in" : "not in")
            << " the mma.sync layout\n";
}

}  // namespace
}  // namespace vkserve
