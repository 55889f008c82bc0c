// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Activation: the pointwise functions that unary ops compute and that
// Conv/Gemm/MatMul apply in their fused epilogue. The numeric codes are shared
// with shaders/common/activation.glsl (spec constant ACTIVATION). Which op
// computes which activation is the op's business (Op::EpilogueActivation,
// runtime/ops/unary/unary_op.h); nothing here knows op types.
//
// Epilogue: what a fusion pass folded into a Conv/Gemm/MatMul node — an
// activation and a residual add — stored as node attributes prefixed
// "_vkserve_", so the rewritten graph stays a plain Graph.
// Plain data and pure functions; thread-safe.
#ifndef VKSERVE_RUNTIME_OP_ACTIVATION_H_
#define VKSERVE_RUNTIME_OP_ACTIVATION_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "runtime/ir/graph.h"

namespace vkserve {

enum class Activation : uint32_t {
  kNone = 0,
  kRelu = 1,
  kLeakyRelu = 2,  // alpha
  kClip = 3,       // alpha = min, beta = max
  kSigmoid = 4,
  kHardSigmoid = 5,  // alpha, beta
  kHardSwish = 6,
  kTanh = 7,
  kErf = 8,
  kGelu = 9,        // x * (1 + erf(x / sqrt(2))) / 2
  kGeluTanh = 10,   // x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))) / 2
  kQuickGelu = 11,  // x * sigmoid(alpha * x)
  // The unary math ops.
  kSqrt = 12,
  kExp = 13,
  kLog = 14,
  kNeg = 15,
  kAbs = 16,
  kReciprocal = 17,
  kFloor = 18,
  kCeil = 19,
  kRound = 20,  // half to even
  kSign = 21,
  kSin = 22,
  kCos = 23,
  kTan = 24,
  kAsin = 25,
  kAcos = 26,
  kAtan = 27,
  kSinh = 28,
  kCosh = 29,
  kAsinh = 30,
  kAcosh = 31,
  kAtanh = 32,
  kElu = 33,   // alpha
  kSelu = 34,  // alpha, beta = gamma
  kCelu = 35,  // alpha
  kSoftplus = 36,
  kSoftsign = 37,
  kThresholdedRelu = 38,  // alpha
  kMish = 39,
  kShrink = 40,  // alpha = lambd, beta = bias
  kSwish = 41,   // x * sigmoid(alpha * x), as QuickGelu
};
inline constexpr Activation kLastActivation = Activation::kSwish;

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

// The epilogue recorded on `node` (empty when none). INVALID_ARGUMENT when the
// attributes are inconsistent.
absl::StatusOr<Epilogue> GetEpilogue(const Node& node);
void SetEpilogue(const Epilogue& epilogue, Node* node);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_OP_ACTIVATION_H_
