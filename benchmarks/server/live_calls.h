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

#include "proto/grpc_service.grpc.pb.h"

namespace vkserve_bench {

// The value at fraction `p` (0..1) of `v` (nearest rank); 0 for no values.
double Percentile(std::vector<double> v, double p);

// Microseconds of each of `calls` empty ServerLive calls on `stub`, each
// after sleeping `gap` (zero: back to back), as a client waiting on
// something else would. Stops at the first failed call: fewer values.
std::vector<double> TimeServerLive(inference::GRPCInferenceService::Stub& stub, int calls,
                                   std::chrono::duration<double, std::micro> gap);

}  // namespace vkserve_bench

#endif  // VKSERVE_BENCHMARKS_SERVER_LIVE_CALLS_H_
