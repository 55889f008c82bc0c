// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Activation: the pointwise functions that unary ops compute and that
// Conv/Gemm/MatMul apply in their fused epilogue. The numeric codes are shared
// with shaders/common/activation.glsl (spec constant ACTIVATION).
//
// Epilogue: what a fusion pass folded into a Conv/Gemm/MatMul node — an
// activation and a residual add — stored as node attributes prefixed
// "_vkserve_", so the rewritten graph stays a plain Graph.
// Plain data and pure functions; thread-safe.
#ifndef VKSERVE_RUNTIME_ACTIVATION_H_
#define VKSERVE_RUNTIME_ACTIVATION_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "runtime/graph.h"

namespace vkserve {

enum class Activation : uint32_t {
  kNone = 0,
  kRelu = 1,
  kLeakyRelu = 2,    // alpha
  kClip = 3,         // alpha = min, beta = max
  kSigmoid = 4,
  kHardSigmoid = 5,  // alpha, beta
  kHardSwish = 6,
  kTanh = 7,
  kErf = 8,
};

struct ActivationParams {
  Activation kind = Activation::kNone;
  float alpha = 0;
  float beta = 0;
};

// Host reference of the same formulas as the shader.
float ApplyActivation(const ActivationParams& p, float x);

// The activation a Relu/LeakyRelu/Clip/Sigmoid/HardSigmoid/HardSwish/Tanh/Erf node
// computes. `clip_min`/`clip_max` are Clip's host-known inputs (opset >= 11),
// null when absent. NOT_FOUND for other op types.
absl::StatusOr<ActivationParams> ActivationOfNode(const Node& node, const HostTensor* clip_min,
                                                  const HostTensor* clip_max);

struct Epilogue {
  ActivationParams activation;
  enum class Residual : uint32_t { kNone = 0, kBeforeActivation = 1, kAfterActivation = 2 };
  Residual residual = Residual::kNone;
  int residual_input = -1;  // index of the residual among the node's inputs
  bool empty() const { return activation.kind == Activation::kNone && residual == Residual::kNone; }
};

// The epilogue recorded on `node` (empty when none). INVALID_ARGUMENT when the
// attributes are inconsistent.
absl::StatusOr<Epilogue> GetEpilogue(const Node& node);
void SetEpilogue(const Epilogue& epilogue, Node* node);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_ACTIVATION_H_
