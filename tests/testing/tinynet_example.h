// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// What the example repository's tinynet config (config/examples/repository/
// tinynet/config.pbtxt) validates to: one expectation for the config tests
// (hand-written tensors) and the server's (the tensors of the model file).
#ifndef VKSERVE_TESTS_TESTING_TINYNET_EXAMPLE_H_
#define VKSERVE_TESTS_TESTING_TINYNET_EXAMPLE_H_

#include "absl/time/time.h"
#include "config/model_config.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace vkserve::testing {

inline void ExpectTinynetExampleSettings(const ModelSettings& s) {
  EXPECT_EQ(s.name, "tinynet");
  EXPECT_EQ(s.max_batch_size, 8);
  EXPECT_EQ(s.sessions, 2);
  EXPECT_EQ(s.device, "");
  EXPECT_EQ(s.max_queue_size, 64);
  EXPECT_EQ(s.default_timeout, absl::ZeroDuration());
  EXPECT_TRUE(s.dynamic_batching);
  EXPECT_EQ(s.output_locations.at("probabilities"), PreferredLocation::kCpu);
  EXPECT_EQ(s.config.platform(), "onnxruntime_onnx");
  EXPECT_EQ(s.config.backend(), "vkserve");
  EXPECT_EQ(s.config.input(0).data_type(), inference::TYPE_FP32);
  EXPECT_THAT(MetadataShape(s, s.config.input(0).dims()), ::testing::ElementsAre(-1, 3, 16, 16));
  EXPECT_THAT(MetadataShape(s, s.config.output(0).dims()), ::testing::ElementsAre(-1, 10));
}

}  // namespace vkserve::testing

#endif  // VKSERVE_TESTS_TESTING_TINYNET_EXAMPLE_H_
