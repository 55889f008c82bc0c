// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// CumProd (opsets 26-27): the running product along an axis
// (runtime/ops/math/cumulative_op.h). double, float16 and bfloat16 run in
// float32 (no worse than summing in the narrow type).
#include "runtime/kernels/via_float32.h"
#include "runtime/op/op_registry.h"
#include "runtime/ops/math/cumulative_op.h"

namespace vkserve {
namespace {

class CumProdOp : public CumulativeOp {
 public:
  CumProdOp() : CumulativeOp(true) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "CumProd", 26, 27, FloatsViaFloat32<CumProdOp>);

}  // namespace vkserve
