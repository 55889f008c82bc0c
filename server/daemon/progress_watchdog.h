// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ProgressWatchdog: decides whether the server is making progress, for the
// systemd watchdog (service_monitor.h pings WATCHDOG=1 only while it says
// so). A GPU queue with work pending whose finished count has not moved
// for `stall_limit` is wedged — a hung driver, a GPU that stopped answering;
// an idle queue, or one that keeps finishing work, is healthy. Long
// inferences are fine as long as something on the queue finishes within
// the limit.
//
// Pure logic on samples and times given by the caller. Thread-compatible.
#ifndef VKSERVE_SERVER_DAEMON_PROGRESS_WATCHDOG_H_
#define VKSERVE_SERVER_DAEMON_PROGRESS_WATCHDOG_H_

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "gpu/queue.h"

namespace vkserve {

class ProgressWatchdog {
 public:
  explicit ProgressWatchdog(absl::Duration stall_limit) : stall_limit_(stall_limit) {}

  // One sample per device queue, in a stable order (DeviceSet::QueueProgress).
  // True when no queue has had work pending without finishing any for
  // longer than the limit; otherwise reason() names the queue and how long.
  bool Healthy(const std::vector<gpu::Queue::Progress>& queues, absl::Time now);
  const std::string& reason() const { return reason_; }

 private:
  struct Seen {
    uint64_t finished = 0;
    absl::Time since;  // when `finished` last moved or work was first seen
    bool idle = true;  // at the previous sample
  };
  const absl::Duration stall_limit_;
  std::vector<Seen> seen_;
  std::string reason_;
};

}  // namespace vkserve

#endif  // VKSERVE_SERVER_DAEMON_PROGRESS_WATCHDOG_H_
