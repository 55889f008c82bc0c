// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The trace and logging extensions of the Triton protocol (TraceSetting,
// LogSettings): what a client may read and change while the server runs, in
// Triton's setting names, mapped onto vkserve's RequestTracer sampling and
// LogControl. Every request is validated whole before anything changes; a
// setting vkserve cannot honour (TENSORS traces, a client-chosen file path,
// an unsupported combination of levels) is INVALID_ARGUMENT naming it.
//
// Stateless functions; thread-safe given thread-safe arguments.
#ifndef VKSERVE_SERVER_GRPC_RUNTIME_SETTINGS_H_
#define VKSERVE_SERVER_GRPC_RUNTIME_SETTINGS_H_

#include "absl/status/status.h"
#include "proto/grpc_service.pb.h"
#include "server/observability/logging.h"
#include "server/observability/request_tracer.h"

namespace vkserve {

// Applies `request` (an empty map only reads) and fills `response` with
// every trace setting: trace_level, trace_rate, trace_count, trace_file
// (kTraceFilePattern: the trace directory is not told), log_frequency.
absl::Status ApplyTraceSettings(const inference::TraceSettingRequest& request,
                                RequestTracer& tracer, inference::TraceSettingResponse* response);

// Applies `request` and fills `response` with every log setting: log_info,
// log_warnings, log_errors, log_verbose_level, log_format, log_file.
absl::Status ApplyLogSettings(const inference::LogSettingsRequest& request, LogControl& log,
                              inference::LogSettingsResponse* response);

}  // namespace vkserve

#endif  // VKSERVE_SERVER_GRPC_RUNTIME_SETTINGS_H_
