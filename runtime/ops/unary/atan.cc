// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Atan (opsets 7-27), fp32: an activation (runtime/ops/unary/unary_op.h); the
// formula is in shaders/common/activation.glsl and runtime/op/activation.cc.
#include "runtime/kernels/via_float32.h"
#include "runtime/op/op_registry.h"
#include "runtime/ops/unary/unary_op.h"

namespace vkserve {

VKSERVE_REGISTER_OP("", "Atan", 7, 27,
                    Float64ViaFloat32<ParameterlessActivationOp<Activation::kAtan>>);

}  // namespace vkserve
