// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "benchmarks/server/live_calls.h"

#include <algorithm>
#include <thread>

namespace vkserve_bench {

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t i =
      std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5));
  return v[i];
}

std::vector<double> TimeServerLive(inference::GRPCInferenceService::Stub& stub, int calls,
                                   std::chrono::duration<double, std::micro> gap,
                                   grpc::CompletionQueue* poll) {
  using Clock = std::chrono::steady_clock;
  std::vector<double> us;
  for (int i = 0; i < calls; ++i) {
    if (gap.count() > 0) std::this_thread::sleep_for(gap);
    grpc::ClientContext ctx;
    inference::ServerLiveResponse resp;
    const auto t0 = Clock::now();
    const grpc::Status status =
        poll == nullptr
            ? stub.ServerLive(&ctx, inference::ServerLiveRequest(), &resp)
            : FinishPolling(*stub.AsyncServerLive(&ctx, inference::ServerLiveRequest(), poll),
                            &resp, poll);
    if (!status.ok()) break;
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
  }
  return us;
}

}  // namespace vkserve_bench
