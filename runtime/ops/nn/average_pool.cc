// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// AveragePool (opsets 1-27), fp32 and fp16, 1-D, 2-D and 3-D: kernel_shape, strides, pads,
// auto_pad, count_include_pad, ceil_mode and (opset 19) dilations.
#include "runtime/op/op_registry.h"
#include "runtime/ops/nn/pool_util.h"

namespace vkserve {
namespace {

class AveragePoolOp : public WindowPoolOp {
 public:
  AveragePoolOp() : WindowPoolOp(PoolKind::kAverage) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "AveragePool", 1, 27, AveragePoolOp);

}  // namespace vkserve
