// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The locks the server's threads hand data over with. In every build these
// check the hand-offs themselves; in the ThreadSanitizer build they also pin
// what scripts/sanitize.sh tsan relies on: that TSan sees the ordering made
// by Debian's uninstrumented absl::Mutex and absl::CondVar (through
// base/tsan/absl_sync.cc), by vkserve::Mutex, and by the HAPPENS_ annotations.
// Without that support each test here is reported as a data race, which
// fails the run (halt_on_error).
#include <atomic>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "base/happens_before.h"
#include "base/mutex.h"
#include "gtest/gtest.h"

namespace vkserve {
namespace {

constexpr int kThreads = 4;
constexpr int kRounds = 2000;

TEST(SyncTest, AbslMutexOrdersPlainCounters) {
  absl::Mutex mu;
  long counter = 0;  // plain, guarded only by `mu`
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kRounds; ++i) {
        mu.Lock();
        ++counter;
        mu.Unlock();
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(counter, long{kThreads} * kRounds);
}

TEST(SyncTest, AbslCondVarHandsOverAPlainValue) {
  absl::Mutex mu;
  absl::CondVar cv;
  std::vector<int> box;  // plain, written by one thread, read by the other
  bool ready = false;
  std::thread producer([&] {
    std::vector<int> v(1000);
    for (int i = 0; i < 1000; ++i) v[i] = i * 3;
    mu.Lock();
    box = std::move(v);
    ready = true;
    cv.Signal();
    mu.Unlock();
  });
  mu.Lock();
  while (!ready) cv.Wait(&mu);
  mu.Unlock();
  ASSERT_EQ(box.size(), 1000u);
  EXPECT_EQ(box[999], 2997);
  producer.join();
}

TEST(SyncTest, AbslNotificationPublishesWhatCameBefore) {
  absl::Notification done;
  std::string message;  // plain
  std::thread writer([&] {
    message.assign(4096, 'x');
    done.Notify();
  });
  done.WaitForNotification();
  EXPECT_EQ(message.size(), 4096u);
  writer.join();
}

TEST(SyncTest, VkserveMutexOrdersPlainCounters) {
  Mutex mu;
  long counter = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kRounds; ++i) {
        MutexLock lock(&mu);
        ++counter;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(counter, long{kThreads} * kRounds);
}

// A relaxed flag carries no ordering of its own; the annotations stand for
// the ordering a library keeps where TSan cannot see it (gRPC's OnDone after
// Finish).
TEST(SyncTest, HappensBeforeAnnotationsOrderARelaxedHandOff) {
  int payload = 0;  // plain
  std::atomic<bool> published{false};
  std::thread writer([&] {
    payload = 42;
    VKSERVE_HAPPENS_BEFORE(&payload);
    published.store(true, std::memory_order_relaxed);
  });
  while (!published.load(std::memory_order_relaxed)) std::this_thread::yield();
  VKSERVE_HAPPENS_AFTER(&payload);
  EXPECT_EQ(payload, 42);
  writer.join();
}

}  // namespace
}  // namespace vkserve
