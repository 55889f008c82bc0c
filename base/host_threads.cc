// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "base/host_threads.h"

#include <sched.h>

#include <algorithm>
#include <thread>

namespace vkserve {

int HostCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int allowed = CPU_COUNT(&set);
    if (allowed > 0) return allowed;
  }
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

}  // namespace vkserve
