// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Mish (opsets 18-27), fp32: an activation (runtime/ops/unary_op.h); the
// formula is in shaders/common/activation.glsl and runtime/activation.cc.
#include "runtime/op_registry.h"
#include "runtime/ops/unary_op.h"
#include "runtime/ops/via_float32.h"

namespace vkserve {

VKSERVE_REGISTER_OP("", "Mish", 18, 27,
                    Float64ViaFloat32<ParameterlessActivationOp<Activation::kMish>>);

}  // namespace vkserve
