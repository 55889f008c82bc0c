// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// QuantizeLinear (opsets 10-27): fp32 to integers: saturate(round_half_even(x / scale) +
// zero_point) (runtime/ops/quantization/quantize_op.h).
#include "runtime/op/op_registry.h"
#include "runtime/ops/quantization/quantize_op.h"

namespace vkserve {
namespace {

class QuantizeLinearOp : public QuantizeOp {
 public:
  QuantizeLinearOp() : QuantizeOp(false) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "QuantizeLinear", 10, 27, QuantizeLinearOp);

}  // namespace vkserve
