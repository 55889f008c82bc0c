// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Transpose (opsets 1-27): output dim k is input dim perm[k] (perm defaults
// to reversing the dims). Runs as a strided copy (strided_copy.h), which
// merges dims that stay adjacent, so [B,S,H,D] -> [B,H,S,D] moves whole
// D-rows; folded when the input is host-known and small.
#include "absl/strings/str_cat.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/kernels/strided_copy.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

absl::StatusOr<std::vector<int64_t>> Permutation(const Node& node, size_t rank) {
  std::vector<int64_t> perm = node.GetInts("perm");
  if (node.FindAttribute("perm") == nullptr) {
    for (size_t i = 0; i < rank; ++i) perm.push_back(static_cast<int64_t>(rank - 1 - i));
    return perm;
  }
  if (perm.size() != rank) {
    return absl::InvalidArgumentError(
        absl::StrCat("perm has ", perm.size(), " entries for an input of rank ", rank));
  }
  std::vector<bool> seen(rank, false);
  for (int64_t& p : perm) {
    if (p < 0) p += static_cast<int64_t>(rank);  // tolerated, as onnxruntime does
    if (p < 0 || p >= static_cast<int64_t>(rank) || seen[p]) {
      return absl::InvalidArgumentError("perm is not a permutation of the input's dims");
    }
    seen[p] = true;
  }
  return perm;
}

class TransposeOp : public Op {
 public:
  const OpTraits& traits() const override {
    static const OpTraits kTraits{.float16 = Float16Use::kMoves};
    return kTraits;
  }
  absl::Status Validate(const Node& node) const override {
    return CheckAttributeType(node, "perm", Attribute::Type::kInts);
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* in, RequireInput(ctx, 0));
    ASSIGN_OR_RETURN(std::vector<int64_t> perm, Permutation(ctx.node, in->shape.size()));
    const StridedCopy copy = TransposeCopy(in->shape, perm);
    TensorDesc& out = ctx.outputs[0];
    out.dtype = in->dtype;
    out.shape = copy.shape;
    if (ShouldFold(ctx, out.num_elements())) {
      HostTensor t = ZeroTensor(out.dtype, out.shape);
      copy.RunOnHost(*in->value, &t);
      out.value = Share(std::move(t));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    const TensorDesc& in = *ctx.input(0);
    ASSIGN_OR_RETURN(std::vector<int64_t> perm, Permutation(ctx.node(), in.shape.size()));
    return CreateStridedCopyKernel(ctx, in.dtype, {TransposeCopy(in.shape, perm)});
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Transpose", 1, 27, TransposeOp);

}  // namespace vkserve
