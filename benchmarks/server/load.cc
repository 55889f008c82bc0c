// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// vkserve_load: a closed-loop gRPC load generator for a running vkserve (or
// any KServe v2 server). C clients each send ModelInfer requests with random
// inputs back to back for S seconds; it prints client-side throughput and
// latency percentiles and, when given the metrics URL, the server's own split
// of the same requests from two scrapes of /metrics (before and after): mean
// seconds per request in each phase. That split is what the Grafana
// dashboard stacks, so this run is the dashboard's figures in a table.
//
//   vkserve_load --url 127.0.0.1:8001 --model NAME [--batch N]
//       [--concurrency C] [--seconds S] [--metrics http://127.0.0.1:8002/metrics]
//       [--trace]    (then one request with vkserve_trace; prints the trace's path)
//
// Input shapes come from ModelMetadata (-1 dimensions take --batch, then 1).
#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "grpcpp/grpcpp.h"
#include "proto/grpc_service.grpc.pb.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string url = "127.0.0.1:8001";
  std::string model;
  std::string metrics;
  int64_t batch = 1;
  int concurrency = 4;
  double seconds = 10;
  bool trace = false;  // finish with one request traced by the server
};

int Usage() {
  std::fprintf(stderr,
               "usage: vkserve_load --url HOST:PORT --model NAME [--batch N] [--concurrency C] "
               "[--seconds S] [--metrics http://HOST:PORT/metrics] [--trace]\n");
  return 2;
}

