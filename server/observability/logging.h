// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Logging: configures spdlog's default logger for the daemon — stderr, the
// configured level, and TEXT (one readable line) or JSON (one object per
// line: time, level, thread, request_id when there is one, msg) — and
// carries the id of the request a thread is working on, so every line logged
// on its behalf names it without threading the id through every call.
//
// ConfigureLogging is for start-up (not thread-safe against concurrent
// logging setup); ScopedRequestId is per thread; LogControl is thread-safe.
#ifndef VKSERVE_SERVER_OBSERVABILITY_LOGGING_H_
#define VKSERVE_SERVER_OBSERVABILITY_LOGGING_H_

#include <string>
#include <string_view>

#include "base/mutex.h"
#include "config/server_config.h"

namespace vkserve {

// Replaces spdlog's default logger with a stderr logger of this level and
// format.
void ConfigureLogging(LogLevel level, LogFormat format);

// While alive, lines this thread logs carry `id` (text: "[req <id>] ";
// JSON: "request_id"). Nests: the previous id returns on destruction.
class ScopedRequestId {
 public:
  explicit ScopedRequestId(std::string id);
  ~ScopedRequestId();
  ScopedRequestId(const ScopedRequestId&) = delete;
  ScopedRequestId& operator=(const ScopedRequestId&) = delete;

 private:
  std::string previous_;
};

// The level and format in effect, changed at run time by the LogSettings
// RPC. Constructed with what ConfigureLogging set; Set() applies to spdlog's
// default logger while other threads keep logging.
class LogControl {
 public:
  LogControl(LogLevel level, LogFormat format);
  LogLevel level() const;
  LogFormat format() const;
  void Set(LogLevel level, LogFormat format);

 private:
  mutable Mutex mutex_;
  LogLevel level_ ABSL_GUARDED_BY(mutex_);
  LogFormat format_ ABSL_GUARDED_BY(mutex_);
};

// The id set on this thread, "" when none.
const std::string& CurrentRequestId();

// `text` as a JSON string literal, quotes included.
std::string JsonQuote(std::string_view text);

}  // namespace vkserve

#endif  // VKSERVE_SERVER_OBSERVABILITY_LOGGING_H_
