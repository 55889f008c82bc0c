// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Dropout (opsets 1-27) at inference: output 0 is input 0's bytes (an alias,
// no dispatch). The ratio input is ignored; training mode (is_test=0 before
// opset 7, a true training_mode input from 12) is UNIMPLEMENTED unless the
// ratio is a known 0, which drops nothing and is inference. The optional
// mask output, all true at inference from opset 12, is produced as a
// host-known constant for inputs of at most kMaxFoldElements elements;
// before opset 12 its value is not well defined (onnxruntime returns all
// false), so it is UNIMPLEMENTED there.
#include "absl/strings/str_cat.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

class DropoutOp : public Op {
 public:
  Execution execution() const override { return Execution::kAlias; }

  // ratio and training_mode (opset 12+) are read on the host, if at all.
  bool IsHostInput(const Node&, size_t input_index) const override { return input_index > 0; }

  absl::Status Validate(const Node& node) const override {
    RETURN_IF_ERROR(CheckAttributeType(node, "is_test", Attribute::Type::kInt));
    if (node.opset < 7 && node.GetInt("is_test", 0) == 0) {
      return absl::UnimplementedError("Dropout in training mode (is_test=0)");
    }
    if (node.opset < 12 && node.outputs.size() > 1 && !node.outputs[1].empty()) {
      return absl::UnimplementedError(
          "Dropout's mask output before opset 12 (its inference value is not well defined)");
    }
    return absl::OkStatus();
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
    if (const TensorDesc* training = ctx.input(2); training != nullptr) {
      if (training->value == nullptr) {
        return absl::UnimplementedError(
            "Dropout's training_mode must be known at load time (a constant)");
      }
      if (training->value->num_elements() != 1) {
        return absl::InvalidArgumentError("Dropout's training_mode must be a scalar");
      }
      // Training with a ratio of 0 drops nothing: the same as inference.
      const TensorDesc* ratio = ctx.input(1);
      const bool drops_nothing = ratio != nullptr && ratio->value != nullptr &&
                                 ratio->value->num_elements() == 1 &&
                                 ratio->value->GetDouble(0) == 0.0;
      if (ElementAsInt(*training->value, 0) != 0 && !drops_nothing) {
        return absl::UnimplementedError("Dropout in training mode with a nonzero ratio (random)");
      }
    }
    ctx.outputs[0] = *x;  // dtype, shape, and the value when known
    if (ctx.outputs.size() > 1 && !ctx.node.outputs[1].empty()) {
      if (x->num_elements() > kMaxFoldElements) {
        return absl::UnimplementedError(
            absl::StrCat("Dropout's mask output for more than ", kMaxFoldElements, " elements"));
      }
      HostTensor mask;
      mask.dtype = DataType::kBool;
      mask.shape = x->shape;
      mask.data.assign(static_cast<size_t>(x->num_elements()), 1);
      ctx.outputs[1].dtype = DataType::kBool;
      ctx.outputs[1].shape = x->shape;
      ctx.outputs[1].value = Share(std::move(mask));
    }
    return absl::OkStatus();
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Dropout", 1, 27, DropoutOp);

}  // namespace vkserve
