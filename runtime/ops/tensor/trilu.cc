// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Trilu (opsets 14-27): the upper (upper = 1, default) or lower triangle of
// each trailing matrix, from diagonal k (input 1, host-known, default 0);
// elements of 4 or 8 bytes on the GPU (shaders/ops/trilu.comp), any numeric
// type folded on the host when small and known.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr uint32_t kTriluLocal = 256;

absl::StatusOr<int64_t> DiagonalOf(const TensorDesc* k) {
  if (k == nullptr) return 0;
  if (k->value == nullptr) {
    return absl::UnimplementedError(
        "Trilu's k must be known at load time (a constant); vkserve never reads tensor data "
        "back in the middle of a run");
  }
  if (k->value->num_elements() != 1) return absl::InvalidArgumentError("k must be a scalar");
  return ElementAsInt(*k->value, 0);
}

bool Keep(bool upper, int64_t r, int64_t c, int64_t k) { return upper ? c - r >= k : c - r <= k; }

class TriluOp : public Op {
 public:
  bool IsHostInput(const Node& /*node*/, size_t input_index) const override {
    return input_index == 1;
  }

  absl::Status Validate(const Node& node) const override {
    return CheckAttributeType(node, "upper", Attribute::Type::kInt);
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
    if (x->shape.size() < 2) return absl::InvalidArgumentError("Trilu needs rank 2 or more");
    ASSIGN_OR_RETURN(const int64_t k, DiagonalOf(ctx.input(1)));
    ctx.outputs[0].dtype = x->dtype;
    ctx.outputs[0].shape = x->shape;
    const int64_t rows = x->shape[x->shape.size() - 2], cols = x->shape.back();
    if (x->value != nullptr && IsFoldableType(x->dtype) &&
        x->num_elements() <= ctx.max_fold_elements) {
      HostTensor y = *x->value;
      const bool upper = ctx.node.GetInt("upper", 1) != 0;
      for (int64_t i = 0; i < y.num_elements(); ++i) {
        if (!Keep(upper, (i / cols) % rows, i % cols, k)) SetElementFromInt(&y, i, 0);
      }
      ctx.outputs[0].value = Share(std::move(y));
      return absl::OkStatus();
    }
    const size_t size = DataTypeSize(x->dtype);
    if (size != 4 && size != 8) {
      return absl::UnimplementedError(absl::StrCat("Trilu of ", std::string(DataTypeName(x->dtype)),
                                                   " on the GPU (4- and 8-byte types)"));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    const TensorDesc& x = *ctx.input(0);
    ASSIGN_OR_RETURN(int64_t k, DiagonalOf(ctx.input(1)));
    const uint64_t n = static_cast<uint64_t>(x.num_elements());
    if (n >= (uint64_t{1} << 31)) return absl::UnimplementedError("Trilu: tensor too large");
    if (n == 0) return MakeEmptyKernel();
    const int64_t rows = x.shape[x.shape.size() - 2], cols = x.shape.back();
    // Beyond the matrix either way, k keeps or zeroes everything alike.
    k = std::max<int64_t>(std::min<int64_t>(k, cols + 1), -rows - 1);
    DispatchStep step;
    step.push.U32(static_cast<uint32_t>(n))
        .U32(static_cast<uint32_t>(rows))
        .U32(static_cast<uint32_t>(cols))
        .I32(static_cast<int32_t>(k));
    ASSIGN_OR_RETURN(step.pipeline,
                     ctx.GetPipeline("ops/trilu", 2, step.push.size(), {kTriluLocal, 1, 1},
                                     {static_cast<uint32_t>(DataTypeSize(x.dtype) / 4),
                                      ctx.node().GetInt("upper", 1) != 0 ? 1u : 0u}));
    step.bindings = {BufferRef::Input(0), BufferRef::Output(0)};
    step.groups = GroupsFor(n, kTriluLocal, ctx.device());
    return MakeDispatchKernel(std::move(step));
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Trilu", 14, 27, TriluOp);

}  // namespace vkserve
