// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Identity (opsets 1-27): output 0 is input 0's bytes — an alias, no
// dispatch; folded when the input is known.
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

class IdentityOp : public Op {
 public:
  Execution execution() const override { return Execution::kAlias; }
  // An alias, so it moves fp16 elements; and it passes its input through.
  const OpTraits& traits() const override {
    static const OpTraits kTraits{
        .float16 = Float16Use::kMoves,
        .passes_through = [](const Node& /*node*/) { return true; },
    };
    return kTraits;
  }
  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
    ctx.outputs[0] = *x;  // dtype, shape, and the value when known
    return absl::OkStatus();
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Identity", 1, 27, IdentityOp);

}  // namespace vkserve
