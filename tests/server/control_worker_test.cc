// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ControlWorker without a server: order, the queue bound, shutdown.
#include "server/grpc/control_worker.h"

#include <atomic>
#include <vector>

#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"

namespace vkserve {
namespace {

TEST(ControlWorkerTest, RunsJobsInOrderOnOneThread) {
  std::vector<int> order;  // touched by the worker thread only, read after Shutdown
  ControlWorker worker(8);
  for (int i = 0; i < 8; ++i) ASSERT_TRUE(worker.Post([&order, i] { order.push_back(i); }).ok());
  worker.Shutdown();
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(ControlWorkerTest, FullQueueIsResourceExhaustedAndShutdownRunsWhatWaits) {
  absl::Notification started, release;
  std::atomic<int> ran{0};
  ControlWorker worker(3);
  ASSERT_TRUE(worker
                  .Post([&] {
                    started.Notify();
                    release.WaitForNotification();
                    ++ran;
                  })
                  .ok());
  started.WaitForNotification();  // the first job runs; the queue is empty
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(worker.Post([&] { ++ran; }).ok());
  absl::Status full = worker.Post([&] { ran += 100; });
  EXPECT_EQ(full.code(), absl::StatusCode::kResourceExhausted) << full;
  release.Notify();
  worker.Shutdown();
  EXPECT_EQ(ran.load(), 4);  // the refused job never ran
  EXPECT_EQ(worker.Post([] {}).code(), absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace vkserve
