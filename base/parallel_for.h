// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ParallelFor: runs fn(0), ..., fn(count - 1), each exactly once, on a
// process-wide pool of HostCores() - 1 worker threads and the calling
// thread, and returns when all have returned. The pool is shared by every
// caller, so nested or concurrent ParallelFor calls (plans built side by
// side, each compiling its pipelines in parallel) add no threads beyond it.
// The caller takes indices too, which is why a call never waits for a pool
// busy elsewhere: at worst it runs every index itself.
//
// Meant for coarse, independent work (a pipeline compile is milliseconds to
// seconds); fn must not throw. Thread-safe.
#ifndef VKSERVE_BASE_PARALLEL_FOR_H_
#define VKSERVE_BASE_PARALLEL_FOR_H_

#include "absl/functional/function_ref.h"

namespace vkserve {

void ParallelFor(int count, absl::FunctionRef<void(int)> fn);

}  // namespace vkserve

#endif  // VKSERVE_BASE_PARALLEL_FOR_H_
