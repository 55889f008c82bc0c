// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ScatterElements (opsets 11-27): elements of data replaced (or reduced) along axis at int64
// indices (runtime/ops/indexing/scatter_op.h).
#include "runtime/op/op_registry.h"
#include "runtime/ops/indexing/scatter_op.h"

namespace vkserve {
namespace {

class ScatterElementsOp : public ScatterOp {
 public:
  ScatterElementsOp() : ScatterOp(false) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "ScatterElements", 11, 27, ScatterElementsOp);

}  // namespace vkserve
