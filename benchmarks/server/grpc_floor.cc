// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// vkserve_grpc_floor: what gRPC itself costs per unary call on this machine,
// by server API. The same empty ServerLive handler is served three ways in
// this process (no model, no GPU):
//
//   callback  grpc::CallbackService, as vkserve's server does;
//   sync      the synchronous API (gRPC's own polling threads run the
//             handler);
//   async     an async service whose own threads (--pollers, 2, on each of
//             --queues completion queues, 1) call CompletionQueue::Next and
//             answer on the thread that took the event;
//   spin      the async service polled by one thread that does not sleep
//             (AsyncNext with a deadline of now, in a loop): what waking
//             the server's threads costs, by its absence. With --spin-us N
//             it spins only for N us after each event, then blocks until
//             the next (the policy a server would ship: a core while
//             requests keep coming, none when they stop);
//
// and a synchronous client calls it back to back and after idling GAP
// microseconds before each call (between real requests a server's threads
// sleep for the model's run, and waking them costs more than the call).
// With --clients N it then also runs N client threads, each on its own
// connection, calling back to back for --seconds (2) and reports calls/s:
// the throughput side of the same choice (the serving target is 20,000
// req/s at 64 clients on 16 cores).
// With --client poll the client finishes each call by polling a completion
// queue without sleeping (live_calls.h's FinishPolling): what waking the
// client's thread costs, by its absence.
// The overhead target (p50 round trip minus the server's request
// time, 100 us) reads against these figures: if the callback API's floor at
// the cadence is above it and another API's is not, that API is the lever.
//
// Usage: vkserve_grpc_floor [--calls N] [--gaps 0,700,5000]
//                           [--modes callback,sync,async,spin] [--spin-us N]
//                           [--pollers N] [--queues N] [--clients N]
//                           [--seconds S] [--client block|poll]
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "benchmarks/server/live_calls.h"
#include "proto/grpc_service.grpc.pb.h"

namespace {

using inference::GRPCInferenceService;
using inference::ServerLiveRequest;
using inference::ServerLiveResponse;
using vkserve_bench::Percentile;
using vkserve_bench::TimeServerLive;
using Clock = std::chrono::steady_clock;

class CallbackLive final : public GRPCInferenceService::CallbackService {
  grpc::ServerUnaryReactor* ServerLive(grpc::CallbackServerContext* c, const ServerLiveRequest*,
                                       ServerLiveResponse* r) override {
    r->set_live(true);
    grpc::ServerUnaryReactor* reactor = c->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }
};

class SyncLive final : public GRPCInferenceService::Service {
  grpc::Status ServerLive(grpc::ServerContext*, const ServerLiveRequest*,
                          ServerLiveResponse* r) override {
    r->set_live(true);
    return grpc::Status::OK;
  }
};

// One outstanding ServerLive call of the async service: requested, then
// answered, then done (it requests its successor when it is answered).
class AsyncCall {
 public:
  AsyncCall(GRPCInferenceService::AsyncService* service, grpc::ServerCompletionQueue* cq)
      : service_(service), cq_(cq), responder_(&ctx_) {
    service_->RequestServerLive(&ctx_, &request_, &responder_, cq_, cq_, this);
  }
  // Called with this call's event from the completion queue.
  void Proceed(bool ok) {
    if (!answered_ && ok) {
      new AsyncCall(service_, cq_);
      ServerLiveResponse r;
      r.set_live(true);
      answered_ = true;
      responder_.Finish(r, grpc::Status::OK, this);
      return;
    }
    delete this;
  }

