// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// RequestTracer: which inferences get a Chrome trace (the request asked with
// vkserve_trace, or it is the server's every-Nth), how one request's trace
// is assembled from the server's phases and the run's own events, and where
// it is written: <directory>/vkserve-trace-<model>-v<version>-<unix ms>-
// <sequence>.json, keeping the newest max_files (other files are left alone).
//
// Thread-safe.
#ifndef VKSERVE_SERVER_OBSERVABILITY_REQUEST_TRACER_H_
#define VKSERVE_SERVER_OBSERVABILITY_REQUEST_TRACER_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/mutex.h"
#include "runtime/session.h"

namespace vkserve {

// How trace files are named in the trace directory (what TraceSetting
// reports as trace_file: clients are not told the directory).
inline constexpr char kTraceFilePattern[] =
    "vkserve-trace-<model>-v<version>-<unix ms>-<sequence>.json";

struct RequestTracerOptions {
  std::string directory;  // absolute; created on the first write
  int64_t every_n = 0;    // 0: only requests that ask
  int64_t max_files = 100;
};

// Sampling of inferences that did not ask for a trace, changeable at run
// time (the TraceSetting RPC): when enabled, every rate-th inference is
// traced, up to `count` more traces (-1: no limit).
struct TraceSampling {
  bool enabled = false;
  int64_t rate = 1000;  // >= 1
  int64_t count = -1;   // -1, or >= 0 traces left
};

// The server-side spans of one traced request, in nanoseconds from the
// moment the server received it.
struct RequestSpans {
  uint64_t prepare_ns = 0;  // checking and binding the request
  uint64_t queue_ns = 0;    // waiting for a session (starts at prepare_ns)
  uint64_t respond_ns = 0;  // building the response after the run
  uint64_t request_ns = 0;  // the whole request
};

class RequestTracer {
 public:
  explicit RequestTracer(RequestTracerOptions options);

  // Whether this inference is traced. Counts every call, so every Nth call
  // is traced while sampling is enabled.
  bool ShouldTrace(bool requested);

  // The sampling in effect; starts as the options say (enabled with rate
  // every_n when every_n > 0). SetSampling REQUIRES rate >= 1, count >= -1.
  TraceSampling sampling() const;
  void SetSampling(const TraceSampling& sampling);
  // What the options set at start.
  TraceSampling InitialSampling() const;

  // The request's trace: its server spans on the host track with the run's
  // events (host phases and every dispatch's GPU span, RunResult::trace)
  // placed after the queue wait.
  static std::vector<TraceEvent> Assemble(const RequestSpans& spans, uint64_t run_total_ns,
                                          const std::vector<TraceEvent>& run_events);

  // Writes `events` for `model` version `version` and returns the file's
  // path; deletes the oldest files beyond max_files. PERMISSION_DENIED or
  // INTERNAL naming the path when it cannot write.
  absl::StatusOr<std::string> Write(const std::string& model, int64_t version,
                                    const std::vector<TraceEvent>& events);

  const RequestTracerOptions& options() const { return options_; }

 private:
  void Prune() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  const RequestTracerOptions options_;
  std::atomic<uint64_t> calls_{0};
  std::atomic<bool> enabled_;
  std::atomic<int64_t> rate_;
  std::atomic<int64_t> count_;
  std::atomic<uint64_t> sequence_{0};
  Mutex mutex_;  // serializes directory creation and pruning
};

}  // namespace vkserve

#endif  // VKSERVE_SERVER_OBSERVABILITY_REQUEST_TRACER_H_
