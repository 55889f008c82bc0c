// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/op/activation.h"

#include <algorithm>
#include <cmath>

namespace vkserve {
namespace {

constexpr char kActivationAttr[] = "_vkserve_activation";
constexpr char kAlphaAttr[] = "_vkserve_alpha";
constexpr char kBetaAttr[] = "_vkserve_beta";
constexpr char kResidualAttr[] = "_vkserve_residual";
constexpr char kResidualInputAttr[] = "_vkserve_residual_input";
constexpr char kPrecisionAttr[] = "_vkserve_precision";
constexpr char kAccumulationAttr[] = "_vkserve_accumulation";

float Softplus(float x) { return x > 20.0f ? x : std::log1p(std::exp(x)); }

// The "_vkserve_" attributes this file records on nodes.
void SetIntAttribute(const char* name, int64_t value, Node* node) {
  Attribute a;
  a.type = Attribute::Type::kInt;
  a.i = value;
  node->attributes[name] = a;
}

// The unary math family (kSqrt and after).
float ApplyMathActivation(const ActivationParams& p, float x) {
  switch (p.kind) {
    case Activation::kSqrt:
      return std::sqrt(x);
    case Activation::kExp:
      return std::exp(x);
    case Activation::kLog:
      return std::log(x);
    case Activation::kNeg:
      return -x;
    case Activation::kAbs:
      return std::fabs(x);
    case Activation::kReciprocal:
      return 1.0f / x;
    case Activation::kFloor:
      return std::floor(x);
    case Activation::kCeil:
      return std::ceil(x);
    case Activation::kRound:
      return std::nearbyint(x);  // the default rounding: half to even
    case Activation::kSign:
      return x > 0 ? 1.0f : (x < 0 ? -1.0f : x);
    case Activation::kSin:
      return std::sin(x);
    case Activation::kCos:
      return std::cos(x);
    case Activation::kTan:
      return std::tan(x);
    case Activation::kAsin:
      return std::asin(x);
    case Activation::kAcos:
      return std::acos(x);
    case Activation::kAtan:
      return std::atan(x);
    case Activation::kSinh:
      return std::sinh(x);
    case Activation::kCosh:
      return std::cosh(x);
    case Activation::kAsinh:
      return std::asinh(x);
    case Activation::kAcosh:
      return std::acosh(x);
    case Activation::kAtanh:
      return std::atanh(x);
    case Activation::kElu:
      return x >= 0 ? x : p.alpha * std::expm1(x);
    case Activation::kSelu:
      return p.beta * (x > 0 ? x : p.alpha * std::expm1(x));
    case Activation::kCelu:
      return std::max(0.0f, x) + std::min(0.0f, p.alpha * std::expm1(x / p.alpha));
    case Activation::kSoftplus:
      return Softplus(x);
    case Activation::kSoftsign:
      return x / (1.0f + std::fabs(x));
    case Activation::kThresholdedRelu:
      return x > p.alpha ? x : 0.0f;
    case Activation::kMish:
      return x * std::tanh(Softplus(x));
    case Activation::kShrink:
      return x < -p.alpha ? x + p.beta : (x > p.alpha ? x - p.beta : 0.0f);
    default:
      return x;
  }
}

}  // namespace

float ApplyActivation(const ActivationParams& p, float x) {
  switch (p.kind) {
    case Activation::kNone:
      return x;
    case Activation::kRelu:
      return std::max(x, 0.0f);
    case Activation::kLeakyRelu:
      return x >= 0 ? x : p.alpha * x;
    case Activation::kClip:
      return std::min(std::max(x, p.alpha), p.beta);
    case Activation::kSigmoid:
      return 1.0f / (1.0f + std::exp(-x));
    case Activation::kHardSigmoid:
      return std::max(0.0f, std::min(1.0f, p.alpha * x + p.beta));
    case Activation::kHardSwish:
      return x * std::max(0.0f, std::min(1.0f, x / 6.0f + 0.5f));
    case Activation::kTanh:
      return std::tanh(x);
    case Activation::kErf:
      return std::erf(x);
    case Activation::kGelu:
      return 0.5f * x * (1.0f + std::erf(x * 0.70710678f));
    case Activation::kGeluTanh:  // x * sigmoid(2u) == x * (1 + tanh(u)) / 2, as the shader
      return x / (1.0f + std::exp(-1.5957691216f * (x + 0.044715f * x * x * x)));
    case Activation::kQuickGelu:
    case Activation::kSwish:
      return x / (1.0f + std::exp(-p.alpha * x));
    default:
      return ApplyMathActivation(p, x);
  }
  return x;
}

absl::StatusOr<Epilogue> GetEpilogue(const Node& node) {
  Epilogue e;
  const int64_t kind = node.GetInt(kActivationAttr, 0);
  const int64_t residual = node.GetInt(kResidualAttr, 0);
  if (kind < 0 || kind > static_cast<int64_t>(kLastActivation) || residual < 0 || residual > 2) {
    return absl::InvalidArgumentError("bad fused epilogue attributes");
  }
  e.activation.kind = static_cast<Activation>(kind);
  e.activation.alpha = node.GetFloat(kAlphaAttr, 0);
  e.activation.beta = node.GetFloat(kBetaAttr, 0);
  e.residual = static_cast<Epilogue::Residual>(residual);
  e.residual_input = static_cast<int>(node.GetInt(kResidualInputAttr, -1));
  if (e.residual != Epilogue::Residual::kNone &&
      (e.residual_input < 0 || e.residual_input >= static_cast<int>(node.inputs.size()))) {
    return absl::InvalidArgumentError("fused residual input out of range");
  }
  return e;
}

Precision GetPrecision(const Node& node) {
  return node.GetInt(kPrecisionAttr, 0) == 1 ? Precision::kFp16 : Precision::kFp32;
}

void SetPrecision(Precision precision, Node* node) {
  SetIntAttribute(kPrecisionAttr, static_cast<int64_t>(precision), node);
}

Accumulation GetAccumulation(const Node& node) {
  return node.GetInt(kAccumulationAttr, 0) == 1 ? Accumulation::kFp16 : Accumulation::kFp32;
}

void SetAccumulation(Accumulation accumulation, Node* node) {
  SetIntAttribute(kAccumulationAttr, static_cast<int64_t>(accumulation), node);
}

void SetEpilogue(const Epilogue& e, Node* node) {
  auto set_int = [node](const char* name, int64_t v) { SetIntAttribute(name, v, node); };
  auto set_float = [node](const char* name, float v) {
    Attribute a;
    a.type = Attribute::Type::kFloat;
    a.f = v;
    node->attributes[name] = a;
  };
  set_int(kActivationAttr, static_cast<int64_t>(e.activation.kind));
  set_float(kAlphaAttr, e.activation.alpha);
  set_float(kBetaAttr, e.activation.beta);
  set_int(kResidualAttr, static_cast<int64_t>(e.residual));
  set_int(kResidualInputAttr, e.residual_input);
}

}  // namespace vkserve
