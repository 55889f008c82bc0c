// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// vkserve_soak: hours-in-minutes for a running vkserve. C clients send a mix
// for S seconds — good requests whose outputs are checked (x + 1 on a light
// model, exact; a heavy model compared with its first answer), large batches,
// bad requests of many kinds (each must be refused with the expected code),
// and requests to a model that another thread reloads every R seconds —
// while a sampler records the server's RSS (/proc/PID/status) and GPU memory
// (/metrics) every few seconds. It prints the time series and a summary and
// exits 1 when a good request failed or a bad one was accepted.
//
//   vkserve_soak --url 127.0.0.1:8001 --metrics http://127.0.0.1:8002/metrics
//       --pid SERVER_PID [--clients 64] [--seconds 600] [--sample-seconds 10]
//       [--light addone] [--reloaded reloaded] [--reload-every 5]
//       [--large-rows 65536] [--heavy MODEL --heavy-input NAME --heavy-shape 1,3,224,224]
//
// The light and reloaded models take x FP32 [N,4] and answer y = x + 1
// (benchmarks/server/soak.sh writes them).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "benchmarks/server/metrics_scrape.h"
#include "grpcpp/grpcpp.h"
#include "proto/grpc_service.grpc.pb.h"

namespace {

using Clock = std::chrono::steady_clock;
using inference::GRPCInferenceService;
using inference::ModelInferRequest;
using inference::ModelInferResponse;

struct Options {
  std::string url = "127.0.0.1:8001";
  std::string metrics;
  int pid = 0;
  int clients = 64;
  double seconds = 600;
  double sample_seconds = 10;
  std::string light = "addone";
  std::string reloaded = "reloaded";
  double reload_every = 5;
  int64_t large_rows = 65536;
  std::string heavy, heavy_input;
  std::vector<int64_t> heavy_shape;
};

// What the run counted; every field is updated atomically.
struct Counts {
  std::atomic<uint64_t> good{0}, good_failed{0};
  std::atomic<uint64_t> large{0}, large_failed{0};
  std::atomic<uint64_t> heavy{0}, heavy_failed{0};
  std::atomic<uint64_t> bad{0}, bad_accepted{0}, bad_unexpected{0};
  std::atomic<uint64_t> reloaded_ok{0}, reloaded_unavailable{0}, reloaded_failed{0};
  std::atomic<uint64_t> reloads{0}, reloads_failed{0};
};

std::mutex log_mutex;
void Log(const std::string& line) {
  std::lock_guard<std::mutex> lock(log_mutex);
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

ModelInferRequest AddOneRequest(const std::string& model, int64_t rows, float base) {
  ModelInferRequest r;
  r.set_model_name(model);
  auto* in = r.add_inputs();
  in->set_name("x");
  in->set_datatype("FP32");
  in->add_shape(rows);
  in->add_shape(4);
  std::vector<float> x(static_cast<size_t>(rows * 4));
  for (size_t i = 0; i < x.size(); ++i) x[i] = base + static_cast<float>(i % 1000);
  r.add_raw_input_contents(std::string(reinterpret_cast<const char*>(x.data()), x.size() * 4));
  return r;
}

// OK only when the answer is exactly x + 1.
grpc::Status CheckAddOne(const ModelInferRequest& r, const ModelInferResponse& resp) {
  if (resp.raw_output_contents_size() != 1)
    return grpc::Status(grpc::StatusCode::DATA_LOSS, "no output");
  const std::string& in = r.raw_input_contents(0);
  const std::string& out = resp.raw_output_contents(0);
  if (in.size() != out.size()) return grpc::Status(grpc::StatusCode::DATA_LOSS, "output size");
  for (size_t i = 0; i < in.size(); i += 4) {
    float x, y;
    std::memcpy(&x, in.data() + i, 4);
    std::memcpy(&y, out.data() + i, 4);
    if (y != x + 1.0f) return grpc::Status(grpc::StatusCode::DATA_LOSS, "wrong value");
  }
  return grpc::Status::OK;
}

// Bad requests and the codes a correct server answers them with.
struct BadRequest {
  const char* kind;
  ModelInferRequest request;
  std::vector<grpc::StatusCode> codes;
};

std::vector<BadRequest> BadRequests(const std::string& light) {
  using C = grpc::StatusCode;
  std::vector<BadRequest> bad;
  auto base = [&] { return AddOneRequest(light, 2, 0); };
  {
    BadRequest b{"unknown model", base(), {C::NOT_FOUND}};
    b.request.set_model_name("no_such_model");
    bad.push_back(b);
  }
  {
    BadRequest b{"huge model name", base(), {C::NOT_FOUND, C::INVALID_ARGUMENT}};
    b.request.set_model_name(std::string(100000, 'm'));
    bad.push_back(b);
  }
  {
    BadRequest b{"wrong datatype", base(), {C::INVALID_ARGUMENT}};
    b.request.mutable_inputs(0)->set_datatype("INT32");
    bad.push_back(b);
  }
  {
    BadRequest b{"short raw bytes", base(), {C::INVALID_ARGUMENT}};
    b.request.mutable_raw_input_contents(0)->resize(12);
    bad.push_back(b);
  }
  {
    BadRequest b{"negative dimension", base(), {C::INVALID_ARGUMENT}};
    b.request.mutable_inputs(0)->set_shape(0, -3);
    bad.push_back(b);
  }
  {
    BadRequest b{"enormous shape", base(), {C::INVALID_ARGUMENT}};
    b.request.mutable_inputs(0)->set_shape(0, int64_t{1} << 40);
    bad.push_back(b);
  }
  {
    BadRequest b{"unknown input", base(), {C::INVALID_ARGUMENT}};
    b.request.mutable_inputs(0)->set_name("nope");
    bad.push_back(b);
  }
  {
    BadRequest b{"unknown GPU handle", base(), {C::NOT_FOUND}};
    b.request.clear_raw_input_contents();
    (*b.request.mutable_inputs(0)->mutable_parameters())["vkserve_gpu_handle"].set_string_param(
        std::string(5000, 'h'));
    bad.push_back(b);
  }
  {
    BadRequest b{"unregistered shared memory",
                 base(),
                 {C::NOT_FOUND, C::INVALID_ARGUMENT, C::FAILED_PRECONDITION}};
    b.request.clear_raw_input_contents();
    auto& p = *b.request.mutable_inputs(0)->mutable_parameters();
    p["shared_memory_region"].set_string_param("nowhere");
    p["shared_memory_byte_size"].set_int64_param(32);
    bad.push_back(b);
  }
  {
    BadRequest b{"bad version", base(), {C::INVALID_ARGUMENT, C::NOT_FOUND}};
    b.request.set_model_version("-7");
    bad.push_back(b);
  }
  return bad;
}

std::unique_ptr<grpc::ClientContext> Context(double seconds) {
  auto ctx = std::make_unique<grpc::ClientContext>();
  ctx->set_deadline(std::chrono::system_clock::now() +
                    std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000)));
  return ctx;
}

