// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// A small Conv model for the scheduler tests (SessionPool, DynamicBatcher,
// several GPUs): y = Conv(x, W) with pads 1, so y has x's shape, optionally
// followed by z = Relu(y); random inputs for it; and the reference a
// scheduled request is checked against, the request run alone on a session
// of its own. Stateless; thread-safe.
#ifndef VKSERVE_TESTS_TESTING_CONV_MODEL_H_
#define VKSERVE_TESTS_TESTING_CONV_MODEL_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/ir/graph.h"
#include "runtime/session.h"

namespace vkserve::testing {

struct ConvGraphSpec {
  // x's shape, [N, C, H, W]; C must be fixed (it sizes W). y (and z) have
  // the same shape.
  std::vector<Dim> input_shape;
  // W [C, C, 3, 3] is (rng() % 100) / 100 - 0.5 from std::mt19937(seed).
  unsigned weight_seed = 1;
  // Adds z = Relu(y) as a second output.
  bool relu = false;
};

// The graph of `spec`, opset 13, input "x", outputs "y" (and "z").
Graph ConvGraph(const ConvGraphSpec& spec);

// `count` floats uniform in [-1, 1) from std::mt19937(seed), as bytes.
std::vector<uint8_t> RandomFloatBytes(size_t count, unsigned seed);

// Runs float input `name` of `shape` with `bytes` alone on `session`: every
// output's host bytes, in order. Fails the enclosing test (and returns none)
// when the run fails.
std::vector<std::vector<uint8_t>> RunAlone(Session& session, const std::string& name,
                                           const std::vector<int64_t>& shape,
                                           const std::vector<uint8_t>& bytes);

}  // namespace vkserve::testing

#endif  // VKSERVE_TESTS_TESTING_CONV_MODEL_H_
