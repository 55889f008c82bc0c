// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// What vkserve_load and vkserve_grpc_floor share: the timing of empty
// ServerLive calls (gRPC's own cost per unary call) and the percentile of a
// sample. Plain functions; thread-safe as far as the stub is.
#ifndef VKSERVE_BENCHMARKS_SERVER_LIVE_CALLS_H_
#define VKSERVE_BENCHMARKS_SERVER_LIVE_CALLS_H_

#include <chrono>
#include <vector>

#include "grpcpp/grpcpp.h"
#include "proto/grpc_service.grpc.pb.h"

namespace vkserve_bench {

// The value at fraction `p` (0..1) of `v` (nearest rank); 0 for no values.
double Percentile(std::vector<double> v, double p);

// Finishes an async unary call by polling `cq` (which must hold no other
// call) with a deadline of now until its one event: the calling thread
// never sleeps, so waking it drops out of the round trip. What a client
// machine's wake-up costs then reads as the difference to a blocking call.
template <typename Response>
grpc::Status FinishPolling(grpc::ClientAsyncResponseReader<Response>& call, Response* response,
                           grpc::CompletionQueue* cq) {
  grpc::Status status;
  call.Finish(response, &status, cq);
  void* tag = nullptr;
  bool ok = false;
  for (;;) {
    switch (cq->AsyncNext(&tag, &ok, gpr_time_0(GPR_CLOCK_MONOTONIC))) {
      case grpc::CompletionQueue::GOT_EVENT:
        return ok ? status : grpc::Status(grpc::StatusCode::UNKNOWN, "the call failed");
      case grpc::CompletionQueue::SHUTDOWN:
        return grpc::Status(grpc::StatusCode::CANCELLED, "completion queue shut down");
      case grpc::CompletionQueue::TIMEOUT:
        break;
    }
  }
}

// Microseconds of each of `calls` empty ServerLive calls on `stub`, each
// after sleeping `gap` (zero: back to back), as a client waiting on
// something else would. With `poll`, each call is finished by polling it
// (FinishPolling) instead of blocking. Stops at the first failed call:
// fewer values.
std::vector<double> TimeServerLive(inference::GRPCInferenceService::Stub& stub, int calls,
                                   std::chrono::duration<double, std::micro> gap,
                                   grpc::CompletionQueue* poll = nullptr);

}  // namespace vkserve_bench

#endif  // VKSERVE_BENCHMARKS_SERVER_LIVE_CALLS_H_
