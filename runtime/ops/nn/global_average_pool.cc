// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// GlobalAveragePool (opsets 1-27), fp32 and fp16, any number of spatial dimensions:
// one workgroup reduction per (batch, channel).
#include "runtime/op/op_registry.h"
#include "runtime/ops/nn/pool_util.h"

namespace vkserve {
namespace {

class GlobalAveragePoolOp : public GlobalPoolOp {
 public:
  GlobalAveragePoolOp() : GlobalPoolOp(PoolKind::kAverage) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "GlobalAveragePool", 1, 27, GlobalAveragePoolOp);

}  // namespace vkserve
