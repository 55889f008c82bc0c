// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/ops/unary/unary_op.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr uint32_t kUnaryLocal = 256;

// Clip on an integer tensor, folded exactly in int64 (Clip accepts every
// integer type since opset 12, and shape arithmetic uses it on int64).
absl::StatusOr<HostTensor> FoldIntegerClip(const HostTensor& x, const TensorDesc* min,
                                           const TensorDesc* max) {
  int64_t lo = std::numeric_limits<int64_t>::min();
  int64_t hi = std::numeric_limits<int64_t>::max();
  for (const TensorDesc* bound : {min, max}) {
    if (bound != nullptr && bound->value->num_elements() != 1) {
      return absl::InvalidArgumentError("Clip min/max must be scalars");
    }
  }
  if (min != nullptr) lo = ElementAsInt(*min->value, 0);
  if (max != nullptr) hi = ElementAsInt(*max->value, 0);
  HostTensor y = x;
  for (int64_t i = 0; i < y.num_elements(); ++i) {
    SetElementFromInt(&y, i, std::min(std::max(ElementAsInt(x, i), lo), hi));
  }
  return y;
}

// The activations defined on integers too (shape arithmetic folds them).
bool IsIntegerActivation(Activation kind) {
  return kind == Activation::kRelu || kind == Activation::kNeg || kind == Activation::kAbs ||
         kind == Activation::kSign;
}

int64_t ApplyIntegerActivation(Activation kind, int64_t v) {
  switch (kind) {
    case Activation::kRelu:
      return std::max<int64_t>(v, 0);
    case Activation::kNeg:
      return -v;
    case Activation::kAbs:
      return v < 0 ? -v : v;
    case Activation::kSign:
      return v > 0 ? 1 : (v < 0 ? -1 : 0);
    default:
      return v;
  }
}

}  // namespace

ActivationOp::ActivationOp(Activation kind)
    : kind_(kind),
      traits_{.epilogue_activation =
                  [this](const Node& node, const ConstantInput& constant) {
                    return EpilogueParams(node, constant);
                  },
              .float16 = Float16Use::kComputes} {}

absl::Status ActivationOp::Validate(const Node& node) const {
  for (const char* name : {"alpha", "beta", "min", "max"}) {
    RETURN_IF_ERROR(CheckAttributeType(node, name, Attribute::Type::kFloat));
  }
  return absl::OkStatus();
}

absl::StatusOr<ActivationParams> ActivationOp::ParamsOf(const Node& /*node*/,
                                                        const ConstantInput& /*constant*/) const {
  ActivationParams p;
  p.kind = kind_;
  return p;
}

absl::StatusOr<ActivationParams> ActivationOp::EpilogueParams(const Node& node,
                                                              const ConstantInput& constant) const {
  for (size_t i = 1; i < node.inputs.size(); ++i) {
    if (!node.inputs[i].empty() && IsHostInput(node, i) && constant(i) == nullptr) {
      return absl::NotFoundError(absl::StrCat("input ", i, " is not a constant"));
    }
  }
  return ParamsOf(node, constant);
}

absl::StatusOr<ActivationParams> ActivationOp::PlannedParams(
    const Node& node, const std::vector<const TensorDesc*>& inputs) const {
  for (size_t i = 1; i < inputs.size(); ++i) {
    if (inputs[i] != nullptr && IsHostInput(node, i) && inputs[i]->value == nullptr) {
      return absl::UnimplementedError(absl::StrCat(
          node.op_type, "'s input ", i,
          " must be known at load time (a constant); vkserve never reads tensor data back in "
          "the middle of a run"));
    }
  }
  return ParamsOf(node, [&inputs](size_t i) -> const HostTensor* {
    return i < inputs.size() && inputs[i] != nullptr ? inputs[i]->value.get() : nullptr;
  });
}

absl::Status ActivationOp::Infer(InferContext& ctx) const {
  ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
  ASSIGN_OR_RETURN(ActivationParams params, PlannedParams(ctx.node, ctx.inputs));
  ctx.outputs[0].dtype = x->dtype;
  ctx.outputs[0].shape = x->shape;
  const bool foldable =
      x->value != nullptr && IsFoldableType(x->dtype) && x->num_elements() <= ctx.max_fold_elements;
  if (foldable && params.kind == Activation::kClip && !IsFloatType(x->dtype)) {
    ASSIGN_OR_RETURN(HostTensor y, FoldIntegerClip(*x->value, ctx.input(1), ctx.input(2)));
    ctx.outputs[0].value = Share(std::move(y));
    return absl::OkStatus();
  }
  if (foldable && IsIntegerActivation(params.kind) && !IsFloatType(x->dtype)) {
    HostTensor y = *x->value;
    for (int64_t i = 0; i < y.num_elements(); ++i) {
      SetElementFromInt(&y, i, ApplyIntegerActivation(params.kind, ElementAsInt(*x->value, i)));
    }
    ctx.outputs[0].value = Share(std::move(y));
    return absl::OkStatus();
  }
  if (foldable && IsFloatType(x->dtype)) {
    HostTensor y = *x->value;
    for (int64_t i = 0; i < y.num_elements(); ++i) {
      const float v = static_cast<float>(ElementAsDouble(*x->value, i));
      SetElementFromDouble(&y, i, ApplyActivation(params, v));
    }
    ctx.outputs[0].value = Share(std::move(y));
    return absl::OkStatus();
  }
  return CheckDataType(x->dtype, {DataType::kFloat, DataType::kFloat16}, "input 0");
}

absl::StatusOr<std::unique_ptr<Kernel>> ActivationOp::CreateKernel(KernelContext& ctx) const {
  std::vector<const TensorDesc*> inputs;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) inputs.push_back(ctx.input(i));
  ASSIGN_OR_RETURN(ActivationParams params, PlannedParams(ctx.node(), inputs));
  const uint64_t n = static_cast<uint64_t>(ctx.output(0).num_elements());
  if (n >= (uint64_t{1} << 32)) {
    return absl::UnimplementedError(absl::StrCat("tensors of 2^32 or more elements (", n, ")"));
  }
  if (n == 0) return MakeEmptyKernel();
  DispatchStep step;
  step.push.U32(static_cast<uint32_t>(n)).F32(params.alpha).F32(params.beta);
  // fp16: the build-time variant of the same shader (two words per invocation).
  const char* shader = ctx.output(0).dtype == DataType::kFloat16 ? "ops/unary_f16" : "ops/unary";
  ASSIGN_OR_RETURN(step.pipeline, ctx.GetPipeline(shader, 2, step.push.size(), {kUnaryLocal, 1, 1},
                                                  {static_cast<uint32_t>(params.kind)}));
  step.bindings = {BufferRef::Input(0), BufferRef::Output(0)};
  step.groups = GroupsFor((n + 3) / 4, kUnaryLocal, ctx.device());  // 4 elements per invocation
  return MakeDispatchKernel(std::move(step));
}

}  // namespace vkserve
