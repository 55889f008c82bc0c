// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// RETURN_IF_ERROR / ASSIGN_OR_RETURN for absl::Status and absl::StatusOr.
// Debian 12's Abseil (20220623) predates absl/status/status_macros.h, so we
// carry these two small macros. Status codes are gRPC's, so server/ maps them
// one to one.
#ifndef VKSERVE_BASE_STATUS_MACROS_H_
#define VKSERVE_BASE_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define VKSERVE_CONCAT_INNER_(a, b) a##b
#define VKSERVE_CONCAT_(a, b) VKSERVE_CONCAT_INNER_(a, b)

// Evaluates `expr` (an absl::Status); returns it from the enclosing function
// when it is not OK.
#define RETURN_IF_ERROR(expr)                          \
  do {                                                 \
    ::absl::Status vkserve_status_ = (expr);           \
    if (!vkserve_status_.ok()) return vkserve_status_; \
  } while (0)

// ASSIGN_OR_RETURN(lhs, rexpr): evaluates `rexpr` (an absl::StatusOr<T>),
// returns its status when not OK, else moves the value into `lhs`, which may
// be a declaration (`auto x`) or an existing lvalue.
#define ASSIGN_OR_RETURN(lhs, rexpr) \
  VKSERVE_ASSIGN_OR_RETURN_IMPL_(VKSERVE_CONCAT_(vkserve_statusor_, __LINE__), lhs, rexpr)

#define VKSERVE_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                                   \
  if (!statusor.ok()) return std::move(statusor).status();   \
  lhs = std::move(statusor).value()

#endif  // VKSERVE_BASE_STATUS_MACROS_H_
