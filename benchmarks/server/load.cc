// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// vkserve_load: a closed-loop gRPC load generator for a running vkserve (or
// any KServe v2 server), measuring as perf_analyzer's concurrency mode does:
// C clients each keep one ModelInfer request outstanding (random inputs,
// sent back to back); after a warm-up period, requests completed in the
// measurement window give the throughput and latency (average, p50, p90,
// p95, p99). Given the metrics URL it also reads, from two scrapes of
// /metrics around the window:
//  - the server's own split of the same requests: mean seconds per request
//    in each phase (what the Grafana dashboard stacks);
//  - the gRPC overhead: client latency minus the server's request time,
//    beside gRPC's floor (an empty ServerLive call) back to back and, at one
//    client, at the requests' cadence (FloorAtCadence);
//  - the batches the server ran (vkserve_batch_size): executions,
//    inferences per execution and the distribution over batch sizes, and
//    how long batches waited to form (vkserve_batch_queue_delay_seconds).
// The last line, "summary: key=value ...", repeats the figures for scripts.
//
//   vkserve_load --url 127.0.0.1:8001 --model NAME [--batch N]
//       [--concurrency C] [--seconds S] [--warmup S] [--channels K]
//       [--metrics http://127.0.0.1:8002/metrics]
//       [--trace]    (then one request with vkserve_trace; prints the trace's path)
//       [--live]     (the clients send empty ServerLive calls instead: gRPC's
//                     floor under the same load, to read ModelInfer against)
//       [--poll]     (every call, the floor's too, is finished by polling a
//                     completion queue of its thread's own without sleeping:
//                     the client's wake-up drops out of the round trip, so
//                     what is left of the overhead is the server's and the
//                     transport's)
//       [--http HOST:PORT]  (the clients send the same requests over KServe
//                     v2 HTTP/REST with binary tensors instead, one
//                     keep-alive connection each; --url still serves the
//                     model's metadata)
//
// Input shapes come from ModelMetadata (-1 dimensions take --batch, then 1).
// Clients share K gRPC connections (default: one per 8 clients), so that
// one HTTP/2 connection does not cap what many clients can send.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "benchmarks/server/http_calls.h"
#include "benchmarks/server/live_calls.h"
#include "benchmarks/server/metrics_scrape.h"
#include "grpcpp/grpcpp.h"
#include "proto/grpc_service.grpc.pb.h"

namespace {

using Clock = std::chrono::steady_clock;
using vkserve::bench::HttpGet;
using vkserve::bench::SumSamples;
using vkserve_bench::Percentile;
using vkserve_bench::TimeServerLive;

// ServerLive calls timing gRPC's floor before the run.
constexpr int kFloorCalls = 2000;
// ServerLive calls timing it again at the requests' cadence (FloorAtCadence),
// and the time they may take at most.
constexpr int kCadenceCalls = 500;
constexpr double kCadenceSeconds = 3;

struct Options {
  std::string url = "127.0.0.1:8001";
  std::string model;
  std::string metrics;
  int64_t batch = 1;
  int concurrency = 4;
  double seconds = 10;
  double warmup = 1;   // seconds of load before the window starts
  int channels = 0;    // 0: one per 8 clients
  bool trace = false;  // finish with one request traced by the server
  bool live = false;   // the load is ServerLive calls, not ModelInfer
  bool poll = false;   // calls finish by polling, never sleeping (FinishPolling)
  std::string http;    // HOST:PORT: requests over HTTP/REST instead of gRPC
};

int Usage() {
  std::fprintf(stderr,
               "usage: vkserve_load --url HOST:PORT --model NAME [--batch N] [--concurrency C] "
               "[--seconds S] [--warmup S] [--channels K] [--metrics http://HOST:PORT/metrics] "
               "[--trace] [--live] [--poll] [--http HOST:PORT]\n");
  return 2;
}

// p50 microseconds of `calls` empty ServerLive calls on `stub`, each after
// `gap_ms` idle (0: back to back); polled when `poll`.
double LiveP50(inference::GRPCInferenceService::Stub& stub, int calls, double gap_ms, bool poll) {
  grpc::CompletionQueue cq;
  const double p50 =
      Percentile(TimeServerLive(stub, calls, std::chrono::duration<double, std::milli>(gap_ms),
                                poll ? &cq : nullptr),
                 0.5);
  cq.Shutdown();
  void* tag;
  bool ok;
  while (cq.Next(&tag, &ok)) {
  }
  return p50;
}

// gRPC's floor at the cadence of one client's requests: the empty call again,
// each after idling as long as a request's run (the server's mean request
// time). Back to back, gRPC's threads never sleep; between real requests its
// server threads idle for the run and must be woken, which costs more the
// longer they slept (on the development machine an empty call takes 115 us
// back to back, 170 us after 1 ms idle, 273 us after 5 ms). So this, not the
// back-to-back figure, is the floor that one client's ModelInfer overhead
// reads against. A lower bound still: the client's own thread is awake when
// it sends, where a real client slept through the request.
double FloorAtCadence(inference::GRPCInferenceService::Stub& stub, double request_ms, bool poll) {
  const double gap_ms = std::min(request_ms, 20.0);
  const int calls = std::max(50, std::min(kCadenceCalls, static_cast<int>(kCadenceSeconds * 1e3 /
                                                                          std::max(gap_ms, 0.01))));
  return LiveP50(stub, calls, gap_ms, poll);
}

std::unique_ptr<inference::GRPCInferenceService::Stub> NewStub(const std::string& url, int index) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  args.SetMaxSendMessageSize(-1);
  // A connection of its own: channels with equal arguments share one.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  args.SetInt("vkserve_load.channel", index);
  return inference::GRPCInferenceService::NewStub(
      grpc::CreateCustomChannel(url, grpc::InsecureChannelCredentials(), args));
}

