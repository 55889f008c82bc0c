// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// NegativeLogLikelihoodLoss (opsets 12-27): the negative log-likelihood of the targets'
// log-probabilities (runtime/ops/nn/nll_loss_op.h).
#include "runtime/op/op_registry.h"
#include "runtime/ops/nn/nll_loss_op.h"

namespace vkserve {
namespace {

class NegativeLogLikelihoodLossOp : public LossOp {
 public:
  NegativeLogLikelihoodLossOp() : LossOp(false) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "NegativeLogLikelihoodLoss", 12, 27, NegativeLogLikelihoodLossOp);

}  // namespace vkserve
