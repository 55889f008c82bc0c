// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Det (opsets 11-27), fp32: the determinant of each trailing [n, n] matrix,
// n at most 16 (shaders/ops/det.comp).
#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr uint32_t kDetLocal = 64;
constexpr int64_t kMaxOrder = 16;

class DetOp : public Op {
 public:
  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
    RETURN_IF_ERROR(CheckDataType(x->dtype, {DataType::kFloat}, "input 0"));
    const size_t r = x->shape.size();
    if (r < 2 || x->shape[r - 1] != x->shape[r - 2]) {
      return absl::InvalidArgumentError(
          absl::StrCat("Det needs [..., n, n], got ", ShapeString(x->shape)));
    }
    if (x->shape[r - 1] > kMaxOrder) {
      return absl::UnimplementedError(absl::StrCat("Det of matrices larger than ", kMaxOrder));
    }
    ctx.outputs[0].dtype = x->dtype;
    ctx.outputs[0].shape.assign(x->shape.begin(), x->shape.end() - 2);
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    const TensorDesc& x = *ctx.input(0);
    const uint64_t count = static_cast<uint64_t>(ctx.output(0).num_elements());
    const int64_t n = x.shape.back();
    if (count == 0) return MakeEmptyKernel();
    if (x.num_elements() >= (int64_t{1} << 31)) return absl::UnimplementedError("tensor too large");
    if (n == 0) return absl::UnimplementedError("Det of 0 x 0 matrices");
    DispatchStep step;
    step.push.U32(static_cast<uint32_t>(count)).U32(static_cast<uint32_t>(n));
    ASSIGN_OR_RETURN(step.pipeline,
                     ctx.GetPipeline("ops/det", 2, step.push.size(), {kDetLocal, 1, 1}));
    step.bindings = {BufferRef::Input(0), BufferRef::Output(0)};
    step.groups = GroupsFor(count, kDetLocal, ctx.device());
    return MakeDispatchKernel(std::move(step));
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Det", 11, 27, DetOp);

}  // namespace vkserve
