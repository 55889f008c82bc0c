// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// HostCores: how many CPUs this process may run on. That is its affinity
// mask (which taskset, cgroup cpusets and container runtimes narrow), not
// the machine's count that std::thread::hardware_concurrency reports: a
// daemon given 4 of 64 cores should size its worker pools for 4. Every
// pool of host threads sizes itself from it. Thread-safe.
#ifndef VKSERVE_BASE_HOST_THREADS_H_
#define VKSERVE_BASE_HOST_THREADS_H_

namespace vkserve {

// At least 1.
int HostCores();

}  // namespace vkserve

#endif  // VKSERVE_BASE_HOST_THREADS_H_