 private:
  GRPCInferenceService::AsyncService* service_;
  grpc::ServerCompletionQueue* cq_;
  grpc::ServerContext ctx_;
  ServerLiveRequest request_;
  grpc::ServerAsyncResponseWriter<ServerLiveResponse> responder_;
  bool answered_ = false;
};

// p50 and p90 microseconds of `calls` ServerLive calls, each after idling
// `gap_us`.
std::pair<double, double> Time(GRPCInferenceService::Stub& stub, int calls, int gap_us,
                               grpc::CompletionQueue* poll) {
  const std::vector<double> us =
      TimeServerLive(stub, calls, std::chrono::microseconds(gap_us), poll);
  if (us.size() < static_cast<size_t>(calls)) std::fprintf(stderr, "ServerLive failed\n");
  return {Percentile(us, 0.5), Percentile(us, 0.9)};
}

// Calls per second of `clients` threads, each on its own connection to
// `target`, calling ServerLive back to back for `seconds`.
double Throughput(const std::string& target, int clients, double seconds) {
  std::atomic<uint64_t> total{0};
  std::vector<std::thread> threads;
  const auto stop = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(seconds));
  for (int i = 0; i < clients; ++i) {
    threads.emplace_back([&, i] {
      grpc::ChannelArguments args;
      args.SetInt("vkserve.floor_client", i);  // a connection of its own
      auto stub = GRPCInferenceService::NewStub(
          grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args));
      uint64_t n = 0;
      while (Clock::now() < stop) {
        grpc::ClientContext context;
        ServerLiveRequest req;
        ServerLiveResponse resp;
        if (!stub->ServerLive(&context, req, &resp).ok()) break;
        ++n;
      }
      total.fetch_add(n);
    });
  }
  for (std::thread& t : threads) t.join();
  return static_cast<double>(total.load()) / seconds;
}

struct Options {
  int calls = 2000;
  int spin_us = 0;
  int pollers = 2;
  int queues = 1;
  int clients = 0;
  double seconds = 2;
  bool poll_client = false;  // --client poll
  std::vector<int> gaps = {0, 700, 5000};
};

// Serves ServerLive the `mode` way on an ephemeral port and times it at
// every gap. Returns false when the mode is unknown or the server fails.
// Serves `q`'s calls until it shuts down: blocked in Next, or (`spin`)
// polling with AsyncNext for `spin_us` after each event (always when
// `spin_us` <= 0) before blocking again.
void Poll(grpc::ServerCompletionQueue* q, bool spin, int spin_us) {
  void* tag = nullptr;
  bool ok = false;
  if (!spin) {
    while (q->Next(&tag, &ok)) static_cast<AsyncCall*>(tag)->Proceed(ok);
    return;
  }
  auto last_event = Clock::now();
  for (;;) {
    const bool spinning =
        spin_us <= 0 || Clock::now() - last_event < std::chrono::microseconds(spin_us);
    const auto deadline = spinning ? std::chrono::system_clock::now()
                                   : std::chrono::system_clock::now() + std::chrono::hours(1);
    const auto status = q->AsyncNext(&tag, &ok, deadline);
    if (status == grpc::CompletionQueue::SHUTDOWN) return;
    if (status == grpc::CompletionQueue::GOT_EVENT) {
      static_cast<AsyncCall*>(tag)->Proceed(ok);
      last_event = Clock::now();
    }
  }
}

// The client side of one mode against the server at `target`: a table row
// per gap (p50 and p90 µs), then the throughput of `o.clients` clients.
void Measure(const std::string& mode, const std::string& target, const Options& o) {
  auto stub = GRPCInferenceService::NewStub(
      grpc::CreateChannel(target, grpc::InsecureChannelCredentials()));
  grpc::CompletionQueue client_cq;
  grpc::CompletionQueue* poll = o.poll_client ? &client_cq : nullptr;
  Time(*stub, 200, 0, poll);  // connect and warm up
  for (int gap : o.gaps) {
    const auto [p50, p90] = Time(*stub, gap > 0 ? std::max(50, o.calls / 4) : o.calls, gap, poll);
    std::printf("| %s%s | %d | %.1f | %.1f |\n", mode.c_str(),
                o.poll_client ? ", polling client" : "", gap, p50, p90);
    std::fflush(stdout);
  }
  if (o.clients > 0) {
    std::printf("| %s | %d clients | %.0f calls/s | |\n", mode.c_str(), o.clients,
                Throughput(target, o.clients, o.seconds));
    std::fflush(stdout);
  }
  client_cq.Shutdown();
  void* tag;
  bool ok;
  while (client_cq.Next(&tag, &ok)) {
  }
}

