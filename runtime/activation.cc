// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/activation.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"

namespace vkserve {
namespace {

constexpr char kActivationAttr[] = "_vkserve_activation";
constexpr char kAlphaAttr[] = "_vkserve_alpha";
constexpr char kBetaAttr[] = "_vkserve_beta";
constexpr char kResidualAttr[] = "_vkserve_residual";
constexpr char kResidualInputAttr[] = "_vkserve_residual_input";

}  // namespace

float ApplyActivation(const ActivationParams& p, float x) {
  switch (p.kind) {
    case Activation::kNone: return x;
    case Activation::kRelu: return std::max(x, 0.0f);
    case Activation::kLeakyRelu: return x >= 0 ? x : p.alpha * x;
    case Activation::kClip: return std::min(std::max(x, p.alpha), p.beta);
    case Activation::kSigmoid: return 1.0f / (1.0f + std::exp(-x));
    case Activation::kHardSigmoid: return std::max(0.0f, std::min(1.0f, p.alpha * x + p.beta));
    case Activation::kHardSwish: return x * std::max(0.0f, std::min(1.0f, x / 6.0f + 0.5f));
    case Activation::kTanh: return std::tanh(x);
    case Activation::kErf: return std::erf(x);
  }
  return x;
}

absl::StatusOr<ActivationParams> ActivationOfNode(const Node& node, const HostTensor* clip_min,
                                                  const HostTensor* clip_max) {
  ActivationParams p;
  if (!node.domain.empty()) return absl::NotFoundError("not an activation");
  const std::string& t = node.op_type;
  if (t == "Relu") {
    p.kind = Activation::kRelu;
  } else if (t == "LeakyRelu") {
    p.kind = Activation::kLeakyRelu;
    p.alpha = node.GetFloat("alpha", 0.01f);
  } else if (t == "Clip") {
    p.kind = Activation::kClip;
    p.alpha = -std::numeric_limits<float>::infinity();
    p.beta = std::numeric_limits<float>::infinity();
    if (node.opset < 11) {
      p.alpha = node.GetFloat("min", p.alpha);
      p.beta = node.GetFloat("max", p.beta);
    } else {
      for (const HostTensor* t2 : {clip_min, clip_max}) {
        if (t2 != nullptr && t2->num_elements() != 1) {
          return absl::InvalidArgumentError("Clip min/max must be scalars");
        }
      }
      if (clip_min != nullptr) p.alpha = static_cast<float>(clip_min->GetDouble(0));
      if (clip_max != nullptr) p.beta = static_cast<float>(clip_max->GetDouble(0));
    }
  } else if (t == "Sigmoid") {
    p.kind = Activation::kSigmoid;
  } else if (t == "HardSigmoid") {
    p.kind = Activation::kHardSigmoid;
    p.alpha = node.GetFloat("alpha", 0.2f);
    p.beta = node.GetFloat("beta", 0.5f);
  } else if (t == "HardSwish") {
    p.kind = Activation::kHardSwish;
  } else if (t == "Tanh") {
    p.kind = Activation::kTanh;
  } else if (t == "Erf") {
    p.kind = Activation::kErf;
  } else {
    return absl::NotFoundError(absl::StrCat(t, " is not an activation"));
  }
  return p;
}

absl::StatusOr<Epilogue> GetEpilogue(const Node& node) {
  Epilogue e;
  const int64_t kind = node.GetInt(kActivationAttr, 0);
  const int64_t residual = node.GetInt(kResidualAttr, 0);
  if (kind < 0 || kind > static_cast<int64_t>(Activation::kErf) || residual < 0 || residual > 2) {
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

void SetEpilogue(const Epilogue& e, Node* node) {
  auto set_int = [node](const char* name, int64_t v) {
    Attribute a;
    a.type = Attribute::Type::kInt;
    a.i = v;
    node->attributes[name] = a;
  };
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
