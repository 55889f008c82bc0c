// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/ops/nn/normalize_op.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/op/op_util.h"
#include "runtime/ops/reduction/reduction_layout.h"

namespace vkserve {
namespace {

constexpr uint32_t kNormalizeLocal = 64;  // a power of two (normalize.comp's tree)

// The normalized sets: `shape` (the input's, or a view of it with the same
// element order) and which of its dims each set spans.
struct Sets {
  std::vector<int64_t> shape;
  std::vector<bool> reduced;
  // The affine parameters: entry of the element at flat offset `off` is
  // (off / channel_stride) % channels / per_entry; channels 0: none.
  int64_t channel_stride = 1, channels = 0, per_entry = 1;
};

absl::StatusOr<Sets> SetsOf(NormalizeOp::Kind kind, const Node& node,
                            const std::vector<int64_t>& x) {
  const int64_t rank = static_cast<int64_t>(x.size());
  Sets s;
  if (kind == NormalizeOp::Kind::kMeanVariance || kind == NormalizeOp::Kind::kLp) {
    s.shape = x;
    s.reduced.assign(x.size(), false);
    std::vector<int64_t> axes = kind == NormalizeOp::Kind::kLp
                                    ? std::vector<int64_t>{node.GetInt("axis", -1)}
                                    : node.GetInts("axes", {0, 2, 3});
    ASSIGN_OR_RETURN(axes, NormalizeAxes(axes, rank));
    for (int64_t a : axes) s.reduced[a] = true;
    return s;
  }
  if (rank < 2) return absl::InvalidArgumentError(absl::StrCat(node.op_type, " needs [N, C, ...]"));
  int64_t spatial = 1;
  for (int64_t d = 2; d < rank; ++d) spatial *= x[d];
  s.channel_stride = spatial;
  s.channels = x[1];
  if (kind == NormalizeOp::Kind::kInstance) {
    s.shape = {x[0], x[1], spatial};
    s.reduced = {false, false, true};
    return s;
  }
  const int64_t groups = node.GetInt("num_groups", 0);
  if (groups <= 0 || x[1] % groups != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("num_groups (", groups, ") must divide the ", x[1], " channels"));
  }
  s.shape = {x[0], groups, x[1] / groups * spatial};
  s.reduced = {false, false, true};
  // Opset 18: one scale/bias entry per group.
  if (node.opset < 21) s.per_entry = x[1] / groups;
  return s;
}

int64_t AffineEntries(const Sets& s) { return s.channels / s.per_entry; }

}  // namespace

absl::Status NormalizeOp::Validate(const Node& node) const {
  for (const char* name : {"axis", "p", "num_groups", "stash_type"}) {
    RETURN_IF_ERROR(CheckAttributeType(node, name, Attribute::Type::kInt));
  }
  if (kind_ == Kind::kLp) {
    const int64_t p = node.GetInt("p", 2);
    if (p != 1 && p != 2) return absl::InvalidArgumentError("LpNormalization's p must be 1 or 2");
  }
  return CheckAttributeType(node, "epsilon", Attribute::Type::kFloat);
}

absl::Status NormalizeOp::Infer(InferContext& ctx) const {
  ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
  RETURN_IF_ERROR(CheckDataType(x->dtype, {DataType::kFloat}, "input 0"));
  ASSIGN_OR_RETURN(const Sets s, SetsOf(kind_, ctx.node, x->shape));
  if (kind_ == Kind::kInstance || kind_ == Kind::kGroup) {
    for (size_t i : {1, 2}) {
      ASSIGN_OR_RETURN(const TensorDesc* t, RequireInput(ctx, i));
      if (t->dtype != DataType::kFloat || t->shape != std::vector<int64_t>{AffineEntries(s)}) {
        return absl::InvalidArgumentError(absl::StrCat("input ", i, " must be float[",
                                                       AffineEntries(s), "], is ", t->ToString()));
      }
    }
  }
  ctx.outputs[0].dtype = x->dtype;
  ctx.outputs[0].shape = x->shape;
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Kernel>> NormalizeOp::CreateKernel(KernelContext& ctx) const {
  const TensorDesc& x = *ctx.input(0);
  ASSIGN_OR_RETURN(const Sets s, SetsOf(kind_, ctx.node(), x.shape));
  if (x.num_elements() >= (int64_t{1} << 32)) {
    return absl::UnimplementedError(
        absl::StrCat("tensors of 2^32 or more elements (", x.num_elements(), ")"));
  }
  if (x.num_elements() == 0) return MakeEmptyKernel();
  ASSIGN_OR_RETURN(const ReductionLayout l, MergeReductionDims(s.shape, s.reduced, "normalizing"));
  const bool affine = s.channels > 0;
  const float default_eps = kind_ == Kind::kMeanVariance ? 1e-9f : 1e-5f;
  DispatchStep step;
  l.Push(step.push);
  step.push.F32(ctx.node().GetFloat("epsilon", default_eps));
  step.push.U32(static_cast<uint32_t>(s.channel_stride))
      .U32(static_cast<uint32_t>(std::max<int64_t>(s.channels, 1)));
  step.push.U32(static_cast<uint32_t>(s.per_entry));
  ASSIGN_OR_RETURN(step.pipeline,
                   ctx.GetPipeline("ops/normalize", 4, step.push.size(), {kNormalizeLocal, 1, 1},
                                   {kind_ == Kind::kLp ? 1u : 0u, affine ? 1u : 0u,
                                    static_cast<uint32_t>(ctx.node().GetInt("p", 2))}));
  step.bindings = {BufferRef::Input(0), BufferRef::Input(affine ? 1 : 0),
                   BufferRef::Input(affine ? 2 : 0), BufferRef::Output(0)};
  step.groups = GroupsFor(l.outputs, 1, ctx.device());
  return MakeDispatchKernel(std::move(step));
}

}  // namespace vkserve
