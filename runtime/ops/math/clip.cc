// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Clip (opsets 6-27), fp32: an activation (runtime/ops/unary/unary_op.h). Its
// bounds are attributes below opset 11 and optional scalar inputs from it on,
// which must be constants (read on the host; a missing bound is unbounded).
#include <limits>

#include "runtime/kernels/via_float32.h"
#include "runtime/op/op_registry.h"
#include "runtime/ops/unary/unary_op.h"

namespace vkserve {
namespace {

class ClipOp : public ActivationOp {
 public:
  ClipOp() : ActivationOp(Activation::kClip) {}

  bool IsHostInput(const Node& /*node*/, size_t input_index) const override {
    return input_index > 0;
  }

 protected:
  absl::StatusOr<ActivationParams> ParamsOf(const Node& node,
                                            const ConstantInput& constant) const override {
    ActivationParams p;
    p.kind = Activation::kClip;
    p.alpha = -std::numeric_limits<float>::infinity();
    p.beta = std::numeric_limits<float>::infinity();
    if (node.opset < 11) {
      p.alpha = node.GetFloat("min", p.alpha);
      p.beta = node.GetFloat("max", p.beta);
      return p;
    }
    const HostTensor* min = constant(1);
    const HostTensor* max = constant(2);
    for (const HostTensor* bound : {min, max}) {
      if (bound != nullptr && bound->num_elements() != 1) {
        return absl::InvalidArgumentError("Clip min/max must be scalars");
      }
    }
    if (min != nullptr) p.alpha = static_cast<float>(min->GetDouble(0));
    if (max != nullptr) p.beta = static_cast<float>(max->GetDouble(0));
    return p;
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Clip", 6, 27, ExactViaFloat32<Float64ViaFloat32<ClipOp>>);

}  // namespace vkserve
