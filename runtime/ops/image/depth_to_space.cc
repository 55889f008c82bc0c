// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// DepthToSpace (opsets 1-27): channel blocks moved into spatial blocks (mode DCR or CRD)
// (runtime/ops/image/block_rearrange.h).
#include "runtime/op/op_registry.h"
#include "runtime/ops/image/block_rearrange.h"

namespace vkserve {
namespace {

class DepthToSpaceOp : public BlockRearrangeOp {
 public:
  DepthToSpaceOp() : BlockRearrangeOp(true) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "DepthToSpace", 1, 27, DepthToSpaceOp);

}  // namespace vkserve
