// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// SystemdNotifier: the service manager's notify protocol (sd_notify(3),
// through Debian's libsystemd) for a `Type=notify` unit: READY=1, STATUS=,
// RELOADING=1, STOPPING=1 and WATCHDOG=1. It is active only when systemd
// (or a test) set NOTIFY_SOCKET; otherwise every call does nothing, so the
// binary runs the same outside systemd.
//
// Thread-safe (sd_notify opens its own socket per call).
#ifndef VKSERVE_SERVER_DAEMON_SYSTEMD_NOTIFIER_H_
#define VKSERVE_SERVER_DAEMON_SYSTEMD_NOTIFIER_H_

#include <optional>
#include <string>

#include "absl/time/time.h"

namespace vkserve {

class SystemdNotifier {
 public:
  // Reads NOTIFY_SOCKET, WATCHDOG_USEC and WATCHDOG_PID from the environment.
  SystemdNotifier();

  bool active() const { return active_; }
  // WatchdogSec= of the unit (WATCHDOG_USEC, for this process); nullopt when
  // the watchdog is off.
  std::optional<absl::Duration> watchdog_interval() const { return watchdog_; }

  // The repository is loaded and the ports listen (also after a reload).
  void Ready(const std::string& status);
  // A reload began (SIGHUP); Ready() ends it.
  void Reloading(const std::string& status);
  // Draining before exit.
  void Stopping(const std::string& status);
  // A free-form status line (`systemctl status` shows it).
  void Status(const std::string& status);
  // The watchdog keep-alive.
  void Watchdog();

 private:
  void Send(const std::string& state);

  bool active_ = false;
  std::optional<absl::Duration> watchdog_;
};

}  // namespace vkserve

#endif  // VKSERVE_SERVER_DAEMON_SYSTEMD_NOTIFIER_H_
