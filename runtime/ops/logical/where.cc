// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Where (opsets 9-27): out = cond ? X : Y elementwise, with numpy
// broadcasting over all three. Folded when all inputs are host-known and the
// output small; otherwise shaders/ops/where.comp, for X/Y of any 1-, 2-, 4-
// or 8-byte type (attention masks: bool cond, float X/Y).
#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/kernels/strided_copy.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr uint32_t kWhereLocalSize = 256;
constexpr size_t kMaxWhereRank = 7;

struct WhereParams {
  uint32_t count;
  uint32_t rank;
  uint32_t shape[kMaxWhereRank];
  int32_t cond_stride[kMaxWhereRank];
  int32_t x_stride[kMaxWhereRank];
  int32_t y_stride[kMaxWhereRank];
};
static_assert(sizeof(WhereParams) <= 128, "push constants are limited to 128 bytes");

absl::StatusOr<std::vector<int64_t>> WhereOutputShape(const TensorDesc& c, const TensorDesc& x,
                                                      const TensorDesc& y) {
  if (c.dtype != DataType::kBool) return absl::InvalidArgumentError("condition must be bool");
  if (x.dtype != y.dtype) {
    return absl::InvalidArgumentError(
        absl::StrCat("X (", x.ToString(), ") and Y (", y.ToString(), ") differ in type"));
  }
  ASSIGN_OR_RETURN(std::vector<int64_t> shape, BroadcastShapes(c.shape, x.shape));
  return BroadcastShapes(shape, y.shape);
}

class WhereOp : public Op {
 public:
  const OpTraits& traits() const override {
    static const OpTraits kTraits{.float16 = Float16Use::kMoves};
    return kTraits;
  }
  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* c, RequireInput(ctx, 0));
    ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 1));
    ASSIGN_OR_RETURN(const TensorDesc* y, RequireInput(ctx, 2));
    TensorDesc& out = ctx.outputs[0];
    out.dtype = x->dtype;
    ASSIGN_OR_RETURN(out.shape, WhereOutputShape(*c, *x, *y));
    if (ShouldFold(ctx, out.num_elements())) {
      HostTensor t = ZeroTensor(out.dtype, out.shape);
      const BroadcastIndex ci(c->shape, out.shape), xi(x->shape, out.shape),
          yi(y->shape, out.shape);
      for (int64_t i = 0; i < out.num_elements(); ++i) {
        if (ElementAsInt(*c->value, ci(i)) != 0) {
          CopyElement(*x->value, xi(i), &t, i);
        } else {
          CopyElement(*y->value, yi(i), &t, i);
        }
      }
      out.value = Share(std::move(t));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    const TensorDesc& c = *ctx.input(0);
    const TensorDesc& x = *ctx.input(1);
    const TensorDesc& y = *ctx.input(2);
    RETURN_IF_ERROR(CheckMovableType(x.dtype));
    ASSIGN_OR_RETURN(std::vector<int64_t> shape, WhereOutputShape(c, x, y));
    const int64_t count = NumElements(shape);
    std::vector<int64_t> cs = BroadcastStrides(c.shape, shape);
    std::vector<int64_t> xs = BroadcastStrides(x.shape, shape);
    std::vector<int64_t> ys = BroadcastStrides(y.shape, shape);
    SimplifyStrides(&shape, {&cs, &xs, &ys});
    if (shape.size() > kMaxWhereRank) {
      return absl::UnimplementedError(absl::StrCat("Where broadcasting over ", shape.size(),
                                                   " dims (after merging) exceeds ",
                                                   kMaxWhereRank));
    }
    if (count > INT32_MAX) return absl::UnimplementedError("Where: tensor too large");
    WhereParams p{};
    p.count = static_cast<uint32_t>(count);
    p.rank = static_cast<uint32_t>(shape.size());
    for (size_t k = 0; k < shape.size(); ++k) {
      p.shape[k] = static_cast<uint32_t>(shape[k]);
      p.cond_stride[k] = static_cast<int32_t>(cs[k]);
      p.x_stride[k] = static_cast<int32_t>(xs[k]);
      p.y_stride[k] = static_cast<int32_t>(ys[k]);
    }
    const uint32_t elem = static_cast<uint32_t>(DataTypeSize(x.dtype));
    ASSIGN_OR_RETURN(auto pipeline, ctx.GetPipeline("ops/where", 4, sizeof(WhereParams),
                                                    {kWhereLocalSize, 1, 1}, {elem}));
    if (count == 0) return MakeEmptyKernel();
    return MakeDispatchKernel(
        {std::move(pipeline),
         {BufferRef::Input(0), BufferRef::Input(1), BufferRef::Input(2),
          BufferRef::Output(0, gpu::Access::kReadWrite)},
         PushBlock(p),
         GroupsFor(static_cast<uint64_t>(count), kWhereLocalSize, ctx.device())});
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Where", 9, 27, WhereOp);

}  // namespace vkserve