// A request with random inputs of the model's shapes (from ModelMetadata).
bool MakeRequest(inference::GRPCInferenceService::Stub& stub, const Options& o,
                 inference::ModelInferRequest* request) {
  inference::ModelMetadataResponse md;
  grpc::ClientContext ctx;
  inference::ModelMetadataRequest req;
  req.set_name(o.model);
  if (grpc::Status s = stub.ModelMetadata(&ctx, req, &md); !s.ok()) {
    std::fprintf(stderr, "ModelMetadata: %s\n", s.error_message().c_str());
    return false;
  }
  request->set_model_name(o.model);
  std::mt19937 rng(1);
  std::normal_distribution<float> normal;
  for (const auto& in : md.inputs()) {
    auto* t = request->add_inputs();
    t->set_name(in.name());
    t->set_datatype(in.datatype());
    int64_t count = 1;
    for (int d = 0; d < in.shape_size(); ++d) {
      const int64_t dim = in.shape(d) >= 0 ? in.shape(d) : (d == 0 ? o.batch : 1);
      t->add_shape(dim);
      count *= dim;
    }
    std::string bytes;
    if (in.datatype() == "FP32") {
      std::vector<float> data(static_cast<size_t>(count));
      for (float& x : data) x = normal(rng);
      bytes.assign(reinterpret_cast<const char*>(data.data()), data.size() * sizeof(float));
    } else if (in.datatype() == "INT64" || in.datatype() == "INT32") {
      const size_t size = in.datatype() == "INT64" ? 8 : 4;
      bytes.assign(static_cast<size_t>(count) * size, '\0');  // token ids 0
    } else {
      std::fprintf(stderr, "input %s: datatype %s is not supported here\n", in.name().c_str(),
                   in.datatype().c_str());
      return false;
    }
    request->add_raw_input_contents(std::move(bytes));
  }
  return true;
}

// One client call: ServerLive with --live, else ModelInfer (`request`);
// finished by polling `cq` with --poll, else blocking.
grpc::Status Call(inference::GRPCInferenceService::Stub& stub, const Options& o,
                  const inference::ModelInferRequest& request, grpc::ClientContext* ctx,
                  inference::ModelInferResponse* resp, inference::ServerLiveResponse* live,
                  grpc::CompletionQueue* cq) {
  using vkserve_bench::FinishPolling;
  if (o.live) {
    return o.poll ? FinishPolling(*stub.AsyncServerLive(ctx, inference::ServerLiveRequest(), cq),
                                  live, cq)
                  : stub.ServerLive(ctx, inference::ServerLiveRequest(), live);
  }
  return o.poll ? FinishPolling(*stub.AsyncModelInfer(ctx, request, cq), resp, cq)
                : stub.ModelInfer(ctx, request, resp);
}

// What the clients measured in the window.
struct ClientFigures {
  std::vector<double> latencies_ms;  // completed in the window
  int failures = 0;
  double window_s = 0;
};

