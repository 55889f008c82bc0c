// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/ops/nn/nll_loss_op.h"

#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr uint32_t kNllLossLocal = 64;
constexpr uint32_t kNllLossReduceLocal = 256;  // a power of two (nll_loss.comp PASS 1)

enum class NllLossReduction { kNone, kSum, kMean };

absl::StatusOr<NllLossReduction> NllLossReductionOf(const Node& node) {
  const std::string r = node.GetString("reduction", "mean");
  if (r == "none") return NllLossReduction::kNone;
  if (r == "sum") return NllLossReduction::kSum;
  if (r == "mean") return NllLossReduction::kMean;
  return absl::InvalidArgumentError(absl::StrCat("unknown reduction \"", r.substr(0, 32), "\""));
}

// [N, C, D] of the scores, checked against the targets' [N, d1, ...].
struct NllLossDims {
  int64_t n = 1, classes = 1, inner = 1;
};

absl::StatusOr<NllLossDims> NllLossDimsOf(const TensorDesc& x, const TensorDesc& target,
                                          const TensorDesc* weight) {
  if (x.shape.size() < 2) return absl::InvalidArgumentError("input must have rank 2 or more");
  if (target.shape.size() + 1 != x.shape.size() || target.shape[0] != x.shape[0]) {
    return absl::InvalidArgumentError(absl::StrCat("target ", ShapeString(target.shape),
                                                   " does not match input ", ShapeString(x.shape)));
  }
  NllLossDims d;
  d.n = x.shape[0];
  d.classes = x.shape[1];
  for (size_t k = 2; k < x.shape.size(); ++k) {
    if (target.shape[k - 1] != x.shape[k]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "target ", ShapeString(target.shape), " does not match input ", ShapeString(x.shape)));
    }
    d.inner *= x.shape[k];
  }
  if (weight != nullptr && weight->shape != std::vector<int64_t>{d.classes}) {
    return absl::InvalidArgumentError(
        absl::StrCat("weight ", ShapeString(weight->shape), " must be [", d.classes, "]"));
  }
  return d;
}

}  // namespace

absl::Status LossOp::Validate(const Node& node) const {
  RETURN_IF_ERROR(CheckAttributeType(node, "ignore_index", Attribute::Type::kInt));
  return NllLossReductionOf(node).status();
}

