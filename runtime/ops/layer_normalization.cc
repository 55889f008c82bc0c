// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// LayerNormalization (opsets 17-25), fp32: each row of the trailing dims
// [axis, rank) is normalized to zero mean and unit variance, then scaled and
// shifted: Y = (X - mean) / sqrt(var + epsilon) * Scale + B. The optional
// outputs Mean and InvStdDev have shape X.shape[:axis] + [1] * (rank - axis).
// Scale and B broadcast to the normalized shape when they are its trailing
// dims (the exporters' [D], or a scalar); shaders/ops/layer_normalization.comp
// does one row per workgroup.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "runtime/op_registry.h"
#include "runtime/op_util.h"
#include "runtime/ops/dispatch_kernel.h"

namespace vkserve {
namespace {

struct Layout {
  int64_t axis = 0;
  int64_t rows = 1;  // prod(shape[:axis])
  int64_t size = 1;  // prod(shape[axis:]): elements per row
};

absl::StatusOr<Layout> LayoutOf(const Node& node, const std::vector<int64_t>& shape) {
  Layout l;
  ASSIGN_OR_RETURN(l.axis, NormalizeAxis(node.GetInt("axis", -1), static_cast<int64_t>(shape.size())));
  for (int64_t d = 0; d < l.axis; ++d) l.rows *= shape[d];
  for (size_t d = static_cast<size_t>(l.axis); d < shape.size(); ++d) l.size *= shape[d];
  return l;
}

// Scale and B: the element for row position k is param[k % n] when the
// parameter's shape, without leading 1s, is the trailing part of the
// normalized shape. Returns n.
absl::StatusOr<int64_t> ParamPeriod(const TensorDesc& param, const std::vector<int64_t>& shape,
                                    int64_t axis, const char* name) {
  std::vector<int64_t> p = param.shape;
  while (!p.empty() && p.front() == 1) p.erase(p.begin());
  const std::vector<int64_t> normalized(shape.begin() + axis, shape.end());
  const bool trailing = p.size() <= normalized.size() &&
                        std::equal(p.rbegin(), p.rend(), normalized.rbegin());
  if (!trailing || param.shape.size() > shape.size()) {
    return absl::UnimplementedError(absl::StrCat(
        name, " of shape ", ShapeString(param.shape), " for normalized shape ",
        ShapeString(normalized), ": only trailing-dimension broadcasts are supported"));
  }
  return NumElements(p);
}

class LayerNormalizationOp : public Op {
 public:
  absl::Status Validate(const Node& node) const override {
    RETURN_IF_ERROR(CheckAttributeType(node, "axis", Attribute::Type::kInt));
    RETURN_IF_ERROR(CheckAttributeType(node, "epsilon", Attribute::Type::kFloat));
    RETURN_IF_ERROR(CheckAttributeType(node, "stash_type", Attribute::Type::kInt));
    // stash_type 1 (float) is what every exporter writes; the computation is
    // fp32 either way, which is at least as precise as any other stash type.
    const int64_t stash = node.GetInt("stash_type", 1);
    if (stash != 1) {
      return absl::UnimplementedError(absl::StrCat("stash_type ", stash, " (only 1, float)"));
    }
    if (!(node.GetFloat("epsilon", 1e-5f) >= 0.0f)) {
      return absl::InvalidArgumentError("epsilon must be >= 0");
    }
    return absl::OkStatus();
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
    ASSIGN_OR_RETURN(const TensorDesc* scale, RequireInput(ctx, 1));
    RETURN_IF_ERROR(CheckDataType(x->dtype, {DataType::kFloat}, "input 0"));
    RETURN_IF_ERROR(CheckDataType(scale->dtype, {DataType::kFloat}, "Scale"));
    if (x->shape.empty()) return absl::InvalidArgumentError("LayerNormalization of a scalar");
    ASSIGN_OR_RETURN(const Layout l, LayoutOf(ctx.node, x->shape));
    RETURN_IF_ERROR(ParamPeriod(*scale, x->shape, l.axis, "Scale").status());
    if (const TensorDesc* b = ctx.input(2)) {
      RETURN_IF_ERROR(CheckDataType(b->dtype, {DataType::kFloat}, "B"));
      RETURN_IF_ERROR(ParamPeriod(*b, x->shape, l.axis, "B").status());
    }
    ctx.outputs[0].dtype = DataType::kFloat;
    ctx.outputs[0].shape = x->shape;
    std::vector<int64_t> stats_shape = x->shape;
    for (size_t d = static_cast<size_t>(l.axis); d < stats_shape.size(); ++d) stats_shape[d] = 1;
    for (size_t o = 1; o < ctx.outputs.size() && o < 3; ++o) {
      ctx.outputs[o].dtype = DataType::kFloat;
      ctx.outputs[o].shape = stats_shape;
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    const TensorDesc& x = *ctx.input(0);
    const uint64_t n = static_cast<uint64_t>(x.num_elements());
    if (n >= (uint64_t{1} << 32)) {
      return absl::UnimplementedError(absl::StrCat("tensors of 2^32 or more elements (", n, ")"));
    }
    if (n == 0) return std::make_unique<DispatchKernel>(std::vector<DispatchStep>{});
    ASSIGN_OR_RETURN(const Layout l, LayoutOf(ctx.node(), x.shape));
    ASSIGN_OR_RETURN(const int64_t scale_n, ParamPeriod(*ctx.input(1), x.shape, l.axis, "Scale"));
    const TensorDesc* b = ctx.num_inputs() > 2 ? ctx.input(2) : nullptr;
    int64_t bias_n = 0;
    if (b != nullptr) {
      ASSIGN_OR_RETURN(bias_n, ParamPeriod(*b, x.shape, l.axis, "B"));
    }
    auto requested = [&](size_t o) {
      return o < ctx.num_outputs() && ctx.output(o).dtype != DataType::kUndefined;
    };
    const bool mean_out = requested(1), inv_out = requested(2);

    // A power of two covering the row, 32 to 256 invocations: each reads the
    // row with a stride of the workgroup size, so loads coalesce.
    const uint32_t max_local = std::min<uint32_t>(256, ctx.device().info().max_workgroup_invocations);
    uint32_t local = 32;
    while (local < static_cast<uint64_t>(l.size) && local * 2 <= max_local) local *= 2;

    DispatchStep step;
    step.push.U32(static_cast<uint32_t>(l.rows))
        .U32(static_cast<uint32_t>(l.size))
        .U32(static_cast<uint32_t>(scale_n))
        .U32(static_cast<uint32_t>(std::max<int64_t>(bias_n, 1)))
        .F32(ctx.node().GetFloat("epsilon", 1e-5f));
    ASSIGN_OR_RETURN(step.pipeline,
                     ctx.GetPipeline("ops/layer_normalization", 6, step.push.size(), {local, 1, 1},
                                     {b != nullptr ? 1u : 0u, mean_out ? 1u : 0u, inv_out ? 1u : 0u}));
    // Absent B reads Scale (never used); absent statistics write scratch.
    const uint32_t dummy = (mean_out && inv_out) ? 0 : ctx.RequestScratch(4);
    step.bindings = {BufferRef::Input(0),
                     BufferRef::Input(1),
                     BufferRef::Input(b != nullptr ? 2 : 1),
                     BufferRef::Output(0),
                     mean_out ? BufferRef::Output(1) : BufferRef::Scratch(dummy, gpu::Access::kWrite),
                     inv_out ? BufferRef::Output(2) : BufferRef::Scratch(dummy, gpu::Access::kWrite)};
    step.groups = GroupsFor(static_cast<uint64_t>(l.rows), 1, ctx.device());
    return MakeDispatchKernel(std::move(step));
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "LayerNormalization", 17, 25, LayerNormalizationOp);

}  // namespace vkserve