// C clients in a closed loop for warmup + seconds; latencies of requests
// sent and completed inside the window. `at_window_start` runs (once) when
// the window opens: the first scrape.
ClientFigures RunClients(const Options& o,
                         std::vector<std::unique_ptr<inference::GRPCInferenceService::Stub>>& stubs,
                         const inference::ModelInferRequest& request,
                         const std::function<void()>& at_window_start) {
  std::vector<std::vector<double>> latencies(static_cast<size_t>(o.concurrency));
  const vkserve_bench::HttpInferBody http_body =
      o.http.empty() ? vkserve_bench::HttpInferBody() : vkserve_bench::EncodeHttpInfer(request);
  std::atomic<int> failures{0};
  const auto seconds = [](double s) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  };
  const auto start = Clock::now();
  const auto window_start = start + seconds(o.warmup);
  const auto stop = window_start + seconds(o.seconds);
  std::vector<std::thread> threads;
  for (int c = 0; c < o.concurrency; ++c) {
    threads.emplace_back([&, c] {
      auto& stub = *stubs[static_cast<size_t>(c) % stubs.size()];
      grpc::CompletionQueue cq;  // --poll: this thread's calls only
      std::unique_ptr<vkserve_bench::HttpInferClient> http;
      if (!o.http.empty()) http = std::make_unique<vkserve_bench::HttpInferClient>(o.http);
      while (Clock::now() < stop) {
        grpc::ClientContext ctx;
        inference::ModelInferResponse resp;
        inference::ServerLiveResponse live;
        std::string error;
        const auto t0 = Clock::now();
        const bool ok = http != nullptr ? http->Infer(http_body, &error) : [&] {
          grpc::Status s = Call(stub, o, request, &ctx, &resp, &live, &cq);
          error = s.error_message();
          return s.ok();
        }();
        const auto t1 = Clock::now();
        if (!ok) {
          if (failures.fetch_add(1) == 0)
            std::fprintf(stderr, "%s: %s\n",
                         http != nullptr ? "HTTP infer"
                         : o.live        ? "ServerLive"
                                         : "ModelInfer",
                         error.c_str());
        } else if (t0 >= window_start && t1 <= stop) {
          latencies[static_cast<size_t>(c)].push_back(
              std::chrono::duration<double, std::milli>(t1 - t0).count());
        }
      }
      cq.Shutdown();
      void* tag;
      bool ok;
      while (cq.Next(&tag, &ok)) {
      }
    });
  }
  std::this_thread::sleep_until(window_start);
  at_window_start();
  for (auto& t : threads) t.join();
  ClientFigures f;
  for (const auto& l : latencies) f.latencies_ms.insert(f.latencies_ms.end(), l.begin(), l.end());
  f.failures = failures.load();
  f.window_s = o.seconds;
  return f;
}

