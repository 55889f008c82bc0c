// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/grpc/runtime_settings.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/quote.h"

namespace vkserve {
namespace {

using inference::LogSettingsRequest;
using inference::LogSettingsResponse;
using inference::TraceSettingRequest;
using inference::TraceSettingResponse;

absl::Status InvalidSetting(const std::string& key, const std::string& message) {
  return absl::InvalidArgumentError(absl::StrCat("setting ", Quoted(key), ": ", message));
}

// The one integer value of a trace setting.
absl::StatusOr<int64_t> OneInteger(const std::string& key,
                                   const TraceSettingRequest::SettingValue& v, int64_t min) {
  if (v.value_size() != 1) {
    return InvalidSetting(key, absl::StrCat("takes one value, got ", v.value_size()));
  }
  int64_t n = 0;
  if (!absl::SimpleAtoi(v.value(0), &n) || n < min) {
    return InvalidSetting(key, absl::StrCat(Quoted(v.value(0)), " is not an integer >= ", min));
  }
  return n;
}

void SetTraceValue(TraceSettingResponse* r, const std::string& key, const std::string& value) {
  (*r->mutable_settings())[key].add_value(value);
}

// vkserve's level is a threshold; Triton's settings are four switches.
struct LogSwitches {
  bool info = true, warnings = true, errors = true;
  uint32_t verbose = 0;
};

LogSwitches SwitchesOf(LogLevel level) {
  switch (level) {
    case LogLevel::kTrace:
      return {true, true, true, 2};
    case LogLevel::kDebug:
      return {true, true, true, 1};
    case LogLevel::kInfo:
      return {true, true, true, 0};
    case LogLevel::kWarning:
      return {false, true, true, 0};
    case LogLevel::kError:
      return {false, false, true, 0};
    case LogLevel::kOff:
      return {false, false, false, 0};
  }
  return {};
}

absl::StatusOr<LogLevel> LevelOf(const LogSwitches& s) {
  if ((s.verbose > 0 && !s.info) || (s.info && !s.warnings) || (s.warnings && !s.errors)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "log settings: vkserve logs everything above one level, so log_verbose_level > 0 needs "
        "log_info, log_info needs log_warnings, and log_warnings needs log_errors (asked: "
        "log_verbose_level ",
        s.verbose, ", log_info ", s.info, ", log_warnings ", s.warnings, ", log_errors ", s.errors,
        ")"));
  }
  if (s.verbose >= 2) return LogLevel::kTrace;
  if (s.verbose == 1) return LogLevel::kDebug;
  if (s.info) return LogLevel::kInfo;
  if (s.warnings) return LogLevel::kWarning;
  if (s.errors) return LogLevel::kError;
  return LogLevel::kOff;
}

absl::StatusOr<bool> BoolValue(const std::string& key, const LogSettingsRequest::SettingValue& v) {
  if (v.parameter_choice_case() != LogSettingsRequest::SettingValue::kBoolParam) {
    return InvalidSetting(key, "must be a bool_param");
  }
  return v.bool_param();
}

}  // namespace