// GET http://host:port/path over a plain socket (the metrics endpoint
// speaks HTTP/1.1 and closes after an HTTP/1.0 request).
std::string HttpGet(const std::string& url) {
  std::string rest = url.rfind("http://", 0) == 0 ? url.substr(7) : url;
  const size_t slash = rest.find('/');
  const std::string hostport = rest.substr(0, slash);
  const std::string path = slash == std::string::npos ? "/" : rest.substr(slash);
  const size_t colon = hostport.rfind(':');
  const std::string host = hostport.substr(0, colon);
  const std::string port = colon == std::string::npos ? "80" : hostport.substr(colon + 1);
  addrinfo hints{}, *res = nullptr;
  hints.ai_socktype = SOCK_STREAM;
  if (getaddrinfo(host.c_str(), port.c_str(), &hints, &res) != 0) return "";
  const int fd = socket(res->ai_family, res->ai_socktype, res->ai_protocol);
  std::string out;
  if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) == 0) {
    const std::string req = absl::StrCat("GET ", path, " HTTP/1.0\r\nHost: ", hostport, "\r\n\r\n");
    if (write(fd, req.data(), req.size()) == static_cast<ssize_t>(req.size())) {
      char buf[65536];
      ssize_t n;
      while ((n = read(fd, buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
    }
  }
  if (fd >= 0) close(fd);
  freeaddrinfo(res);
  return out;
}

// Sums every sample of `name` whose labels contain all of `labels`.
double Sample(const std::string& text, const std::string& name,
              const std::vector<std::string>& labels) {
  double total = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (line.empty() || line[0] == '#') continue;
    if (line.substr(0, name.size()) != name) continue;
    if (line.size() <= name.size() || (line[name.size()] != '{' && line[name.size()] != ' ')) continue;
    bool all = true;
    for (const std::string& l : labels) all = all && line.find(l) != absl::string_view::npos;
    if (!all) continue;
    double v = 0;
    const size_t space = line.rfind(' ');
    if (absl::SimpleAtod(line.substr(space + 1), &v)) total += v;
  }
  return total;
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t i = std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5));
  return v[i];
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--trace") {
      o.trace = true;
      continue;
    }
    if (i + 1 >= argc) return Usage();
    const std::string v = argv[++i];
    if (a == "--url") {
      o.url = v;
    } else if (a == "--model") {
      o.model = v;
    } else if (a == "--metrics") {
      o.metrics = v;
    } else if (a == "--batch") {
      if (!absl::SimpleAtoi(v, &o.batch) || o.batch < 1) return Usage();
    } else if (a == "--concurrency") {
      if (!absl::SimpleAtoi(v, &o.concurrency) || o.concurrency < 1) return Usage();
    } else if (a == "--seconds") {
      if (!absl::SimpleAtod(v, &o.seconds) || o.seconds <= 0) return Usage();
    } else {
      return Usage();
    }
  }
  if (o.model.empty()) return Usage();

  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  args.SetMaxSendMessageSize(-1);
  auto channel = grpc::CreateCustomChannel(o.url, grpc::InsecureChannelCredentials(), args);
  auto stub = inference::GRPCInferenceService::NewStub(channel);

  inference::ModelMetadataResponse md;
  {
    grpc::ClientContext ctx;
    inference::ModelMetadataRequest req;
    req.set_name(o.model);
    grpc::Status s = stub->ModelMetadata(&ctx, req, &md);
    if (!s.ok()) {
      std::fprintf(stderr, "ModelMetadata: %s\n", s.error_message().c_str());
      return 1;
    }
  }
  inference::ModelInferRequest request;
  request.set_model_name(o.model);
  std::mt19937 rng(1);
  std::normal_distribution<float> normal;
  for (const auto& in : md.inputs()) {
    auto* t = request.add_inputs();
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
      return 1;
    }
    request.add_raw_input_contents(std::move(bytes));
  }

  // Warm up (first runs record command buffers), then scrape, then load.
  for (int i = 0; i < 3; ++i) {
    grpc::ClientContext ctx;
    inference::ModelInferResponse resp;
    grpc::Status s = stub->ModelInfer(&ctx, request, &resp);
    if (!s.ok()) {
      std::fprintf(stderr, "ModelInfer: %s\n", s.error_message().c_str());
      return 1;
    }
  }
  const std::string before = o.metrics.empty() ? "" : HttpGet(o.metrics);

  std::vector<std::vector<double>> latencies(static_cast<size_t>(o.concurrency));
  std::atomic<int> failures{0};
  const auto start = Clock::now();
  const auto stop = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.seconds));
  std::vector<std::thread> threads;
  for (int c = 0; c < o.concurrency; ++c) {
    threads.emplace_back([&, c] {
      while (Clock::now() < stop) {
        grpc::ClientContext ctx;
        inference::ModelInferResponse resp;
        const auto t0 = Clock::now();
        grpc::Status s = stub->ModelInfer(&ctx, request, &resp);
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        if (s.ok()) {
          latencies[static_cast<size_t>(c)].push_back(ms);
        } else if (failures.fetch_add(1) == 0) {
          std::fprintf(stderr, "ModelInfer: %s\n", s.error_message().c_str());
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  std::vector<double> all;
  for (const auto& l : latencies) all.insert(all.end(), l.begin(), l.end());

  std::printf("model %s, batch %lld, concurrency %d, %.1f s\n", o.model.c_str(),
              static_cast<long long>(o.batch), o.concurrency, elapsed);
  std::printf("client: %zu requests, %d failed, %.1f req/s, %.1f inferences/s; latency ms p50 %.3f "
              "p90 %.3f p99 %.3f\n",
              all.size(), failures.load(), static_cast<double>(all.size()) / elapsed,
              static_cast<double>(all.size()) * static_cast<double>(o.batch) / elapsed,
              Percentile(all, 0.5), Percentile(all, 0.9), Percentile(all, 0.99));
  if (o.trace) {
    grpc::ClientContext ctx;
    inference::ModelInferResponse resp;
    inference::ModelInferRequest traced = request;
    (*traced.mutable_parameters())["vkserve_trace"].set_bool_param(true);
    grpc::Status s = stub->ModelInfer(&ctx, traced, &resp);
    auto it = resp.parameters().find("vkserve_trace_path");
    std::printf("trace: %s\n", !s.ok() ? s.error_message().c_str()
                                       : it == resp.parameters().end() ? "(none)"
                                                                       : it->second.string_param().c_str());
  }
  if (o.metrics.empty()) return failures.load() == 0 ? 0 : 1;

  const std::string after = HttpGet(o.metrics);
  const std::string model_label = absl::StrCat("model=\"", o.model, "\"");
  auto delta = [&](const std::string& name, std::vector<std::string> labels) {
    labels.push_back(model_label);
    return Sample(after, name, labels) - Sample(before, name, labels);
  };
  const double n = delta("vkserve_request_duration_seconds_count", {});
  if (n <= 0) {
    std::fprintf(stderr, "no requests counted at %s\n", o.metrics.c_str());
    return 1;
  }
  const double request_ms = delta("vkserve_request_duration_seconds_sum", {}) / n * 1e3;
  std::printf("server (from /metrics, %.0f requests): mean ms per request\n", n);
  std::printf("| phase | ms | share of request |\n|---|---|---|\n");
  double host = 0;
  for (const char* phase : {"queue", "upload", "record", "submit", "gpu", "wait", "readback"}) {
    const double ms = delta("vkserve_phase_duration_seconds_sum", {absl::StrCat("phase=\"", phase, "\"")}) / n * 1e3;
    if (std::string(phase) != "gpu" && std::string(phase) != "queue") host += ms;
    std::printf("| %s | %.4f | %.1f%% |\n", phase, ms, 100.0 * ms / request_ms);
  }
  const double queue_ms = delta("vkserve_phase_duration_seconds_sum", {"phase=\"queue\""}) / n * 1e3;
  std::printf("| request | %.4f | 100%% |\n", request_ms);
  std::printf("upload+record+submit+wait+readback = %.4f ms = %.1f%% of request - queue\n", host,
              100.0 * host / (request_ms - queue_ms));
  const double replayed = delta("vkserve_runs_total", {"command_buffer=\"replayed\""});
  std::printf("replayed runs %.0f of %.0f; bytes/request up %.0f down %.0f; cpu nodes %.0f\n", replayed, n,
              delta("vkserve_transferred_bytes_total", {"direction=\"host_to_gpu\""}) / n,
              delta("vkserve_transferred_bytes_total", {"direction=\"gpu_to_host\""}) / n,
              Sample(after, "vkserve_model_nodes", {model_label, "device=\"cpu\""}));
  return failures.load() == 0 ? 0 : 1;
}