// The server's figures over the window, from two scrapes of /metrics.
// Returns the server's mean request time in ms (0 when /metrics counted none).
double PrintServer(const Options& o, const std::string& before, const std::string& after,
                   const ClientFigures& client, std::string* summary) {
  const std::string model_label = absl::StrCat("model=\"", o.model, "\"");
  auto delta = [&](const std::string& name, std::vector<std::string> labels) {
    labels.push_back(model_label);
    return SumSamples(after, name, labels) - SumSamples(before, name, labels);
  };
  const double n = delta("vkserve_request_duration_seconds_count", {});
  if (n <= 0) {
    std::fprintf(stderr, "no requests counted at %s\n", o.metrics.c_str());
    return 0;
  }
  const double request_ms = delta("vkserve_request_duration_seconds_sum", {}) / n * 1e3;
  std::printf("server (from /metrics, %.0f requests): mean ms per request\n", n);
  std::printf("| phase | ms | share of request |\n|---|---|---|\n");
  double host = 0;
  for (const char* phase : {"queue", "upload", "record", "submit", "gpu", "wait", "readback"}) {
    const double ms =
        delta("vkserve_phase_duration_seconds_sum", {absl::StrCat("phase=\"", phase, "\"")}) / n *
        1e3;
    if (std::string(phase) != "gpu" && std::string(phase) != "queue") host += ms;
    std::printf("| %s | %.4f | %.1f%% |\n", phase, ms, 100.0 * ms / request_ms);
  }
  const double queue_ms =
      delta("vkserve_phase_duration_seconds_sum", {"phase=\"queue\""}) / n * 1e3;
  const double gpu_ms = delta("vkserve_phase_duration_seconds_sum", {"phase=\"gpu\""}) / n * 1e3;
  std::printf("| request | %.4f | 100%% |\n", request_ms);
  std::printf("upload+record+submit+wait+readback = %.4f ms = %.1f%% of request - queue\n", host,
              100.0 * host / (request_ms - queue_ms));
  // gRPC overhead: what the client waited beyond the server's request time.
  double mean_ms = 0;
  for (double v : client.latencies_ms) mean_ms += v;
  mean_ms /= std::max<size_t>(client.latencies_ms.size(), 1);
  const double p50 = Percentile(client.latencies_ms, 0.5);
  std::printf(
      "grpc overhead: client p50 - server mean request %.1f us; client mean - server mean %.1f "
      "us\n",
      (p50 - request_ms) * 1e3, (mean_ms - request_ms) * 1e3);

  const double executions = delta("vkserve_batch_size_count", {});
  const double inferences = delta("vkserve_batch_size_sum", {});
  const double replayed = delta("vkserve_runs_total", {"command_buffer=\"replayed\""});
  std::printf(
      "executions %.0f for %.0f requests: %.2f inferences per execution; replayed runs %.0f of "
      "%.0f; bytes/execution up %.0f down %.0f; cpu nodes %.0f\n",
      executions, n, executions > 0 ? inferences / executions : 0.0, replayed, executions,
      executions > 0
          ? delta("vkserve_transferred_bytes_total", {"direction=\"host_to_gpu\""}) / executions
          : 0.0,
      executions > 0
          ? delta("vkserve_transferred_bytes_total", {"direction=\"gpu_to_host\""}) / executions
          : 0.0,
      SumSamples(after, "vkserve_model_nodes", {model_label, "device=\"cpu\""}));
  // The histogram's cumulative buckets, as counts per range.
  std::printf("batch sizes (executions per vkserve_batch_size bucket):");
  double below = 0;
  std::string lower = "0";
  for (const char* le :
       {"1", "2", "4", "8", "16", "32", "64", "128", "256", "512", "1024", "+Inf"}) {
    const double cumulative = delta("vkserve_batch_size_bucket", {absl::StrCat("le=\"", le, "\"")});
    if (cumulative - below > 0)
      std::printf(" (%s,%s]: %.0f", lower.c_str(), le, cumulative - below);
    below = cumulative;
    lower = le;
  }
  const double delay_ms =
      executions > 0 ? delta("vkserve_batch_queue_delay_seconds_sum", {}) / executions * 1e3 : 0.0;
  std::printf("\nbatch forming: oldest request waited %.4f ms per execution (mean)\n", delay_ms);
  absl::StrAppend(summary, " server_request_ms=", request_ms, " server_queue_ms=", queue_ms,
                  " server_gpu_ms=", gpu_ms, " grpc_overhead_p50_us=", (p50 - request_ms) * 1e3,
                  " grpc_overhead_mean_us=", (mean_ms - request_ms) * 1e3,
                  " executions=", executions,
                  " inferences_per_execution=", executions > 0 ? inferences / executions : 0.0,
                  " batch_forming_ms=", delay_ms);
  return request_ms;
}

// The command line into `o`; false on a bad or missing argument.
bool ParseOptions(int argc, char** argv, Options* out) {
  Options& o = *out;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--trace") {
      o.trace = true;
      continue;
    }
    if (a == "--live") {
      o.live = true;
      continue;
    }
    if (a == "--poll") {
      o.poll = true;
      continue;
    }
    if (i + 1 >= argc) return false;
    const std::string v = argv[++i];
    if (a == "--url") {
      o.url = v;
    } else if (a == "--model") {
      o.model = v;
    } else if (a == "--metrics") {
      o.metrics = v;
    } else if (a == "--batch") {
      if (!absl::SimpleAtoi(v, &o.batch) || o.batch < 1) return false;
    } else if (a == "--concurrency") {
      if (!absl::SimpleAtoi(v, &o.concurrency) || o.concurrency < 1) return false;
    } else if (a == "--seconds") {
      if (!absl::SimpleAtod(v, &o.seconds) || o.seconds <= 0) return false;
    } else if (a == "--warmup") {
      if (!absl::SimpleAtod(v, &o.warmup) || o.warmup < 0) return false;
    } else if (a == "--http") {
      o.http = v;
    } else if (a == "--channels") {
      if (!absl::SimpleAtoi(v, &o.channels) || o.channels < 1) return false;
    } else {
      return false;
    }
  }
  return !o.model.empty();
}

// A first request on every connection (and the model's first runs).
bool WarmUp(const std::vector<std::unique_ptr<inference::GRPCInferenceService::Stub>>& stubs,
            const inference::ModelInferRequest& request) {
  for (const auto& stub : stubs) {
    grpc::ClientContext ctx;
    inference::ModelInferResponse resp;
    if (grpc::Status s = stub->ModelInfer(&ctx, request, &resp); !s.ok()) {
      std::fprintf(stderr, "ModelInfer: %s\n", s.error_message().c_str());
      return false;
    }
  }
  return true;
}