absl::Status ApplyTraceSettings(const TraceSettingRequest& request, RequestTracer& tracer,
                                TraceSettingResponse* response) {
  if (!request.model_name().empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "trace settings for model ", Quoted(request.model_name()),
        ": vkserve has one set of trace settings for every model; leave model_name empty"));
  }
  const TraceSampling initial = tracer.InitialSampling();
  TraceSampling next = tracer.sampling();
  for (const auto& [key, v] : request.settings()) {
    const bool reset = v.value_size() == 0;  // Triton: no value = back to the default
    if (key == "trace_level") {
      if (reset) {
        next.enabled = initial.enabled;
        continue;
      }
      bool off = false, timestamps = false;
      for (const std::string& level : v.value()) {
        const std::string upper = absl::AsciiStrToUpper(level);
        if (upper == "OFF") {
          off = true;
        } else if (upper == "TIMESTAMPS") {
          timestamps = true;
        } else if (upper == "TENSORS") {
          return InvalidSetting(
              key, "TENSORS is not supported: traces hold timestamps, not tensor values");
        } else {
          return InvalidSetting(
              key, absl::StrCat("unknown level ", Quoted(level), " (OFF or TIMESTAMPS)"));
        }
      }
      if (off && timestamps) return InvalidSetting(key, "OFF cannot be combined with TIMESTAMPS");
      next.enabled = timestamps;
    } else if (key == "trace_rate") {
      if (reset) {
        next.rate = initial.rate;
        continue;
      }
      auto rate = OneInteger(key, v, 1);
      if (!rate.ok()) return rate.status();
      next.rate = *rate;
    } else if (key == "trace_count") {
      if (reset) {
        next.count = initial.count;
        continue;
      }
      auto count = OneInteger(key, v, -1);
      if (!count.ok()) return count.status();
      next.count = *count;
    } else if (key == "trace_file") {
      if (!reset) {
        return InvalidSetting(key,
                              "traces go to the server config's trace.directory; a client cannot "
                              "choose where the server writes");
      }
    } else if (key == "log_frequency") {
      // Every trace is its own file, written when its request finishes.
      if (!reset && !(v.value_size() == 1 && v.value(0) == "1")) {
        return InvalidSetting(key, "is fixed at 1: every trace is written to its own file at once");
      }
    } else {
      return InvalidSetting(
          key,
          "unknown trace setting (trace_level, trace_rate, trace_count, trace_file, "
          "log_frequency)");
    }
  }
  tracer.SetSampling(next);

  const TraceSampling now = tracer.sampling();
  SetTraceValue(response, "trace_level", now.enabled ? "TIMESTAMPS" : "OFF");
  SetTraceValue(response, "trace_rate", absl::StrCat(now.rate));
  SetTraceValue(response, "trace_count", absl::StrCat(now.count));
  // Not the directory: clients learn no server path (a trace's name comes
  // back in vkserve_trace_path, relative to the directory).
  SetTraceValue(response, "trace_file", kTraceFilePattern);
  SetTraceValue(response, "log_frequency", "1");
  return absl::OkStatus();
}

absl::Status ApplyLogSettings(const LogSettingsRequest& request, LogControl& log,
                              LogSettingsResponse* response) {
  LogSwitches s = SwitchesOf(log.level());
  LogFormat format = log.format();
  for (const auto& [key, v] : request.settings()) {
    if (key == "log_info" || key == "log_warnings" || key == "log_errors") {
      auto b = BoolValue(key, v);
      if (!b.ok()) return b.status();
      (key == "log_info" ? s.info : key == "log_warnings" ? s.warnings : s.errors) = *b;
    } else if (key == "log_verbose_level") {
      if (v.parameter_choice_case() != LogSettingsRequest::SettingValue::kUint32Param) {
        return InvalidSetting(key, "must be a uint32_param");
      }
      s.verbose = v.uint32_param();
    } else if (key == "log_format") {
      if (v.parameter_choice_case() != LogSettingsRequest::SettingValue::kStringParam) {
        return InvalidSetting(key, "must be a string_param");
      }
      const std::string f = absl::AsciiStrToLower(v.string_param());
      if (f == "default" || f == "text") {
        format = LogFormat::kText;
      } else if (f == "json") {
        format = LogFormat::kJson;
      } else {
        return InvalidSetting(
            key, absl::StrCat(Quoted(v.string_param()), " is not supported (default or JSON)"));
      }
    } else if (key == "log_file") {
      if (v.parameter_choice_case() != LogSettingsRequest::SettingValue::kStringParam) {
        return InvalidSetting(key, "must be a string_param");
      }
      if (!v.string_param().empty()) {
        return InvalidSetting(
            key,
            "vkserve logs to stderr (journald under systemd); a client cannot choose "
            "a file the server writes");
      }
    } else {
      return InvalidSetting(key,
                            "unknown log setting (log_info, log_warnings, log_errors, "
                            "log_verbose_level, log_format, log_file)");
    }
  }
  auto level = LevelOf(s);
  if (!level.ok()) return level.status();
  log.Set(*level, format);

  const LogSwitches now = SwitchesOf(log.level());
  auto& out = *response->mutable_settings();
  out["log_info"].set_bool_param(now.info);
  out["log_warnings"].set_bool_param(now.warnings);
  out["log_errors"].set_bool_param(now.errors);
  out["log_verbose_level"].set_uint32_param(now.verbose);
  out["log_format"].set_string_param(log.format() == LogFormat::kJson ? "JSON" : "default");
  out["log_file"].set_string_param("");
  return absl::OkStatus();
}

}  // namespace vkserve
