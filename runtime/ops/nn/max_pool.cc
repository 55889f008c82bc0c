// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// MaxPool (opsets 1-27), fp32 and fp16 (other types whose values float holds
// exactly through fp32), 1-D, 2-D and 3-D: kernel_shape, strides, pads,
// auto_pad, dilations and ceil_mode, and the Indices output (int64 flat
// indices into X, storage_order 0 or, for 2-D windows, 1).
#include "runtime/kernels/via_float32.h"
#include "runtime/op/op_registry.h"
#include "runtime/ops/nn/pool_util.h"

namespace vkserve {
namespace {

class MaxPoolOp : public WindowPoolOp {
 public:
  MaxPoolOp() : WindowPoolOp(PoolKind::kMax) {}
};

// The narrow types float holds exactly go through fp32, but float16, which
// the fp16 shader variant pools as it is.
using NarrowMaxPoolOp = ViaFloat32<MaxPoolOp, DataType::kBool, DataType::kInt8, DataType::kUint8,
                                   DataType::kInt16, DataType::kUint16, DataType::kBFloat16>;

}  // namespace

VKSERVE_REGISTER_OP("", "MaxPool", 1, 27, NarrowMaxPoolOp);

}  // namespace vkserve
