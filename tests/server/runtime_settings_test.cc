// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The TraceSetting and LogSettings extensions without a server: Triton's
// setting names onto RequestTracer sampling and LogControl, all-or-nothing
// validation, and resets to the configured values. test_prometheus.py drives
// the same RPCs over gRPC against a running server.
#include "server/grpc/runtime_settings.h"

#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "spdlog/spdlog.h"

namespace vkserve {
namespace {

using inference::LogSettingsRequest;
using inference::LogSettingsResponse;
using inference::TraceSettingRequest;
using inference::TraceSettingResponse;

std::string Get(const TraceSettingResponse& r, const std::string& key) {
  auto it = r.settings().find(key);
  if (it == r.settings().end() || it->second.value_size() != 1) return "<missing>";
  return it->second.value(0);
}

void Set(TraceSettingRequest* r, const std::string& key, std::vector<std::string> values) {
  auto& v = (*r->mutable_settings())[key];
  for (auto& s : values) v.add_value(s);
}

TEST(TraceSettingsTest, ReadsChangesAndResetsSampling) {
  RequestTracer tracer({"/tmp/traces", /*every_n=*/0, /*max_files=*/10});
  TraceSettingResponse r;
  ASSERT_TRUE(ApplyTraceSettings(TraceSettingRequest(), tracer, &r).ok());
  EXPECT_EQ(Get(r, "trace_level"), "OFF");
  EXPECT_EQ(Get(r, "trace_rate"), "1000");
  EXPECT_EQ(Get(r, "trace_count"), "-1");
  EXPECT_EQ(Get(r, "trace_file"), kTraceFilePattern);  // never the server's directory
  EXPECT_EQ(Get(r, "log_frequency"), "1");
  EXPECT_FALSE(tracer.ShouldTrace(false));

  TraceSettingRequest on;
  Set(&on, "trace_level", {"TIMESTAMPS"});
  Set(&on, "trace_rate", {"2"});
  Set(&on, "trace_count", {"2"});
  r.Clear();
  ASSERT_TRUE(ApplyTraceSettings(on, tracer, &r).ok());
  EXPECT_EQ(Get(r, "trace_level"), "TIMESTAMPS");
  EXPECT_EQ(Get(r, "trace_rate"), "2");
  // Every 2nd inference (calls 2, 4, ... counting the one above), two
  // traces in all, then none; asked-for ones always.
  std::vector<bool> traced;
  for (int i = 0; i < 8; ++i) traced.push_back(tracer.ShouldTrace(false));
  EXPECT_EQ(traced, (std::vector<bool>{true, false, true, false, false, false, false, false}));
  EXPECT_TRUE(tracer.ShouldTrace(true));
  r.Clear();
  ASSERT_TRUE(ApplyTraceSettings(TraceSettingRequest(), tracer, &r).ok());
  EXPECT_EQ(Get(r, "trace_count"), "0");

  // No value: back to the configured setting.
  TraceSettingRequest reset;
  Set(&reset, "trace_level", {});
  Set(&reset, "trace_rate", {});
  Set(&reset, "trace_count", {});
  r.Clear();
  ASSERT_TRUE(ApplyTraceSettings(reset, tracer, &r).ok());
  EXPECT_EQ(Get(r, "trace_level"), "OFF");
  EXPECT_EQ(Get(r, "trace_rate"), "1000");
  EXPECT_EQ(Get(r, "trace_count"), "-1");
}

TEST(TraceSettingsTest, RefusesWhatItCannotHonourAndChangesNothing) {
  RequestTracer tracer({"/tmp/traces", /*every_n=*/5, /*max_files=*/10});
  const TraceSampling before = tracer.sampling();
  EXPECT_TRUE(before.enabled);
  EXPECT_EQ(before.rate, 5);
  struct Bad {
    std::string key;
    std::vector<std::string> values;
    std::string message;
  };
  for (const Bad& bad :
       std::vector<Bad>{{"trace_level", {"TENSORS"}, "TENSORS is not supported"},
                        {"trace_level", {"LOUD"}, "unknown level 'LOUD'"},
                        {"trace_level", {"OFF", "TIMESTAMPS"}, "cannot be combined"},
                        {"trace_rate", {"0"}, "not an integer >= 1"},
                        {"trace_rate", {"x"}, "not an integer >= 1"},
                        {"trace_rate", {"1", "2"}, "takes one value"},
                        {"trace_count", {"-2"}, "not an integer >= -1"},
                        {"trace_file", {"/etc/passwd"}, "a client cannot choose"},
                        {"log_frequency", {"100"}, "fixed at 1"},
                        {"trace_mode", {"triton"}, "unknown trace setting"}}) {
    TraceSettingRequest req;
    // A valid setting beside the bad one must not apply either.
    if (bad.key == "trace_count") {
      Set(&req, "trace_rate", {"7"});
    } else {
      Set(&req, "trace_count", {"3"});
    }
    Set(&req, bad.key, bad.values);
    TraceSettingResponse r;
    absl::Status s = ApplyTraceSettings(req, tracer, &r);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << bad.key;
    EXPECT_TRUE(absl::StrContains(s.message(), bad.key)) << s;
    EXPECT_TRUE(absl::StrContains(s.message(), bad.message)) << s;
    EXPECT_EQ(tracer.sampling().rate, 5) << "partially applied: " << bad.key;
    EXPECT_EQ(tracer.sampling().count, -1) << "partially applied: " << bad.key;
  }
  TraceSettingRequest per_model;
  per_model.set_model_name("net");
  TraceSettingResponse r;
  EXPECT_EQ(ApplyTraceSettings(per_model, tracer, &r).code(), absl::StatusCode::kInvalidArgument);
}

LogSettingsResponse ApplyLog(LogControl& log, const LogSettingsRequest& req, absl::Status* status) {
  LogSettingsResponse r;
  *status = ApplyLogSettings(req, log, &r);
  return r;
}

TEST(LogSettingsTest, MapsTritonSwitchesOntoTheLevel) {
  LogControl log(LogLevel::kInfo, LogFormat::kText);
  absl::Status s;
  LogSettingsResponse r = ApplyLog(log, LogSettingsRequest(), &s);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_TRUE(r.settings().at("log_info").bool_param());
  EXPECT_TRUE(r.settings().at("log_warnings").bool_param());
  EXPECT_TRUE(r.settings().at("log_errors").bool_param());
  EXPECT_EQ(r.settings().at("log_verbose_level").uint32_param(), 0u);
  EXPECT_EQ(r.settings().at("log_format").string_param(), "default");
  EXPECT_EQ(r.settings().at("log_file").string_param(), "");

  LogSettingsRequest verbose;
  (*verbose.mutable_settings())["log_verbose_level"].set_uint32_param(1);
  (*verbose.mutable_settings())["log_format"].set_string_param("JSON");
  r = ApplyLog(log, verbose, &s);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(log.level(), LogLevel::kDebug);
  EXPECT_EQ(log.format(), LogFormat::kJson);
  EXPECT_EQ(spdlog::default_logger()->level(), spdlog::level::debug);
  EXPECT_EQ(r.settings().at("log_format").string_param(), "JSON");

  LogSettingsRequest quiet;
  (*quiet.mutable_settings())["log_verbose_level"].set_uint32_param(0);
  (*quiet.mutable_settings())["log_info"].set_bool_param(false);
  (*quiet.mutable_settings())["log_format"].set_string_param("default");
  r = ApplyLog(log, quiet, &s);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(log.level(), LogLevel::kWarning);
  EXPECT_EQ(spdlog::default_logger()->level(), spdlog::level::warn);
  EXPECT_FALSE(r.settings().at("log_info").bool_param());
  EXPECT_TRUE(r.settings().at("log_warnings").bool_param());

  LogSettingsRequest off;
  for (const char* k : {"log_info", "log_warnings", "log_errors"}) {
    (*off.mutable_settings())[k].set_bool_param(false);
  }
  ApplyLog(log, off, &s);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(log.level(), LogLevel::kOff);
  log.Set(LogLevel::kInfo, LogFormat::kText);
}

TEST(LogSettingsTest, RefusesWhatItCannotHonourAndChangesNothing) {
  LogControl log(LogLevel::kInfo, LogFormat::kText);
  struct Bad {
    LogSettingsRequest request;
    std::string message;
  };
  std::vector<Bad> cases(6);
  (*cases[0].request.mutable_settings())["log_warnings"].set_bool_param(
      false);  // info on, warnings off
  cases[0].message = "log_info needs log_warnings";
  (*cases[1].request.mutable_settings())["log_info"].set_uint32_param(1);
  cases[1].message = "must be a bool_param";
  (*cases[2].request.mutable_settings())["log_file"].set_string_param("/tmp/x.log");
  cases[2].message = "cannot choose";
  (*cases[3].request.mutable_settings())["log_format"].set_string_param("ISO8601");
  cases[3].message = "not supported";
  (*cases[4].request.mutable_settings())["log_colour"].set_bool_param(true);
  cases[4].message = "unknown log setting";
  (*cases[5].request.mutable_settings())["log_verbose_level"].set_string_param("2");
  cases[5].message = "must be a uint32_param";
  for (Bad& bad : cases) {
    (*bad.request.mutable_settings())["log_format"].set_string_param(
        bad.message == "not supported" ? "ISO8601" : "JSON");
    absl::Status s;
    ApplyLog(log, bad.request, &s);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << bad.message;
    EXPECT_TRUE(absl::StrContains(s.message(), bad.message)) << s;
    EXPECT_EQ(log.format(), LogFormat::kText) << "partially applied";
    EXPECT_EQ(log.level(), LogLevel::kInfo);
  }
}

}  // namespace
}  // namespace vkserve
