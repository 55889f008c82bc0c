// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// DequantizeLinear (opsets 10-27): integers to fp32: (x - zero_point) CMakeLists.txt README.md
// benchmarks build cmake config deploy docs gpu proto runtime scripts server shaders tests scale
// (runtime/ops/quantization/quantize_op.h).
#include "runtime/op/op_registry.h"
#include "runtime/ops/quantization/quantize_op.h"

namespace vkserve {
namespace {

class DequantizeLinearOp : public QuantizeOp {
 public:
  DequantizeLinearOp() : QuantizeOp(true) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "DequantizeLinear", 10, 27, DequantizeLinearOp);

}  // namespace vkserve
