// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Scatter (opsets 9-10): the deprecated form of ScatterElements
// (runtime/ops/indexing/scatter_op.h).
#include "runtime/op/op_registry.h"
#include "runtime/ops/indexing/scatter_op.h"

namespace vkserve {
namespace {

class DeprecatedScatterOp : public ScatterOp {
 public:
  DeprecatedScatterOp() : ScatterOp(false) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "Scatter", 9, 10, DeprecatedScatterOp);

}  // namespace vkserve
