// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/observability/request_tracer.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace vkserve {
namespace {

namespace fs = std::filesystem;

// Every trace file starts with this; pruning touches no other file, so a
// directory shared with other files is safe.
constexpr char kPrefix[] = "vkserve-trace-";

// Model names are checked at load, but a file name is built from them:
// keep only characters that cannot leave the directory.
std::string FileSafe(const std::string& name) {
  // A leading '.' (or nothing) would make a hidden or odd name: prefix it.
  std::string out = name.empty() || name[0] == '.' ? "m" : "";
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-' || c == '.';
    out += ok ? c : '_';
  }
  return out;
}

}  // namespace

RequestTracer::RequestTracer(RequestTracerOptions options) : options_(std::move(options)) {
  const TraceSampling initial = InitialSampling();
  enabled_.store(initial.enabled);
  rate_.store(initial.rate);
  count_.store(initial.count);
}

TraceSampling RequestTracer::InitialSampling() const {
  TraceSampling s;
  s.enabled = options_.every_n > 0;
  s.rate = options_.every_n > 0 ? options_.every_n : 1000;
  s.count = -1;
  return s;
}

TraceSampling RequestTracer::sampling() const {
  return {enabled_.load(), rate_.load(), count_.load()};
}

void RequestTracer::SetSampling(const TraceSampling& sampling) {
  if (sampling.rate < 1 || sampling.count < -1) {
    std::fprintf(stderr, "RequestTracer::SetSampling: rate %lld, count %lld\n",
                 static_cast<long long>(sampling.rate), static_cast<long long>(sampling.count));
    std::abort();  // callers validate client input first
  }
  rate_.store(sampling.rate);
  count_.store(sampling.count);
  enabled_.store(sampling.enabled);
}

bool RequestTracer::ShouldTrace(bool requested) {
  const uint64_t n = calls_.fetch_add(1) + 1;
  if (requested) return true;
  if (!enabled_.load(std::memory_order_relaxed)) return false;
  const int64_t rate = rate_.load(std::memory_order_relaxed);
  if (rate < 1 || n % static_cast<uint64_t>(rate) != 0) return false;
  // A limited count: take one trace from it unless none are left.
  int64_t left = count_.load();
  while (left != -1) {
    if (left == 0) return false;
    if (count_.compare_exchange_weak(left, left - 1)) return true;
  }
  return true;
}

std::vector<TraceEvent> RequestTracer::Assemble(const RequestSpans& spans, uint64_t run_total_ns,
                                                const std::vector<TraceEvent>& run_events) {
  const uint64_t run_start = spans.prepare_ns + spans.queue_ns;
  std::vector<TraceEvent> events;
  events.reserve(run_events.size() + 4);
  events.push_back({"request", "host", "", "", 0, spans.request_ns});
  events.push_back({"prepare request", "host", "", "", 0, spans.prepare_ns});
  events.push_back({"queue", "host", "", "", spans.prepare_ns, spans.queue_ns});
  for (TraceEvent e : run_events) {
    e.start_ns += run_start;
    events.push_back(std::move(e));
  }
  events.push_back({"build response", "host", "", "", run_start + run_total_ns, spans.respond_ns});
  return events;
}

absl::StatusOr<std::string> RequestTracer::Write(const std::string& model, int64_t version,
                                                 const std::vector<TraceEvent>& events) {
  const std::string name =
      absl::StrCat(kPrefix, FileSafe(model), "-v", version, "-", absl::ToUnixMillis(absl::Now()),
                   "-", sequence_.fetch_add(1) + 1, ".json");
  const std::string path = (fs::path(options_.directory) / name).string();
  MutexLock lock(&mutex_);
  std::error_code ec;
  fs::create_directories(options_.directory, ec);
  if (ec) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot create trace directory ", options_.directory, ": ", ec.message()));
  }
  absl::Status written = WriteChromeTrace(events, path);
  if (!written.ok()) return written;
  Prune();
  return path;
}

void RequestTracer::Prune() {
  std::error_code ec;
  std::vector<std::pair<fs::file_time_type, fs::path>> files;
  for (const auto& entry : fs::directory_iterator(options_.directory, ec)) {
    const std::string file = entry.path().filename().string();
    if (file.rfind(kPrefix, 0) != 0 || entry.path().extension() != ".json" ||
        !entry.is_regular_file(ec)) {
      continue;
    }
    files.emplace_back(entry.last_write_time(ec), entry.path());
  }
  if (files.size() <= static_cast<size_t>(options_.max_files)) return;
  std::sort(files.begin(), files.end());
  const size_t excess = files.size() - static_cast<size_t>(options_.max_files);
  for (size_t i = 0; i < excess; ++i) fs::remove(files[i].second, ec);
}

}  // namespace vkserve
