// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ServiceMonitor: the thread that keeps systemd informed while the server
// serves. Every `status_period` it sends STATUS= "serving: N model
// version(s) ready, R requests/s" (R from the models' statistics); with
// WatchdogSec= set (SystemdNotifier::watchdog_interval) it samples the GPU
// queues every half interval and sends WATCHDOG=1 only while the
// ProgressWatchdog finds them making progress (stall limit: the interval) —
// a wedged GPU queue stops the pings and systemd restarts the service.
// Without NOTIFY_SOCKET it starts no thread.
//
// Thread-safe. The server and notifier must outlive it.
#ifndef VKSERVE_SERVER_DAEMON_SERVICE_MONITOR_H_
#define VKSERVE_SERVER_DAEMON_SERVICE_MONITOR_H_

#include <cstdint>
#include <string>
#include <thread>

#include "absl/time/time.h"
#include "base/mutex.h"
#include "server/daemon/progress_watchdog.h"
#include "server/daemon/server.h"
#include "server/daemon/systemd_notifier.h"

namespace vkserve {

class ServiceMonitor {
 public:
  ServiceMonitor(Server* server, SystemdNotifier* notifier,
                 absl::Duration status_period = absl::Seconds(5));
  ~ServiceMonitor();  // Stop()

  // Starts the thread (once; nothing when the notifier is inactive).
  void Start();
  // Stops and joins it. Idempotent.
  void Stop();
  // While paused (a reload in progress) no STATUS= is sent; the watchdog
  // keeps running.
  void Pause(bool paused);

  // "serving: 2 model version(s) ready, 12.5 requests/s" (rate since the
  // previous call; the first call reports 0).
  std::string StatusLine();

 private:
  void Run();
  // Requests answered so far by every served version.
  uint64_t RequestsSoFar() const;

  Server* const server_;
  SystemdNotifier* const notifier_;
  const absl::Duration status_period_;
  ProgressWatchdog watchdog_;  // on the thread only
  Mutex mutex_;
  bool stop_ ABSL_GUARDED_BY(mutex_) = false;
  bool paused_ ABSL_GUARDED_BY(mutex_) = false;
  uint64_t last_requests_ ABSL_GUARDED_BY(mutex_) = 0;
  absl::Time last_sample_ ABSL_GUARDED_BY(mutex_) = absl::InfinitePast();
  std::thread thread_;
};

}  // namespace vkserve

#endif  // VKSERVE_SERVER_DAEMON_SERVICE_MONITOR_H_
