// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/daemon/systemd_notifier.h"

#include <systemd/sd-daemon.h>
#include <time.h>

#include <cstdint>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "spdlog/spdlog.h"

namespace vkserve {
namespace {

// STATUS= is one line: a newline would start a new assignment.
std::string OneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

uint64_t MonotonicMicros() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000u + static_cast<uint64_t>(ts.tv_nsec) / 1000u;
}

}  // namespace

SystemdNotifier::SystemdNotifier() {
  const char* socket = std::getenv("NOTIFY_SOCKET");
  active_ = socket != nullptr && socket[0] != '\0';
  uint64_t usec = 0;
  // > 0 only when WATCHDOG_USEC is set and WATCHDOG_PID (if set) is us.
  if (active_ && sd_watchdog_enabled(0, &usec) > 0 && usec > 0) {
    watchdog_ = absl::Microseconds(static_cast<int64_t>(usec));
  }
}

void SystemdNotifier::Send(const std::string& state) {
  if (!active_) return;
  if (int r = sd_notify(0, state.c_str()); r < 0) {
    spdlog::warn("sd_notify failed (errno {}): {}", -r, state.substr(0, state.find('\n')));
  }
}

void SystemdNotifier::Ready(const std::string& status) {
  Send(absl::StrCat("READY=1\nSTATUS=", OneLine(status)));
}

void SystemdNotifier::Reloading(const std::string& status) {
  // MONOTONIC_USEC lets systemd >= 253 (Type=notify-reload) match the
  // reload to this message; older ones ignore it.
  Send(absl::StrCat("RELOADING=1\nMONOTONIC_USEC=", MonotonicMicros(),
                    "\nSTATUS=", OneLine(status)));
}

void SystemdNotifier::Stopping(const std::string& status) {
  Send(absl::StrCat("STOPPING=1\nSTATUS=", OneLine(status)));
}

void SystemdNotifier::Status(const std::string& status) {
  Send(absl::StrCat("STATUS=", OneLine(status)));
}

void SystemdNotifier::Watchdog() { Send("WATCHDOG=1"); }

}  // namespace vkserve
