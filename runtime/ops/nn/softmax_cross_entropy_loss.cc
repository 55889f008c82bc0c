// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// SoftmaxCrossEntropyLoss (opsets 12-27): the cross entropy of softmax(scores) and the targets
// (runtime/ops/nn/nll_loss_op.h).
#include "runtime/op/op_registry.h"
#include "runtime/ops/nn/nll_loss_op.h"

namespace vkserve {
namespace {

class SoftmaxCrossEntropyLossOp : public LossOp {
 public:
  SoftmaxCrossEntropyLossOp() : LossOp(true) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "SoftmaxCrossEntropyLoss", 12, 27, SoftmaxCrossEntropyLossOp);

}  // namespace vkserve
