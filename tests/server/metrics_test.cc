// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Metrics, RequestTracer and the log formatting, without a GPU: the exact
// exposition text for known observations, series lifetime across unload and
// reload, trace selection/assembly/pruning, and JSON log lines.
// (metrics_endpoint_test.cc serves the text over HTTP; test_prometheus.py
// checks it against a real Prometheus.)
#include "server/observability/metrics.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "server/observability/logging.h"
#include "server/observability/request_tracer.h"
#include "spdlog/spdlog.h"

namespace vkserve {
namespace {

namespace fs = std::filesystem;

// The value of the exposition line starting with `series` (name and
// labels exactly as rendered), or -1 when absent.
double Value(const std::string& text, const std::string& series) {
  size_t pos = 0;
  while ((pos = text.find(series + " ", pos)) != std::string::npos) {
    if (pos == 0 || text[pos - 1] == '\n') return std::stod(text.substr(pos + series.size() + 1));
    pos += series.size();
  }
  return -1;
}

RunTiming Timing() {
  RunTiming t;
  t.upload_ns = 20'000;  // 20 µs
  t.record_ns = 0;
  t.submit_ns = 40'000;
  t.gpu_ns = 300'000;
  t.wait_ns = 400'000;
  t.readback_ns = 5'000;
  t.replayed = true;
  t.bytes_uploaded = 3072;
  t.bytes_read_back = 40;
  return t;
}

TEST(MetricsTest, RecordsExactFiguresPerModelVersion) {
  Metrics metrics("9.9.9", "Test GPU", nullptr);
  auto m = metrics.ForModel("net", 3, {"GPU-a", "GPU-b"});
  m->RecordSuccess(/*request_ns=*/600'000, /*queue_ns=*/30'000, Timing(), /*batch_size=*/4,
                   "GPU-a");
  m->RecordSuccess(600'000, 30'000, Timing(), 4, "GPU-b");
  m->RecordSuccess(600'000, 30'000, Timing(), 4, "GPU-b");
  m->RecordCrossDeviceCopies("GPU-b", /*copies=*/2, /*bytes=*/96);
  m->RecordCrossDeviceCopies("GPU-a", /*copies=*/0, /*bytes=*/0);  // none: not counted
  // The two ran as separate executions of 4, then a batch of 8 ran.
  m->RecordExecution(4, Timing(), /*forming_ns=*/30'000);
  m->RecordExecution(4, Timing(), 30'000, /*padding_rows=*/2);  // run as 6, a planned size
  m->RecordFailure(RequestOutcome::kQueueFull);
  const std::string text = metrics.Render();
  const std::string labels = "model=\"net\",version=\"3\"";
  EXPECT_EQ(Value(text, "vkserve_requests_total{model=\"net\",outcome=\"success\",version=\"3\"}"),
            3);
  EXPECT_EQ(
      Value(text, "vkserve_requests_total{model=\"net\",outcome=\"queue_full\",version=\"3\"}"), 1);
  EXPECT_EQ(Value(text, "vkserve_requests_total{model=\"net\",outcome=\"timeout\",version=\"3\"}"),
            0);
  EXPECT_EQ(Value(text, "vkserve_inferences_total{" + labels + "}"), 12);
  EXPECT_EQ(Value(text, "vkserve_executions_total{" + labels + "}"), 2);
  EXPECT_EQ(Value(text, "vkserve_batch_padding_rows_total{" + labels + "}"), 2);
  EXPECT_EQ(
      Value(text, "vkserve_transferred_bytes_total{direction=\"host_to_gpu\"," + labels + "}"),
      6144);
  EXPECT_EQ(
      Value(text, "vkserve_transferred_bytes_total{direction=\"gpu_to_host\"," + labels + "}"), 80);
  EXPECT_EQ(Value(text, "vkserve_runs_total{command_buffer=\"replayed\"," + labels + "}"), 2);
  EXPECT_EQ(Value(text, "vkserve_runs_total{command_buffer=\"recorded\"," + labels + "}"), 0);
  EXPECT_EQ(Value(text, "vkserve_request_duration_seconds_count{" + labels + "}"), 3);
  EXPECT_NEAR(Value(text, "vkserve_request_duration_seconds_sum{" + labels + "}"), 1.8e-3, 1e-12);
  // 600 µs lands above the 500 µs bucket and within 1 ms.
  EXPECT_EQ(Value(text, "vkserve_request_duration_seconds_bucket{" + labels + ",le=\"0.0005\"}"),
            0);
  EXPECT_EQ(Value(text, "vkserve_request_duration_seconds_bucket{" + labels + ",le=\"0.001\"}"), 3);
  EXPECT_EQ(Value(text, "vkserve_request_duration_seconds_bucket{" + labels + ",le=\"1e-05\"}"), 0);
  EXPECT_EQ(Value(text, "vkserve_request_duration_seconds_bucket{" + labels + ",le=\"10\"}"), 3);
  EXPECT_EQ(Value(text, "vkserve_request_duration_seconds_bucket{" + labels + ",le=\"+Inf\"}"), 3);
  // Phases per GPU: one request on GPU-a, two on GPU-b.
  auto phase_on = [&](const char* gpu, const char* p, const char* suffix) {
    return Value(text, absl::StrCat("vkserve_phase_duration_seconds_", suffix, "{gpu=\"", gpu,
                                    "\",model=\"net\",phase=\"", p, "\",version=\"3\"}"));
  };
  EXPECT_EQ(phase_on("GPU-a", "gpu", "count"), 1);
  EXPECT_NEAR(phase_on("GPU-a", "gpu", "sum"), 300e-6, 1e-12);
  EXPECT_EQ(phase_on("GPU-b", "gpu", "count"), 2);
  auto phase = [&](const char* p, const char* suffix) { return phase_on("GPU-b", p, suffix); };
  // Cross-device copies, by the GPU they were copied to.
  EXPECT_EQ(Value(text, "vkserve_cross_device_copies_total{gpu=\"GPU-b\"," + labels + "}"), 2);
  EXPECT_EQ(Value(text, "vkserve_cross_device_copy_bytes_total{gpu=\"GPU-b\"," + labels + "}"), 96);
  EXPECT_EQ(Value(text, "vkserve_cross_device_copies_total{gpu=\"GPU-a\"," + labels + "}"), 0);
  EXPECT_NEAR(phase("queue", "sum"), 60e-6, 1e-12);
  EXPECT_NEAR(phase("upload", "sum"), 40e-6, 1e-12);
  EXPECT_EQ(phase("record", "sum"), 0);
  EXPECT_EQ(phase("record", "count"), 2);  // every run, replayed ones as 0
  EXPECT_NEAR(phase("submit", "sum"), 80e-6, 1e-12);
  EXPECT_NEAR(phase("gpu", "sum"), 600e-6, 1e-12);
  EXPECT_NEAR(phase("wait", "sum"), 800e-6, 1e-12);
  EXPECT_NEAR(phase("readback", "sum"), 10e-6, 1e-12);
  EXPECT_EQ(Value(text, "vkserve_build_info{device=\"Test GPU\",version=\"9.9.9\"}"), 1);
  // Executions by batch size (cumulative buckets) and the batches' forming delay.
  EXPECT_EQ(Value(text, "vkserve_batch_size_count{" + labels + "}"), 2);
  EXPECT_EQ(Value(text, "vkserve_batch_size_sum{" + labels + "}"), 8);
  EXPECT_EQ(Value(text, "vkserve_batch_size_bucket{" + labels + ",le=\"2\"}"), 0);
  EXPECT_EQ(Value(text, "vkserve_batch_size_bucket{" + labels + ",le=\"4\"}"), 2);
  EXPECT_EQ(Value(text, "vkserve_batch_queue_delay_seconds_count{" + labels + "}"), 2);
  EXPECT_NEAR(Value(text, "vkserve_batch_queue_delay_seconds_sum{" + labels + "}"), 60e-6, 1e-12);
}

TEST(MetricsTest, SeriesLiveAsLongAsTheModelVersion) {
  Metrics metrics("0.1", "gpu", nullptr);
  auto a = metrics.ForModel("net", 1);
  auto b = metrics.ForModel("net", 1);
  EXPECT_EQ(a, b);  // one set of series per version
  auto other = metrics.ForModel("net", 2);
  EXPECT_NE(a, other);
  a->RecordFailure(RequestOutcome::kInternal);
  a.reset();
  EXPECT_TRUE(
      absl::StrContains(metrics.Render(), "model=\"net\",outcome=\"internal\",version=\"1\"} 1"));
  b.reset();  // unloaded: its series leave the exposition
  const std::string text = metrics.Render();
  EXPECT_FALSE(absl::StrContains(text, "version=\"1\""));
  EXPECT_TRUE(absl::StrContains(text, "version=\"2\""));
  // Reloaded: fresh series, counted from 0.
  auto again = metrics.ForModel("net", 1);
  EXPECT_EQ(Value(metrics.Render(),
                  "vkserve_requests_total{model=\"net\",outcome=\"internal\",version=\"1\"}"),
            0);
}

TEST(MetricsTest, PerGpuSeriesExistFromLoadAndFollowAReload) {
  Metrics metrics("0.1", "gpu", nullptr);
  auto one = metrics.ForModel("net", 1, {"GPU-a"});
  auto count = [&](const std::string& gpu) {
    return Value(metrics.Render(), "vkserve_phase_duration_seconds_count{gpu=\"" + gpu +
                                       "\",model=\"net\",phase=\"gpu\",version=\"1\"}");
  };
  EXPECT_EQ(count("GPU-a"), 0);  // from load on
  EXPECT_EQ(count("GPU-b"), -1);
  // The version reloaded on two GPUs while the old one still serves: one
  // set of series per version, now with both GPUs.
  auto two = metrics.ForModel("net", 1, {"GPU-a", "GPU-b"});
  EXPECT_EQ(one, two);
  EXPECT_EQ(count("GPU-b"), 0);
  two->RecordSuccess(1000, 10, Timing(), 1, "GPU-b");
  EXPECT_EQ(count("GPU-b"), 1);
  EXPECT_EQ(count("GPU-a"), 0);
  one.reset();
  two.reset();  // unloaded: every GPU's series go
  EXPECT_FALSE(absl::StrContains(metrics.Render(), "GPU-"));
}

TEST(MetricsTest, GaugesAreSampledAtScrape) {
  int scrapes = 0;
  Metrics metrics("1", "gpu", [&] {
    ++scrapes;
    GaugeSample s;
    ModelGaugeSample m;
    m.model = "net";
    m.version = "1";
    m.sessions = 2;
    m.sessions_busy = scrapes;  // changes between scrapes
    m.queue_depth = 5;
    m.resident_outputs = 3;
    m.resident_output_bytes = 1200;
    m.gpu_nodes = 17;
    m.cpu_nodes = 0;
    m.gpus = {{"GPU-a", 1, 1}, {"GPU-b", 1, 0}};
    s.models.push_back(m);
    DeviceGaugeSample d;
    d.device = "Test GPU";
    d.gpu = "GPU-a";
    d.bytes_by_kind[static_cast<int>(gpu::MemoryKind::kWeights)] = 4096;
    s.devices.push_back(d);
    return s;
  });
  std::string text = metrics.Render();
  const std::string labels = "{model=\"net\",version=\"1\"";
  EXPECT_EQ(Value(text, "vkserve_sessions" + labels + "}"), 2);
  EXPECT_EQ(Value(text, "vkserve_sessions_busy" + labels + "}"), 1);
  EXPECT_EQ(Value(text, "vkserve_queue_depth" + labels + "}"), 5);
  EXPECT_EQ(Value(text, "vkserve_resident_outputs" + labels + "}"), 3);
  EXPECT_EQ(Value(text, "vkserve_resident_output_bytes" + labels + "}"), 1200);
  EXPECT_EQ(Value(text, "vkserve_model_nodes" + labels + ",device=\"gpu\"}"), 17);
  EXPECT_EQ(Value(text, "vkserve_model_nodes" + labels + ",device=\"cpu\"}"), 0);
  EXPECT_EQ(
      Value(text, "vkserve_gpu_memory_bytes{device=\"Test GPU\",gpu=\"GPU-a\",kind=\"weights\"}"),
      4096);
  EXPECT_EQ(
      Value(
          text,
          "vkserve_gpu_memory_bytes{device=\"Test GPU\",gpu=\"GPU-a\",kind=\"resident_outputs\"}"),
      0);
  EXPECT_EQ(Value(text, "vkserve_cache_bytes{device=\"Test GPU\",gpu=\"GPU-a\",memory=\"device\"}"),
            0);
  // Sessions and busy sessions per GPU.
  EXPECT_EQ(Value(text, "vkserve_gpu_sessions" + labels + ",gpu=\"GPU-a\"}"), 1);
  EXPECT_EQ(Value(text, "vkserve_gpu_sessions_busy" + labels + ",gpu=\"GPU-a\"}"), 1);
  EXPECT_EQ(Value(text, "vkserve_gpu_sessions_busy" + labels + ",gpu=\"GPU-b\"}"), 0);
  text = metrics.Render();
  EXPECT_EQ(Value(text, "vkserve_sessions_busy" + labels + "}"), 2);
}

TEST(MetricsTest, OutcomeFollowsTheStatusCode) {
  EXPECT_EQ(OutcomeOf(absl::OkStatus()), RequestOutcome::kSuccess);
  EXPECT_EQ(OutcomeOf(absl::InvalidArgumentError("x")), RequestOutcome::kInvalidInput);
  EXPECT_EQ(OutcomeOf(absl::NotFoundError("x")), RequestOutcome::kInvalidInput);
  EXPECT_EQ(OutcomeOf(absl::FailedPreconditionError("x")), RequestOutcome::kInvalidInput);
  EXPECT_EQ(OutcomeOf(absl::DeadlineExceededError("x")), RequestOutcome::kTimeout);
  EXPECT_EQ(OutcomeOf(absl::ResourceExhaustedError("x")), RequestOutcome::kQueueFull);
  EXPECT_EQ(OutcomeOf(absl::CancelledError("x")), RequestOutcome::kCancelled);
  EXPECT_EQ(OutcomeOf(absl::UnavailableError("x")), RequestOutcome::kUnavailable);
  EXPECT_EQ(OutcomeOf(absl::InternalError("x")), RequestOutcome::kInternal);
  EXPECT_EQ(OutcomeOf(absl::UnknownError("x")), RequestOutcome::kInternal);
}

class TracerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           absl::StrCat("vkserve_tracer_test_", getpid(), "_",
                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(TracerTest, TracesRequestedAndEveryNth) {
  RequestTracer tracer({dir_.string(), /*every_n=*/3, /*max_files=*/10});
  std::vector<bool> traced;
  for (int i = 0; i < 7; ++i) traced.push_back(tracer.ShouldTrace(/*requested=*/i == 0));
  EXPECT_EQ(traced, (std::vector<bool>{true, false, true, false, false, true, false}));
  RequestTracer off({dir_.string(), 0, 10});
  EXPECT_FALSE(off.ShouldTrace(false));
  EXPECT_TRUE(off.ShouldTrace(true));
}

TEST_F(TracerTest, AssemblesTheRequestAroundTheRun) {
  RequestSpans spans{/*prepare_ns=*/10'000, /*queue_ns=*/50'000, /*respond_ns=*/5'000,
                     /*request_ns=*/200'000};
  std::vector<TraceEvent> run = {{"run", "host", "", "", 0, 130'000},
                                 {"conv0", "gpu", "Conv", "", 20'000, 90'000}};
  auto events = RequestTracer::Assemble(spans, 130'000, run);
  ASSERT_EQ(events.size(), 6u);
  EXPECT_EQ(events[0].name, "request");
  EXPECT_EQ(events[2].name, "queue");
  EXPECT_EQ(events[2].start_ns, 10'000u);
  EXPECT_EQ(events[3].name, "run");
  EXPECT_EQ(events[3].start_ns, 60'000u);  // after prepare and queue
  EXPECT_EQ(events[4].name, "conv0");
  EXPECT_EQ(events[4].start_ns, 80'000u);
  // The response is built right after the run.
  EXPECT_EQ(events.back().name, "build response");
  EXPECT_EQ(events.back().start_ns, 190'000u);
}

TEST_F(TracerTest, WritesAndKeepsTheNewestFiles) {
  RequestTracer tracer({dir_.string(), 0, /*max_files=*/3});
  fs::create_directories(dir_);
  std::ofstream(dir_ / "notes.json") << "{}";  // not ours: never pruned
  std::vector<std::string> paths;
  for (int i = 0; i < 5; ++i) {
    auto path = tracer.Write("../evil/name", 2, {{"request", "host", "", "", 0, 1000}});
    ASSERT_TRUE(path.ok()) << path.status();
    EXPECT_EQ(fs::path(*path).parent_path(), dir_);  // the name cannot escape
    EXPECT_TRUE(absl::StrContains(*path, "vkserve-trace-"));
    paths.push_back(*path);
  }
  int ours = 0;
  for (const auto& e : fs::directory_iterator(dir_)) {
    ours += absl::StartsWith(e.path().filename().string(), "vkserve-trace-");
  }
  EXPECT_EQ(ours, 3);
  EXPECT_TRUE(fs::exists(dir_ / "notes.json"));
  EXPECT_TRUE(fs::exists(paths.back()));
  std::ifstream in(paths.back());
  std::string body((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(absl::StrContains(body, "\"name\": \"request\""));
}

TEST_F(TracerTest, UnwritableDirectoryIsAStatus) {
  std::ofstream(dir_.string()) << "a file where the directory should be";
  RequestTracer tracer({(dir_ / "sub").string(), 0, 3});
  auto path = tracer.Write("net", 1, {});
  EXPECT_FALSE(path.ok());
  fs::remove(dir_);
}

TEST(LoggingTest, JsonQuoteKeepsEveryLineParseable) {
  EXPECT_EQ(JsonQuote("plain"), "\"plain\"");
  EXPECT_EQ(JsonQuote("a\"b\\c\nd\te\x01"), "\"a\\\"b\\\\c\\nd\\te\\u0001\"");
  EXPECT_EQ(JsonQuote("gr\xC3\xBC\xC3\x9F"), "\"gr\xC3\xBC\xC3\x9F\"");  // valid UTF-8 stays
  EXPECT_EQ(JsonQuote("bad\xFF\xC3"), "\"bad\\ufffd\\ufffd\"");          // invalid bytes do not
  EXPECT_EQ(JsonQuote("\xED\xA0\x80"), "\"\\ufffd\\ufffd\\ufffd\"");     // a surrogate is invalid
}

TEST(LoggingTest, JsonLinesCarryTheRequestId) {
  // Capture stderr in a file while logging.
  const fs::path file = fs::temp_directory_path() / absl::StrCat("vkserve_log_test_", getpid());
  std::fflush(stderr);
  const int saved = dup(2);
  FILE* out = std::fopen(file.c_str(), "w");
  ASSERT_NE(out, nullptr);
  dup2(fileno(out), 2);
  ConfigureLogging(LogLevel::kInfo, LogFormat::kJson);
  {
    ScopedRequestId id("req-\"7\"");
    spdlog::info("ran {}", "net");
    EXPECT_EQ(CurrentRequestId(), "req-\"7\"");
  }
  spdlog::debug("below the level");
  spdlog::warn("no request");
  spdlog::default_logger()->flush();
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::fclose(out);
  ConfigureLogging(LogLevel::kInfo, LogFormat::kText);
  std::ifstream in(file);
  std::string first, second, third;
  std::getline(in, first);
  std::getline(in, second);
  EXPECT_FALSE(std::getline(in, third));
  fs::remove(file);
  EXPECT_TRUE(absl::StartsWith(first, "{\"time\":\"")) << first;
  EXPECT_TRUE(absl::StrContains(first, "+00:00\",\"level\":\"info\",\"thread\":")) << first;
  EXPECT_TRUE(absl::EndsWith(first, ",\"request_id\":\"req-\\\"7\\\"\",\"msg\":\"ran net\"}"))
      << first;
  EXPECT_TRUE(absl::StrContains(second, "\"level\":\"warning\""));
  EXPECT_FALSE(absl::StrContains(second, "request_id")) << second;
}

}  // namespace
}  // namespace vkserve