class Soak {
 public:
  explicit Soak(Options o) : o_(std::move(o)) {}

  bool Run();

 private:
  void Client(int index, Clock::time_point end);
  void Heavy(GRPCInferenceService::Stub& stub);
  void Reloader(Clock::time_point end);
  void Sampler(Clock::time_point start, Clock::time_point end);
  void Fail(uint64_t n, const std::string& what, const grpc::Status& s);

  // A connection of its own for client `index` (-1: the reloader), as
  // separate client processes would have.
  std::unique_ptr<GRPCInferenceService::Stub> Connect(int index) const;

  const Options o_;
  Counts counts_;
  std::mutex heavy_mutex_;
  std::string heavy_reference_;  // first answer's bytes
  std::atomic<int> failures_logged_{0};
  struct Point {
    double t, rss_mb, gpu_mb;
    double anon_mb, file_mb, shmem_mb;  // VmRSS's split (/proc)
    double heap_used_mb, heap_free_mb;  // malloc's view (vkserve_host_heap_bytes)
  };
  std::vector<Point> points_;
};

void Soak::Fail(uint64_t n, const std::string& what, const grpc::Status& s) {
  if (n > 0 || failures_logged_.fetch_add(1) >= 20) return;
  Log(absl::StrCat("FAIL ", what, ": ", s.error_code(), " ", s.error_message().substr(0, 200)));
}

std::unique_ptr<GRPCInferenceService::Stub> Soak::Connect(int index) const {
  grpc::ChannelArguments args;
  args.SetMaxSendMessageSize(-1);
  args.SetMaxReceiveMessageSize(-1);
  args.SetInt("vkserve.soak_client", index);  // distinct arguments: a distinct connection
  return GRPCInferenceService::NewStub(
      grpc::CreateCustomChannel(o_.url, grpc::InsecureChannelCredentials(), args));
}

