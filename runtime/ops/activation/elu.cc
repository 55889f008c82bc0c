// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Elu (opsets 6-27), fp32 and fp16: an activation with attribute alpha (default 1.0;
// runtime/ops/unary/unary_op.h); the formula is in shaders/common/activation.glsl
// and runtime/op/activation.cc.
#include "runtime/op/op_registry.h"
#include "runtime/ops/unary/unary_op.h"

namespace vkserve {

VKSERVE_REGISTER_OP("", "Elu", 6, 27, AlphaActivationOp<Activation::kElu>);

}  // namespace vkserve
