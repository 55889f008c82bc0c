// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ArgMin (opsets 1-27): the index of each row's minimum along `axis`
// (runtime/ops/reduction/arg_reduce_op.h).
#include "runtime/op/op_registry.h"
#include "runtime/ops/reduction/arg_reduce_op.h"

namespace vkserve {
namespace {

class ArgMinOp : public ArgReduceOp {
 public:
  ArgMinOp() : ArgReduceOp(false) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "ArgMin", 1, 27, ArgMinOp);

}  // namespace vkserve
