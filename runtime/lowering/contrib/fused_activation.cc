// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/lowering/contrib/fused_activation.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/lowering/rewrite_attributes.h"

namespace vkserve {
namespace {

// The attribute `name`, or null when absent; INVALID_ARGUMENT when it has another type.
absl::StatusOr<const Attribute*> TypedAttribute(const Node& node, const std::string& name,
                                                Attribute::Type type, const char* type_name) {
  const Attribute* attr = node.FindAttribute(name);
  if (attr != nullptr && attr->type != type) {
    return absl::InvalidArgumentError(absl::StrCat("attribute '", name, "' must be ", type_name));
  }
  return attr;
}

// The `activation` attribute, or null when the node has none.
absl::StatusOr<const Attribute*> ActivationAttribute(const Node& node) {
  return TypedAttribute(node, "activation", Attribute::Type::kString, "a string");
}

// A functor parameter: `activation_<name>`, or `fallback` when absent.
absl::StatusOr<float> FunctorParam(const Node& node, const std::string& name, float fallback) {
  ASSIGN_OR_RETURN(const Attribute* attr, TypedAttribute(node, absl::StrCat("activation_", name),
                                                         Attribute::Type::kFloat, "a float"));
  return attr == nullptr ? fallback : attr->f;
}

std::string AddScalar(RewriteContext& ctx, std::string_view hint, float value) {
  return ctx.AddInitializer(hint, HostTensor::FromFloats({value}, {}));
}

}  // namespace

absl::StatusOr<FusedActivation> MlasActivationOf(const Node& node) {
  FusedActivation a;
  ASSIGN_OR_RETURN(const Attribute* attr, ActivationAttribute(node));
  if (attr == nullptr) return a;
  const std::string& name = attr->s;
  // How many activation_params each MLAS activation takes.
  size_t param_count = 0;
  if (name == "Relu" || name == "Tanh" || name == "Sigmoid" || name == "Silu" ||
      name == "HardSwish") {
    param_count = 0;
  } else if (name == "LeakyRelu") {
    param_count = 1;
  } else if (name == "Clip" || name == "HardSigmoid") {
    param_count = 2;
  } else {
    return absl::InvalidArgumentError(absl::StrCat("unknown fused activation '", name, "'"));
  }
  a.op = name;
  if (param_count == 0) return a;
  ASSIGN_OR_RETURN(const Attribute* params,
                   TypedAttribute(node, "activation_params", Attribute::Type::kFloats, "floats"));
  if (params == nullptr || params->floats.size() != param_count) {
    return absl::InvalidArgumentError(absl::StrCat("activation ", name, " takes ", param_count,
                                                   " activation_params, the node has ",
                                                   params == nullptr ? 0 : params->floats.size()));
  }
  a.alpha = params->floats[0];
  if (param_count > 1) a.beta = params->floats[1];
  return a;
}

absl::StatusOr<FusedActivation> FunctorActivationOf(const Node& node) {
  FusedActivation a;
  ASSIGN_OR_RETURN(const Attribute* attr, ActivationAttribute(node));
  if (attr == nullptr || attr->s.empty()) return a;
  const std::string& name = attr->s;
  a.op = name;
  // Defaults are the plain ONNX ops' own, which is what ORT's fusion copied
  // when the fused activation node left them out.
  if (name == "Relu" || name == "Tanh" || name == "Sigmoid") return a;
  if (name == "LeakyRelu") {
    ASSIGN_OR_RETURN(a.alpha, FunctorParam(node, "alpha", 0.01f));
    return a;
  }
  if (name == "HardSigmoid") {
    ASSIGN_OR_RETURN(a.alpha, FunctorParam(node, "alpha", 0.2f));
    ASSIGN_OR_RETURN(a.beta, FunctorParam(node, "beta", 0.5f));
    return a;
  }
  if (name == "ThresholdedRelu") {
    ASSIGN_OR_RETURN(a.alpha, FunctorParam(node, "alpha", 1.0f));
    return a;
  }
  if (name == "ScaledTanh") {
    ASSIGN_OR_RETURN(a.alpha, FunctorParam(node, "alpha", 1.0f));
    ASSIGN_OR_RETURN(a.beta, FunctorParam(node, "beta", 1.0f));
    return a;
  }
  if (name == "Elu" || name == "Selu" || name == "Celu" || name == "Softplus" ||
      name == "Softsign" || name == "ParametricSoftplus") {
    return absl::UnimplementedError(absl::StrCat("fused activation '", name, "' is not supported"));
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown fused activation '", name, "'"));
}

void AddActivationNodes(RewriteContext& ctx, const FusedActivation& a, const std::string& input,
                        const std::string& output) {
  if (a.op == "Relu" || a.op == "Tanh" || a.op == "Sigmoid") {
    ctx.AddNode(a.op, {input}, {output}, 13);
  } else if (a.op == "LeakyRelu") {
    Node& n = ctx.AddNode("LeakyRelu", {input}, {output}, 16);
    n.attributes["alpha"] = FloatAttribute(a.alpha);
  } else if (a.op == "HardSigmoid") {
    Node& n = ctx.AddNode("HardSigmoid", {input}, {output}, 6);
    n.attributes["alpha"] = FloatAttribute(a.alpha);
    n.attributes["beta"] = FloatAttribute(a.beta);
  } else if (a.op == "Clip") {
    // Clip-6 keeps min/max as attributes; the fusion pass reads them there.
    Node& n = ctx.AddNode("Clip", {input}, {output}, 6);
    n.attributes["min"] = FloatAttribute(a.alpha);
    n.attributes["max"] = FloatAttribute(a.beta);
  } else if (a.op == "HardSwish") {  // MLAS: x * clamp(x / 6 + 0.5, 0, 1), as ONNX HardSwish
    ctx.AddNode("HardSwish", {input}, {output}, 14);
  } else if (a.op == "Silu") {
    std::string sig = ctx.NewValueName("silu_sigmoid");
    ctx.AddNode("Sigmoid", {input}, {sig}, 13);
    ctx.AddNode("Mul", {input, sig}, {output}, 14);
  } else if (a.op == "ScaledTanh") {  // alpha * tanh(beta * x)
    std::string scaled = ctx.NewValueName("scaled_tanh_in");
    std::string tanh = ctx.NewValueName("scaled_tanh");
    ctx.AddNode("Mul", {input, AddScalar(ctx, "scaled_tanh_beta", a.beta)}, {scaled}, 14);
    ctx.AddNode("Tanh", {scaled}, {tanh}, 13);
    ctx.AddNode("Mul", {tanh, AddScalar(ctx, "scaled_tanh_alpha", a.alpha)}, {output}, 14);
  } else if (a.op == "ThresholdedRelu") {  // x > alpha ? x : 0
    std::string above = ctx.NewValueName("thresholded_relu_mask");
    ctx.AddNode("Greater", {input, AddScalar(ctx, "thresholded_relu_alpha", a.alpha)}, {above}, 13);
    ctx.AddNode("Where", {above, input, AddScalar(ctx, "thresholded_relu_zero", 0.0f)}, {output},
                16);
  }
}

}  // namespace vkserve