void Soak::Client(int index, Clock::time_point end) {
  auto stub = Connect(index);
  std::mt19937 rng(static_cast<uint32_t>(1234 + index));
  const std::vector<BadRequest> bad = BadRequests(o_.light);
  std::uniform_int_distribution<int> pick(0, 99), rows(1, 16);
  while (Clock::now() < end) {
    const int p = pick(rng);
    ModelInferResponse resp;
    if (p < 45 || (p < 60 && o_.heavy.empty())) {
      const ModelInferRequest r = AddOneRequest(o_.light, rows(rng), static_cast<float>(index));
      grpc::Status s = stub->ModelInfer(Context(60).get(), r, &resp);
      if (s.ok()) s = CheckAddOne(r, resp);
      ++counts_.good;
      if (!s.ok()) Fail(counts_.good_failed++, "good request", s);
    } else if (p < 60) {
      Heavy(*stub);
    } else if (p < 63) {
      const ModelInferRequest r = AddOneRequest(o_.light, o_.large_rows, 0.5f);
      grpc::Status s = stub->ModelInfer(Context(120).get(), r, &resp);
      if (s.ok()) s = CheckAddOne(r, resp);
      ++counts_.large;
      if (!s.ok()) Fail(counts_.large_failed++, "large batch", s);
    } else if (p < 88) {
      const BadRequest& b = bad[static_cast<size_t>(pick(rng)) % bad.size()];
      const grpc::Status s = stub->ModelInfer(Context(60).get(), b.request, &resp);
      ++counts_.bad;
      if (s.ok()) {
        Fail(counts_.bad_accepted++, absl::StrCat("bad request accepted (", b.kind, ")"), s);
      } else if (std::find(b.codes.begin(), b.codes.end(), s.error_code()) == b.codes.end()) {
        Fail(counts_.bad_unexpected++, absl::StrCat("bad request, unexpected code (", b.kind, ")"),
             s);
      }
    } else {
      const ModelInferRequest r = AddOneRequest(o_.reloaded, rows(rng), 3);
      grpc::Status s = stub->ModelInfer(Context(60).get(), r, &resp);
      if (s.ok()) s = CheckAddOne(r, resp);
      if (s.ok()) {
        ++counts_.reloaded_ok;
      } else if (s.error_code() == grpc::StatusCode::UNAVAILABLE ||
                 s.error_code() == grpc::StatusCode::NOT_FOUND) {
        ++counts_.reloaded_unavailable;  // between unload and ready: expected
      } else {
        Fail(counts_.reloaded_failed++, "request to the reloaded model", s);
      }
    }
  }
}

void Soak::Heavy(GRPCInferenceService::Stub& stub) {
  ModelInferRequest r;
  r.set_model_name(o_.heavy);
  auto* in = r.add_inputs();
  in->set_name(o_.heavy_input);
  in->set_datatype("FP32");
  int64_t n = 1;
  for (int64_t d : o_.heavy_shape) {
    in->add_shape(d);
    n *= d;
  }
  std::vector<float> x(static_cast<size_t>(n));
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(static_cast<float>(i) * 0.01f);
  r.add_raw_input_contents(std::string(reinterpret_cast<const char*>(x.data()), x.size() * 4));
  ModelInferResponse resp;
  grpc::Status s = stub.ModelInfer(Context(120).get(), r, &resp);
  ++counts_.heavy;
  if (s.ok() && resp.raw_output_contents_size() < 1)
    s = grpc::Status(grpc::StatusCode::DATA_LOSS, "no output");
  if (s.ok()) {
    std::lock_guard<std::mutex> lock(heavy_mutex_);
    const std::string& out = resp.raw_output_contents(0);
    if (heavy_reference_.empty()) heavy_reference_ = out;
    // The same input gives the same output, run after run.
    if (out != heavy_reference_)
      s = grpc::Status(grpc::StatusCode::DATA_LOSS, "heavy output changed");
  }
  if (!s.ok()) Fail(counts_.heavy_failed++, "heavy model", s);
}

