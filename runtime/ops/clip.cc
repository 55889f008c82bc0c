// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Clip (opsets 6-25), fp32: an activation (runtime/ops/unary_op.h).
#include "runtime/op_registry.h"
#include "runtime/ops/unary_op.h"

namespace vkserve {
namespace {

class ClipOp : public ActivationOp {};

}  // namespace

VKSERVE_REGISTER_OP("", "Clip", 6, 25, ClipOp);

}  // namespace vkserve
