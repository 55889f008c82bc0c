// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// BitCast (opsets 26-27): the input's bytes reinterpreted as the type `to`.
// Between types of one size this is an alias (no copy, no dispatch). Types of
// different sizes, which reshape the last dim, are not supported yet.
#include "absl/strings/str_cat.h"
#include "runtime/kernels/cast_op.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

class BitCastOp : public Op {
 public:
  Execution execution() const override { return Execution::kAlias; }

  absl::Status Validate(const Node& node) const override {
    return CastTypeAttribute(node).status();
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
    ASSIGN_OR_RETURN(const DataType to, CastTypeAttribute(ctx.node));
    if (DataTypeSize(to) != DataTypeSize(x->dtype)) {
      return absl::UnimplementedError(absl::StrCat("BitCast between types of different sizes (",
                                                   std::string(DataTypeName(x->dtype)), " to ",
                                                   std::string(DataTypeName(to)), ")"));
    }
    SetAliasOutput(ctx, x->shape);
    TensorDesc& out = ctx.outputs[0];
    out.dtype = to;
    if (out.value != nullptr) {
      HostTensor t = *out.value;
      t.dtype = to;
      out.value = Share(std::move(t));
    }
    return absl::OkStatus();
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "BitCast", 26, 27, BitCastOp);

}  // namespace vkserve
