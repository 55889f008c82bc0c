// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// LpPool (opsets 2-27), fp32 and fp16, 1-D, 2-D and 3-D windows: the p-norm of each window
// (runtime/ops/nn/pool_util.h).
#include "runtime/op/op_registry.h"
#include "runtime/ops/nn/pool_util.h"

namespace vkserve {
namespace {

class LpPoolOp : public WindowPoolOp {
 public:
  LpPoolOp() : WindowPoolOp(PoolKind::kLp) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "LpPool", 2, 27, LpPoolOp);

}  // namespace vkserve
