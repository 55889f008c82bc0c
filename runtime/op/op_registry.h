// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// OpRegistry: finds the Op for (domain, op_type, opset). Ops add themselves
// with one line at the end of their file:
//
//   VKSERVE_REGISTER_OP("", "Relu", 6, 21, ReluOp);
//
// meaning: domain "" (ai.onnx), op type Relu, for models importing opsets 6
// through 21 of that domain (runtime/op/registry.h). Registration happens
// during static initialization; afterwards the registry is read-only and
// thread-safe.
#ifndef VKSERVE_RUNTIME_OP_OP_REGISTRY_H_
#define VKSERVE_RUNTIME_OP_OP_REGISTRY_H_

#include <memory>

#include "absl/status/statusor.h"
#include "base/status_macros.h"
#include "runtime/op/op.h"
#include "runtime/op/registry.h"

namespace vkserve {

using OpRegistration = Registration<Op>;

class OpRegistry : public Registry<Op> {
 public:
  // The process-wide registry that VKSERVE_REGISTER_OP fills.
  static OpRegistry& Global();

  // The op for `node` (by its domain, op_type and opset). UNIMPLEMENTED with a
  // message naming node, op, domain and opset — and the supported opset range
  // when only the version is off — when there is none.
  absl::StatusOr<const Op*> Find(const Node& node) const;
};

#define VKSERVE_REGISTER_OP(domain, op_type, min_opset, max_opset, OpClass)                  \
  static const ::vkserve::internal::Registrar<::vkserve::OpRegistry, ::vkserve::Op>          \
  VKSERVE_CONCAT_(vkserve_op_registrar_, __COUNTER__)(domain, op_type, min_opset, max_opset, \
                                                      std::make_unique<OpClass>())

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_OP_OP_REGISTRY_H_
