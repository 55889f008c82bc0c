// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// GlobalMaxPool (opsets 1-27), fp32 and fp16, any number of spatial dimensions: one
// workgroup reduction per (batch, channel).
#include "runtime/op/op_registry.h"
#include "runtime/ops/nn/pool_util.h"

namespace vkserve {
namespace {

class GlobalMaxPoolOp : public GlobalPoolOp {
 public:
  GlobalMaxPoolOp() : GlobalPoolOp(PoolKind::kMax) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "GlobalMaxPool", 1, 27, GlobalMaxPoolOp);

}  // namespace vkserve
