// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// AffineGrid (opsets 20-27), fp32: the sampling grid [N, H, W, 2] (or
// [N, D, H, W, 3]) of theta [N, 2, 3] (or [N, 3, 4]) over `size` (input 1,
// host-known: [N, C, H, W] or [N, C, D, H, W]), align_corners
// (shaders/ops/affine_grid.comp).
#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr uint32_t kAffineGridLocal = 256;

absl::StatusOr<std::vector<int64_t>> SizeOf(const TensorDesc& theta, const HostTensor& size_value) {
  ASSIGN_OR_RETURN(const std::vector<int64_t> size, HostInts(size_value, "size"));
  const int64_t dims = static_cast<int64_t>(size.size()) - 2;
  if ((dims != 2 && dims != 3) || theta.shape != std::vector<int64_t>{size[0], dims, dims + 1}) {
    return absl::InvalidArgumentError(absl::StrCat("theta ", ShapeString(theta.shape),
                                                   " does not match size ", ShapeString(size)));
  }
  for (int64_t v : size) {
    if (v < 0) return absl::InvalidArgumentError("size entries must not be negative");
  }
  return size;
}

class AffineGridOp : public Op {
 public:
  bool IsHostInput(const Node& /*node*/, size_t input_index) const override {
    return input_index == 1;
  }

  absl::Status Validate(const Node& node) const override {
    return CheckAttributeType(node, "align_corners", Attribute::Type::kInt);
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* theta, RequireInput(ctx, 0));
    RETURN_IF_ERROR(CheckDataType(theta->dtype, {DataType::kFloat}, "theta"));
    ASSIGN_OR_RETURN(const HostTensor* size, RequireHostInput(ctx, 1));
    ASSIGN_OR_RETURN(const std::vector<int64_t> s, SizeOf(*theta, *size));
    std::vector<int64_t> out = {s[0]};
    out.insert(out.end(), s.begin() + 2, s.end());
    out.push_back(static_cast<int64_t>(s.size()) - 2);
    ctx.outputs[0].dtype = DataType::kFloat;
    ctx.outputs[0].shape = out;
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const std::vector<int64_t> s, SizeOf(*ctx.input(0), *ctx.input(1)->value));
    const uint32_t dims = static_cast<uint32_t>(s.size() - 2);
    const uint64_t points = static_cast<uint64_t>(ctx.output(0).num_elements() / dims);
    if (points == 0) return MakeEmptyKernel();
    if (points >= (uint64_t{1} << 30))
      return absl::UnimplementedError("AffineGrid: grid too large");
    DispatchStep step;
    step.push.U32(static_cast<uint32_t>(points))
        .U32(dims == 3 ? static_cast<uint32_t>(s[2]) : 1u)
        .U32(static_cast<uint32_t>(s[s.size() - 2]))
        .U32(static_cast<uint32_t>(s.back()));
    ASSIGN_OR_RETURN(
        step.pipeline,
        ctx.GetPipeline("ops/affine_grid", 2, step.push.size(), {kAffineGridLocal, 1, 1},
                        {dims, ctx.node().GetInt("align_corners", 0) != 0 ? 1u : 0u}));
    step.bindings = {BufferRef::Input(0), BufferRef::Output(0)};
    step.groups = GroupsFor(points, kAffineGridLocal, ctx.device());
    return MakeDispatchKernel(std::move(step));
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "AffineGrid", 20, 27, AffineGridOp);

}  // namespace vkserve
