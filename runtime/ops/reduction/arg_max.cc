// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ArgMax (opsets 1-27): the index of each row's maximum along `axis`
// (runtime/ops/reduction/arg_reduce_op.h).
#include "runtime/op/op_registry.h"
#include "runtime/ops/reduction/arg_reduce_op.h"

namespace vkserve {
namespace {

class ArgMaxOp : public ArgReduceOp {
 public:
  ArgMaxOp() : ArgReduceOp(true) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "ArgMax", 1, 27, ArgMaxOp);

}  // namespace vkserve
