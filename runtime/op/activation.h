// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Activation: the pointwise functions that unary ops compute and that
// Conv/Gemm/MatMul apply in their fused epilogue. The numeric codes come from
// shaders/common/activation.def, which the shaders' ACT_<NAME> constants
// (spec constant ACTIVATION) are generated from. Which op
// computes which activation is the op's business (OpTraits::epilogue_activation,
// runtime/ops/unary/unary_op.h); nothing here knows op types.
//
// Epilogue: what a fusion pass folded into a Conv/Gemm/MatMul node — an
// activation and a residual add — stored as node attributes prefixed
// "_vkserve_", so the rewritten graph stays a plain Graph.
// Plain data and pure functions; thread-safe.
#ifndef VKSERVE_RUNTIME_OP_ACTIVATION_H_
#define VKSERVE_RUNTIME_OP_ACTIVATION_H_

#include <algorithm>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "runtime/ir/graph.h"

namespace vkserve {

// The codes of shaders/common/activation.def, the table the shaders take
// their ACT_<NAME> constants from.
enum class Activation : uint32_t {
#define VKSERVE_ACTIVATION(name, cpp_name, code) cpp_name = code,
#include "shaders/common/activation.def"
#undef VKSERVE_ACTIVATION
};
// The largest code (GetEpilogue refuses any above it).
inline constexpr Activation kLastActivation = [] {
  uint32_t last = 0;
#define VKSERVE_ACTIVATION(name, cpp_name, code) \
  last = std::max(last, static_cast<uint32_t>(Activation::cpp_name));
#include "shaders/common/activation.def"
#undef VKSERVE_ACTIVATION
  return static_cast<Activation>(last);
}();

struct ActivationParams {
  Activation kind = Activation::kNone;
  float alpha = 0;
  float beta = 0;
};

// Host reference of the same formulas as the shader.
float ApplyActivation(const ActivationParams& p, float x);

struct Epilogue {
  ActivationParams activation;
  enum class Residual : uint32_t { kNone = 0, kBeforeActivation = 1, kAfterActivation = 2 };
  Residual residual = Residual::kNone;
  int residual_input = -1;  // index of the residual among the node's inputs
  bool empty() const { return activation.kind == Activation::kNone && residual == Residual::kNone; }
};

// The arithmetic precision a load-time pass records on a GEMM node
// (ModelOptions::precision): kFp16 rounds the operands to fp16 and
// accumulates in fp32; kFp32 is exact fp32 math (the default).
enum class Precision : uint32_t { kFp32 = 0, kFp16 = 1 };
Precision GetPrecision(const Node& node);
void SetPrecision(Precision precision, Node* node);

// Where a kFp16 GEMM node's sums are kept (ModelOptions::accumulation),
// recorded by the same pass: kFp32 (the default) or kFp16, fp16
// accumulators on tensor cores that offer them (faster, less accurate over
// long K); the engine falls back to fp32 where it cannot and says so in the
// kernel's description.
enum class Accumulation : uint32_t { kFp32 = 0, kFp16 = 1 };
Accumulation GetAccumulation(const Node& node);
void SetAccumulation(Accumulation accumulation, Node* node);

// The epilogue recorded on `node` (empty when none). INVALID_ARGUMENT when the
// attributes are inconsistent.
absl::StatusOr<Epilogue> GetEpilogue(const Node& node);
void SetEpilogue(const Epilogue& epilogue, Node* node);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_OP_ACTIVATION_H_
