// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ScatterND (opsets 11-27): slices of data replaced (or reduced) at int64 index tuples
// (runtime/ops/indexing/scatter_op.h).
#include "runtime/op/op_registry.h"
#include "runtime/ops/indexing/scatter_op.h"

namespace vkserve {
namespace {

class ScatterNDOp : public ScatterOp {
 public:
  ScatterNDOp() : ScatterOp(true) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "ScatterND", 11, 27, ScatterNDOp);

}  // namespace vkserve
