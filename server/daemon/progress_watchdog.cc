// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/daemon/progress_watchdog.h"

#include "absl/strings/str_cat.h"

namespace vkserve {

bool ProgressWatchdog::Healthy(const std::vector<gpu::Queue::Progress>& queues, absl::Time now) {
  // A device added or replaced: start its history afresh.
  if (seen_.size() != queues.size()) seen_.assign(queues.size(), Seen{0, now, true});
  reason_.clear();
  bool healthy = true;
  for (size_t i = 0; i < queues.size(); ++i) {
    Seen& seen = seen_[i];
    // Idle, newly busy (the stall counts from the first sample that saw the
    // work), or finishing work: healthy.
    if (queues[i].pending == 0 || seen.idle || queues[i].finished != seen.finished) {
      seen.finished = queues[i].finished;
      seen.since = now;
      seen.idle = queues[i].pending == 0;
      continue;
    }
    const absl::Duration stalled = now - seen.since;
    if (stalled < stall_limit_) continue;
    healthy = false;
    absl::StrAppend(&reason_, reason_.empty() ? "" : "; ", "GPU queue ", i, ": ", queues[i].pending,
                    " submission(s) pending, none finished for ", absl::FormatDuration(stalled));
  }
  return healthy;
}

}  // namespace vkserve
