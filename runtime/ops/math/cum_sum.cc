// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// CumSum (opsets 11-27): the running sum along an axis
// (runtime/ops/math/cumulative_op.h). double, float16 and bfloat16 run in
// float32 (no worse than summing in the narrow type).
#include "runtime/kernels/via_float32.h"
#include "runtime/op/op_registry.h"
#include "runtime/ops/math/cumulative_op.h"

namespace vkserve {
namespace {

class CumSumOp : public CumulativeOp {
 public:
  CumSumOp() : CumulativeOp(false) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "CumSum", 11, 27, FloatsViaFloat32<CumSumOp>);

}  // namespace vkserve