void Soak::Reloader(Clock::time_point end) {
  auto stub = Connect(-1);
  while (Clock::now() < end) {
    std::this_thread::sleep_for(
        std::chrono::milliseconds(static_cast<int64_t>(o_.reload_every * 1000)));
    inference::RepositoryModelLoadRequest req;
    req.set_model_name(o_.reloaded);
    inference::RepositoryModelLoadResponse resp;
    const grpc::Status s = stub->RepositoryModelLoad(Context(120).get(), req, &resp);
    ++counts_.reloads;
    if (!s.ok()) Fail(counts_.reloads_failed++, "reload", s);
  }
}

// The server's resident set from /proc/PID/status, in MiB: VmRSS and its
// anonymous, file-backed and shared-memory parts (mapped device memory shows
// in the latter two, the heap in the first). -1 where unreadable.
struct Rss {
  double total = -1, anon = -1, file = -1, shmem = -1;
};

Rss ReadRss(int pid) {
  Rss rss;
  std::ifstream status(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  const std::pair<const char*, double Rss::*> fields[] = {{"VmRSS:", &Rss::total},
                                                          {"RssAnon:", &Rss::anon},
                                                          {"RssFile:", &Rss::file},
                                                          {"RssShmem:", &Rss::shmem}};
  while (std::getline(status, line)) {
    for (const auto& [key, field] : fields) {
      const std::string_view k(key);
      if (line.rfind(k, 0) != 0 || line.size() < k.size() + 3) continue;
      double kb = 0;
      (void)absl::SimpleAtod(
          absl::StripAsciiWhitespace(line.substr(k.size(), line.size() - k.size() - 3)), &kb);
      rss.*field = kb / 1024;
    }
  }
  return rss;
}

double HeapMiB(const std::string& metrics, const std::string& state) {
  return vkserve::bench::SumSamples(metrics, "vkserve_host_heap_bytes",
                                    {"state=\"" + state + "\""}) /
         (1 << 20);
}

void Soak::Sampler(Clock::time_point start, Clock::time_point end) {
  Log("| t (s) | server RSS (MiB) | anon / file / shmem | heap in use / free (MiB) | GPU memory "
      "(MiB, live "
      "buffers) | good | bad | reloads |");
  Log("|---|---|---|---|---|---|---|---|");
  for (;;) {
    const double t = std::chrono::duration<double>(Clock::now() - start).count();
    const std::string metrics = o_.metrics.empty() ? "" : vkserve::bench::HttpGet(o_.metrics);
    const Rss rss = o_.pid > 0 ? ReadRss(o_.pid) : Rss{};
    const Point point{t,
                      rss.total,
                      vkserve::bench::SumSamples(metrics, "vkserve_gpu_memory_bytes") / (1 << 20),
                      rss.anon,
                      rss.file,
                      rss.shmem,
                      HeapMiB(metrics, "in_use"),
                      HeapMiB(metrics, "free")};
    points_.push_back(point);
    Log(absl::StrCat("| ", static_cast<int>(t), " | ", static_cast<int>(point.rss_mb), " | ",
                     static_cast<int>(point.anon_mb), " / ", static_cast<int>(point.file_mb), " / ",
                     static_cast<int>(point.shmem_mb), " | ", static_cast<int>(point.heap_used_mb),
                     " / ", static_cast<int>(point.heap_free_mb), " | ",
                     static_cast<int>(point.gpu_mb), " | ", counts_.good.load(), " | ",
                     counts_.bad.load(), " | ", counts_.reloads.load(), " |"));
    if (Clock::now() >= end) break;
    std::this_thread::sleep_for(
        std::chrono::milliseconds(static_cast<int64_t>(o_.sample_seconds * 1000)));
  }
}

bool Soak::Run() {
  const Clock::time_point start = Clock::now();
  const Clock::time_point end =
      start + std::chrono::milliseconds(static_cast<int64_t>(o_.seconds * 1000));
  std::vector<std::thread> threads;
  for (int c = 0; c < o_.clients; ++c) threads.emplace_back([this, c, end] { Client(c, end); });
  threads.emplace_back([this, end] { Reloader(end); });
  std::thread sampler([this, start, end] { Sampler(start, end); });
  for (std::thread& t : threads) t.join();
  sampler.join();

  // Growth after warm-up: the first fifth of the run is warm-up.
  auto growth = [&](double Point::*field) {
    double warm = -1, peak = -1, last = -1;
    for (const Point& p : points_) {
      if (p.t < o_.seconds / 5) continue;
      if (warm < 0) warm = p.*field;
      peak = std::max(peak, p.*field);
      last = p.*field;
    }
    return absl::StrCat("after warm-up ", static_cast<int>(warm), " MiB, peak ",
                        static_cast<int>(peak), " MiB, end ", static_cast<int>(last), " MiB");
  };
  const Counts& c = counts_;
  Log(absl::StrCat("\nclients ", o_.clients, ", ", o_.seconds, " s"));
  Log(absl::StrCat("good requests: ", c.good.load(), " (failed ", c.good_failed.load(),
                   "); large batches of ", o_.large_rows, " rows: ", c.large.load(), " (failed ",
                   c.large_failed.load(), "); heavy model: ", c.heavy.load(), " (failed ",
                   c.heavy_failed.load(), ")"));
  Log(absl::StrCat("bad requests: ", c.bad.load(), " (accepted ", c.bad_accepted.load(),
                   ", unexpected code ", c.bad_unexpected.load(), ")"));
  Log(absl::StrCat("reloads: ", c.reloads.load(), " (failed ", c.reloads_failed.load(),
                   "); requests to the reloaded model: ", c.reloaded_ok.load(), " OK, ",
                   c.reloaded_unavailable.load(), " UNAVAILABLE/NOT_FOUND while reloading, ",
                   c.reloaded_failed.load(), " failed otherwise"));
  Log(absl::StrCat("server RSS: ", growth(&Point::rss_mb)));
  Log(absl::StrCat("  anonymous: ", growth(&Point::anon_mb), "; file-backed: ",
                   growth(&Point::file_mb), "; shared: ", growth(&Point::shmem_mb)));
  Log(absl::StrCat("  heap in use: ", growth(&Point::heap_used_mb),
                   "; heap free: ", growth(&Point::heap_free_mb)));
  Log(absl::StrCat("GPU memory: ", growth(&Point::gpu_mb)));
  const bool clean = c.good_failed == 0 && c.large_failed == 0 && c.heavy_failed == 0 &&
                     c.bad_accepted == 0 && c.bad_unexpected == 0 && c.reloaded_failed == 0 &&
                     c.reloads_failed == 0;
  Log(clean ? "RESULT: clean" : "RESULT: FAILURES");
  return clean;
}

int Usage() {
  std::fprintf(stderr,
               "usage: vkserve_soak --pid PID [--url HOST:PORT] [--metrics URL] [--clients C] "
               "[--seconds S] [--sample-seconds S] [--light M] [--reloaded M] [--reload-every S] "
               "[--large-rows N] [--heavy M --heavy-input NAME --heavy-shape D,D,...]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) return Usage();
    const std::string v = argv[++i];
    bool ok = true;
    if (flag == "--url")
      o.url = v;
    else if (flag == "--metrics")
      o.metrics = v;
    else if (flag == "--pid")
      ok = absl::SimpleAtoi(v, &o.pid);
    else if (flag == "--clients")
      ok = absl::SimpleAtoi(v, &o.clients);
    else if (flag == "--seconds")
      ok = absl::SimpleAtod(v, &o.seconds);
    else if (flag == "--sample-seconds")
      ok = absl::SimpleAtod(v, &o.sample_seconds);
    else if (flag == "--light")
      o.light = v;
    else if (flag == "--reloaded")
      o.reloaded = v;
    else if (flag == "--reload-every")
      ok = absl::SimpleAtod(v, &o.reload_every);
    else if (flag == "--large-rows")
      ok = absl::SimpleAtoi(v, &o.large_rows);
    else if (flag == "--heavy")
      o.heavy = v;
    else if (flag == "--heavy-input")
      o.heavy_input = v;
    else if (flag == "--heavy-shape") {
      for (absl::string_view d : absl::StrSplit(v, ',')) {
        int64_t n = 0;
        ok = ok && absl::SimpleAtoi(d, &n) && n > 0;
        o.heavy_shape.push_back(n);
      }
    } else {
      ok = false;
    }
    if (!ok) return Usage();
  }
  if (o.clients < 1 || o.seconds <= 0 ||
      (!o.heavy.empty() && (o.heavy_input.empty() || o.heavy_shape.empty()))) {
    return Usage();
  }
  Soak soak(o);
  return soak.Run() ? 0 : 1;
}