// Prints what the clients saw; returns the summary line's start.
std::string PrintClients(const Options& o, int channels, const ClientFigures& client,
                         double floor_us) {
  const std::vector<double>& all = client.latencies_ms;
  double mean = 0;
  for (double v : all) mean += v;
  mean /= std::max<size_t>(all.size(), 1);
  const double rps = static_cast<double>(all.size()) / client.window_s;
  std::printf(
      "model %s, batch %lld, concurrency %d, channels %d, window %.1f s after %.1f s warm-up\n",
      o.model.c_str(), static_cast<long long>(o.batch), o.concurrency, channels, client.window_s,
      o.warmup);
  std::printf(
      "client: %zu requests, %d failed, throughput %.1f req/s, %.1f infer/s; latency ms avg %.3f "
      "p50 %.3f p90 %.3f p95 %.3f p99 %.3f\n",
      all.size(), client.failures, rps, rps * static_cast<double>(o.batch), mean,
      Percentile(all, 0.5), Percentile(all, 0.9), Percentile(all, 0.95), Percentile(all, 0.99));
  std::printf("grpc floor: an empty ServerLive call, p50 of %d back to back: %.1f us\n",
              kFloorCalls, floor_us);
  std::string summary =
      absl::StrCat("summary: model=", o.model, " batch=", o.batch, " concurrency=", o.concurrency,
                   " requests=", all.size(), " failed=", client.failures, " req_per_s=", rps,
                   " infer_per_s=", rps * static_cast<double>(o.batch), " avg_ms=", mean,
                   " p50_ms=", Percentile(all, 0.5), " p90_ms=", Percentile(all, 0.9),
                   " p95_ms=", Percentile(all, 0.95), " p99_ms=", Percentile(all, 0.99),
                   " grpc_floor_p50_us=", floor_us);
  if (o.live) absl::StrAppend(&summary, " rpc=ServerLive");
  if (o.poll) absl::StrAppend(&summary, " client=polling");
  absl::StrAppend(&summary, o.http.empty() ? " protocol=grpc" : " protocol=http");
  return summary;
}

// One more request with tracing on; prints the trace file's path.
void PrintTrace(inference::GRPCInferenceService::Stub& stub,
                const inference::ModelInferRequest& request) {
  grpc::ClientContext ctx;
  inference::ModelInferResponse resp;
  inference::ModelInferRequest traced = request;
  (*traced.mutable_parameters())["vkserve_trace"].set_bool_param(true);
  grpc::Status s = stub.ModelInfer(&ctx, traced, &resp);
  auto it = resp.parameters().find("vkserve_trace_path");
  std::printf("trace: %s\n", !s.ok()                         ? s.error_message().c_str()
                             : it == resp.parameters().end() ? "(none)"
                                                             : it->second.string_param().c_str());
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!ParseOptions(argc, argv, &o)) return Usage();

  std::vector<std::unique_ptr<inference::GRPCInferenceService::Stub>> stubs;
  const int channels = o.channels > 0 ? o.channels : (o.concurrency + 7) / 8;
  for (int i = 0; i < channels; ++i) stubs.push_back(NewStub(o.url, i));
  inference::ModelInferRequest request;
  if (!MakeRequest(*stubs[0], o, &request) || !WarmUp(stubs, request)) return 1;
  // gRPC's own floor on this connection: an empty unary call (ServerLive)
  // back to back, so the overhead below can be read against it.
  const double floor_us = LiveP50(*stubs[0], kFloorCalls, 0, o.poll);

  std::string before;
  const ClientFigures client = RunClients(o, stubs, request, [&] {
    if (!o.metrics.empty()) before = HttpGet(o.metrics);
  });
  const std::string after = o.metrics.empty() ? "" : HttpGet(o.metrics);
  std::string summary = PrintClients(o, channels, client, floor_us);
  if (o.trace) PrintTrace(*stubs[0], request);
  if (!o.metrics.empty() && !o.live) {
    const double request_ms = PrintServer(o, before, after, client, &summary);
    if (o.concurrency == 1 && request_ms > 0) {
      const double cadence_us = FloorAtCadence(*stubs[0], request_ms, o.poll);
      std::printf(
          "grpc floor at this cadence: the empty call after %.3f ms idle, p50 %.1f us; "
          "overhead above it %.1f us\n",
          std::min(request_ms, 20.0), cadence_us,
          (Percentile(client.latencies_ms, 0.5) - request_ms) * 1e3 - cadence_us);
      absl::StrAppend(&summary, " grpc_floor_cadence_p50_us=", cadence_us);
    }
  }
  std::printf("%s\n", summary.c_str());
  return client.failures == 0 && !client.latencies_ms.empty() ? 0 : 1;
}