bool RunMode(const std::string& mode, const Options& o) {
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  CallbackLive callback;
  SyncLive sync;
  GRPCInferenceService::AsyncService async;
  std::vector<std::unique_ptr<grpc::ServerCompletionQueue>> cqs;
  if (mode == "callback") {
    builder.RegisterService(&callback);
  } else if (mode == "sync") {
    builder.RegisterService(&sync);
  } else if (mode == "async" || mode == "spin") {
    builder.RegisterService(&async);
    for (int i = 0; i < (mode == "spin" ? 1 : o.queues); ++i)
      cqs.push_back(builder.AddCompletionQueue());
  } else {
    std::fprintf(stderr, "unknown mode '%.32s'\n", mode.c_str());
    return false;
  }
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) {
    std::fprintf(stderr, "%s: the server did not start\n", mode.c_str());
    return false;
  }
  std::vector<std::thread> pollers;
  const bool spin = mode == "spin";
  for (auto& cq : cqs) {
    // A few calls outstanding per queue, so that concurrent clients do not
    // wait for a poller to request the next one.
    for (int i = 0; i < 4; ++i) new AsyncCall(&async, cq.get());
    for (int i = 0; i < (spin ? 1 : o.pollers); ++i) {
      pollers.emplace_back([q = cq.get(), spin, spin_us = o.spin_us] { Poll(q, spin, spin_us); });
    }
  }
  Measure(mode, "127.0.0.1:" + std::to_string(port), o);
  server->Shutdown();
  for (auto& cq : cqs) cq->Shutdown();
  for (std::thread& t : pollers) t.join();
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  std::vector<std::string> modes = {"callback", "sync", "async", "spin"};
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--calls" && absl::SimpleAtoi(value, &o.calls) && o.calls > 0) continue;
    if (flag == "--spin-us" && absl::SimpleAtoi(value, &o.spin_us) && o.spin_us >= 0) continue;
    if (flag == "--pollers" && absl::SimpleAtoi(value, &o.pollers) && o.pollers > 0) continue;
    if (flag == "--queues" && absl::SimpleAtoi(value, &o.queues) && o.queues > 0) continue;
    if (flag == "--clients" && absl::SimpleAtoi(value, &o.clients) && o.clients >= 0) continue;
    if (flag == "--seconds" && absl::SimpleAtod(value, &o.seconds) && o.seconds > 0) continue;
    if (flag == "--client" && (value == "block" || value == "poll")) {
      o.poll_client = value == "poll";
      continue;
    }
    if (flag == "--gaps") {
      o.gaps.clear();
      for (absl::string_view g : absl::StrSplit(value, ',')) {
        int us = 0;
        if (!absl::SimpleAtoi(g, &us) || us < 0) {
          std::fprintf(stderr, "bad gap in --gaps\n");
          return 2;
        }
        o.gaps.push_back(us);
      }
      continue;
    }
    if (flag == "--modes") {
      modes = absl::StrSplit(value, ',');
      continue;
    }
    std::fprintf(stderr,
                 "usage: %s [--calls N] [--gaps 0,700,5000] [--modes callback,sync,async,spin] "
                 "[--spin-us N] [--pollers N] [--queues N] [--clients N] [--seconds S] "
                 "[--client block|poll]\n",
                 argv[0]);
    return 2;
  }
  std::printf("| server API | idle before each call (us) | p50 us | p90 us |\n|---|---|---|---|\n");
  for (const std::string& mode : modes) {
    if (!RunMode(mode, o)) return 1;
  }
  return 0;
}
