// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// UnsharedCopy(status): a copy of an error that shares nothing with the
// original. Copies of a non-OK absl::Status share one reference-counted
// message, and Debian's absl counts and frees it inside its uninstrumented
// library, so ThreadSanitizer cannot see the ordering when copies handed to
// different threads are dropped there. Each request answered with the same
// error (a failed batch) gets its own copy. Thread-safe; payloads are not
// carried (vkserve attaches none).
#ifndef VKSERVE_BASE_UNSHARED_STATUS_H_
#define VKSERVE_BASE_UNSHARED_STATUS_H_

#include "absl/status/status.h"

namespace vkserve {

inline absl::Status UnsharedCopy(const absl::Status& status) {
  return status.ok() ? absl::OkStatus() : absl::Status(status.code(), status.message());
}

}  // namespace vkserve

#endif  // VKSERVE_BASE_UNSHARED_STATUS_H_