absl::Status LossOp::Infer(InferContext& ctx) const {
  ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
  ASSIGN_OR_RETURN(const TensorDesc* target, RequireInput(ctx, 1));
  const TensorDesc* weight = ctx.input(2);
  RETURN_IF_ERROR(CheckDataType(x->dtype, {DataType::kFloat}, "input 0"));
  RETURN_IF_ERROR(CheckDataType(target->dtype, {DataType::kInt64}, "target"));
  if (weight != nullptr)
    RETURN_IF_ERROR(CheckDataType(weight->dtype, {DataType::kFloat}, "weight"));
  RETURN_IF_ERROR(NllLossDimsOf(*x, *target, weight).status());
  ASSIGN_OR_RETURN(const NllLossReduction reduction, NllLossReductionOf(ctx.node));
  ctx.outputs[0].dtype = DataType::kFloat;
  ctx.outputs[0].shape =
      reduction == NllLossReduction::kNone ? target->shape : std::vector<int64_t>{};
  if (softmax_first_ && ctx.outputs.size() > 1) {
    ctx.outputs[1].dtype = DataType::kFloat;
    ctx.outputs[1].shape = x->shape;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Kernel>> LossOp::CreateKernel(KernelContext& ctx) const {
  const TensorDesc& x = *ctx.input(0);
  const TensorDesc* weight = ctx.input(2);
  ASSIGN_OR_RETURN(const NllLossDims d, NllLossDimsOf(x, *ctx.input(1), weight));
  ASSIGN_OR_RETURN(const NllLossReduction reduction, NllLossReductionOf(ctx.node()));
  if (x.num_elements() >= (int64_t{1} << 32)) {
    return absl::UnimplementedError(
        absl::StrCat("tensors of 2^32 or more elements (", x.num_elements(), ")"));
  }
  const uint64_t n = static_cast<uint64_t>(d.n * d.inner);
  std::vector<DispatchStep> steps;
  if (n == 0 || d.classes == 0) {
    return absl::UnimplementedError("a loss over an empty batch or no classes");
  }
  BufferRef log_prob = BufferRef::Input(0);
  if (softmax_first_) {
    // Log-probabilities into output 1 when the node has it, else scratch.
    const bool has_log_prob = ctx.num_outputs() > 1 && ctx.output(1).dtype != DataType::kUndefined;
    const BufferRef write =
        has_log_prob ? BufferRef::Output(1)
                     : BufferRef::Scratch(ctx.RequestScratch(x.byte_size()), gpu::Access::kWrite);
    log_prob = write;
    log_prob.access = gpu::Access::kRead;
    DispatchStep softmax;
    softmax.push.U32(static_cast<uint32_t>(n))
        .U32(static_cast<uint32_t>(d.classes))
        .U32(static_cast<uint32_t>(d.inner));
    ASSIGN_OR_RETURN(softmax.pipeline,
                     ctx.GetPipeline("ops/softmax", 2, softmax.push.size(), {kNllLossLocal, 1, 1},
                                     {1u, /*log-softmax*/ 1u}));
    softmax.bindings = {BufferRef::Input(0), write};
    softmax.groups = GroupsFor(n, kNllLossLocal, ctx.device());
    steps.push_back(std::move(softmax));
  }
  const uint32_t wsum = ctx.RequestScratch(n * sizeof(float));
  const BufferRef loss =
      reduction == NllLossReduction::kNone
          ? BufferRef::Output(0)
          : BufferRef::Scratch(ctx.RequestScratch(n * sizeof(float)), gpu::Access::kReadWrite);
  const Node& node = ctx.node();
  const int64_t ignore = node.GetInt("ignore_index", 0);
  PushConstants push;
  push.U32(static_cast<uint32_t>(n))
      .U32(static_cast<uint32_t>(d.classes))
      .U32(static_cast<uint32_t>(d.inner));
  push.U32(node.FindAttribute("ignore_index") != nullptr ? 1u : 0u);
  push.U32(static_cast<uint32_t>(static_cast<uint64_t>(ignore)))
      .U32(static_cast<uint32_t>(static_cast<uint64_t>(ignore) >> 32));
  const std::vector<BufferRef> bindings = {
      log_prob,
      BufferRef::Input(1),
      weight != nullptr ? BufferRef::Input(2) : BufferRef::Input(0),
      loss,
      BufferRef::Scratch(wsum, gpu::Access::kReadWrite),
      BufferRef::Output(0)};
  const uint32_t has_weight = weight != nullptr ? 1u : 0u;
  const uint32_t mean = reduction == NllLossReduction::kMean ? 1u : 0u;
  DispatchStep elementwise;
  elementwise.push = push;
  ASSIGN_OR_RETURN(elementwise.pipeline,
                   ctx.GetPipeline("ops/nll_loss", 6, push.size(), {kNllLossLocal, 1, 1},
                                   {0u, has_weight, mean}));
  elementwise.bindings = bindings;
  elementwise.groups = GroupsFor(n, kNllLossLocal, ctx.device());
  steps.push_back(std::move(elementwise));
  if (reduction != NllLossReduction::kNone) {
    DispatchStep reduce;
    reduce.push = push;
    ASSIGN_OR_RETURN(reduce.pipeline,
                     ctx.GetPipeline("ops/nll_loss", 6, push.size(), {kNllLossReduceLocal, 1, 1},
                                     {1u, has_weight, mean}));
    reduce.bindings = bindings;
    steps.push_back(std::move(reduce));
  }
  return std::make_unique<DispatchKernel>(std::move(steps));
}

}  // namespace vkserve
