// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/daemon/service_monitor.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "spdlog/spdlog.h"

namespace vkserve {

ServiceMonitor::ServiceMonitor(Server* server, SystemdNotifier* notifier,
                               absl::Duration status_period)
    : server_(server),
      notifier_(notifier),
      status_period_(status_period),
      watchdog_(notifier->watchdog_interval().value_or(absl::InfiniteDuration())) {}

ServiceMonitor::~ServiceMonitor() { Stop(); }

void ServiceMonitor::Start() {
  if (!notifier_->active() || thread_.joinable()) return;
  if (auto interval = notifier_->watchdog_interval()) {
    spdlog::info("systemd watchdog: {} (pings every {} while the GPU queues make progress)",
                 absl::FormatDuration(*interval), absl::FormatDuration(*interval / 2));
  }
  thread_ = std::thread([this] { Run(); });
}

void ServiceMonitor::Stop() {
  {
    MutexLock lock(&mutex_);
    stop_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

void ServiceMonitor::Pause(bool paused) {
  MutexLock lock(&mutex_);
  paused_ = paused;
}

uint64_t ServiceMonitor::RequestsSoFar() const {
  uint64_t n = 0;
  for (const auto& m : server_->models().List()) {
    const ModelStatsSnapshot s = m->stats();
    n += s.success_count + s.fail_count;
  }
  return n;
}

std::string ServiceMonitor::StatusLine() {
  const size_t ready = server_->models().List().size();
  const uint64_t requests = RequestsSoFar();
  const absl::Time now = absl::Now();
  MutexLock lock(&mutex_);
  double rate = 0;
  // A replaced model's counters start again from 0: never a negative rate.
  if (last_sample_ != absl::InfinitePast() && requests >= last_requests_ && now > last_sample_) {
    rate =
        static_cast<double>(requests - last_requests_) / absl::ToDoubleSeconds(now - last_sample_);
  }
  last_requests_ = requests;
  last_sample_ = now;
  return absl::StrFormat("serving: %d model version(s) ready, %.1f requests/s", ready, rate);
}

void ServiceMonitor::Run() {
  const auto interval = notifier_->watchdog_interval();
  const absl::Duration tick = interval ? std::min(status_period_, *interval / 2) : status_period_;
  absl::Time next_status = absl::Now() + status_period_;
  bool was_healthy = true;
  (void)StatusLine();  // the rate's starting point
  for (;;) {
    {
      MutexLock lock(&mutex_);
      if (mutex_.AwaitWithTimeout(Condition(&stop_), tick)) return;
    }
    const absl::Time now = absl::Now();
    if (interval) {
      const bool healthy = watchdog_.Healthy(server_->devices().QueueProgress(), now);
      if (healthy) notifier_->Watchdog();
      if (!healthy && was_healthy) {
        spdlog::error("watchdog: no progress ({}); WATCHDOG=1 pings stop", watchdog_.reason());
      } else if (healthy && !was_healthy) {
        spdlog::warn("watchdog: the GPU queues make progress again; pings resume");
      }
      was_healthy = healthy;
    }
    if (now >= next_status) {
      next_status = now + status_period_;
      bool paused;
      {
        MutexLock lock(&mutex_);
        paused = paused_;
      }
      if (!paused) notifier_->Status(StatusLine());
    }
  }
}

}  // namespace vkserve
