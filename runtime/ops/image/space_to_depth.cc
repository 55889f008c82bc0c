// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// SpaceToDepth (opsets 1-27): spatial blocks moved into channels
// (runtime/ops/image/block_rearrange.h).
#include "runtime/op/op_registry.h"
#include "runtime/ops/image/block_rearrange.h"

namespace vkserve {
namespace {

class SpaceToDepthOp : public BlockRearrangeOp {
 public:
  SpaceToDepthOp() : BlockRearrangeOp(false) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "SpaceToDepth", 1, 27, SpaceToDepthOp);

}  // namespace vkserve
