// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Floor (opsets 6-27), fp32: an activation (runtime/ops/unary_op.h); the
// formula is in shaders/common/activation.glsl and runtime/activation.cc.
#include "runtime/op_registry.h"
#include "runtime/ops/unary_op.h"
#include "runtime/ops/via_float32.h"

namespace vkserve {

VKSERVE_REGISTER_OP("", "Floor", 6, 27,
                    Float64ViaFloat32<ParameterlessActivationOp<Activation::kFloor>>);

}  // namespace vkserve
