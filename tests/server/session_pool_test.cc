// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// SessionPool: every accepted request answered exactly once; a full queue,
// an expired deadline and a cancellation answered without running; Drain()
// waits for in-flight work; inline runs (may_run_inline) only when they
// would start at once, with the same checks, and Drain() waits for them.
// ResidentRegistry: handles, limits and expiry.
#include "server/scheduling/session_pool.h"

#include <atomic>
#include <cstring>
#include <thread>

#include "server/models/resident_registry.h"
#include "tests/testing/conv_model.h"
#include "tests/testing/gpu_fixture.h"

namespace vkserve {
namespace {

using testing::GpuTest;

// y = Conv(x, W): big enough on lavapipe that runs take milliseconds.
Graph ConvGraph(int64_t channels, int64_t size) {
  testing::ConvGraphSpec spec;
  for (int64_t d : {int64_t{1}, channels, size, size}) spec.input_shape.push_back(Dim{d, "", ""});
  spec.weight_seed = 1;
  return testing::ConvGraph(spec);
}

class SessionPoolTest : public GpuTest {
 protected:
  std::shared_ptr<const Model> MakeModel(int64_t channels, int64_t size) {
    auto model = Model::FromGraph(ConvGraph(channels, size),
                                  {device_.get(), allocator_.get(), pipelines_.get()});
    EXPECT_TRUE(model.ok()) << model.status();
    input_.assign(static_cast<size_t>(channels * size * size) * 4, 0);
    shape_ = {1, channels, size, size};
    return model.ok() ? *model : nullptr;
  }
  RunRequest Request() {
    RunRequest r;
    r.inputs.push_back(InputBinding::Host("x", DataType::kFloat, shape_, input_));
    return r;
  }
  std::vector<uint8_t> input_;
  std::vector<int64_t> shape_;
};

TEST_F(SessionPoolTest, AnswersEveryRequestOnce) {
  auto model = MakeModel(8, 16);
  ASSERT_NE(model, nullptr);
  SessionPoolOptions options;
  options.sessions = 2;
  options.max_queue = 0;  // unbounded
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto pool, SessionPool::Create(model, options));
  std::atomic<int> ok{0}, answered{0};
  for (int i = 0; i < 40; ++i) {
    pool->Submit(Request(), absl::InfiniteFuture(), nullptr,
                 [&](absl::StatusOr<RunResult> r, uint64_t) {
                   if (r.ok() && r->outputs.size() == 1) ++ok;
                   ++answered;
                 });
  }
  pool->Drain();
  EXPECT_EQ(answered.load(), 40);
  EXPECT_EQ(ok.load(), 40);
  // A drained pool refuses new work with a clear status.
  absl::Status refused;
  pool->Submit(Request(), absl::InfiniteFuture(), nullptr,
               [&](absl::StatusOr<RunResult> r, uint64_t) { refused = r.status(); });
  EXPECT_EQ(refused.code(), absl::StatusCode::kUnavailable);
}

TEST_F(SessionPoolTest, FullQueueTimeoutAndCancel) {
  auto model = MakeModel(64, 64);  // slow on lavapipe
  ASSERT_NE(model, nullptr);
  SessionPoolOptions options;
  options.name = "slow";
  options.sessions = 1;
  options.max_queue = 3;
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto pool, SessionPool::Create(model, options));
  Mutex mu;
  std::vector<absl::StatusCode> codes;
  auto record = [&](absl::StatusOr<RunResult> r, uint64_t) {
    MutexLock lock(&mu);
    codes.push_back(r.status().code());
  };
  std::atomic<bool> cancel{false};
  // Occupies the session, then fills the queue: a timed-out one, a cancelled
  // one and a normal one; the next is refused.
  pool->Submit(Request(), absl::InfiniteFuture(), nullptr, record);
  absl::SleepFor(absl::Milliseconds(20));
  pool->Submit(Request(), absl::Now() + absl::Microseconds(1), nullptr, record);
  pool->Submit(
      Request(), absl::InfiniteFuture(), [&] { return cancel.load(); }, record);
  cancel = true;
  pool->Submit(Request(), absl::InfiniteFuture(), nullptr, record);
  // Written by the answers, which may come on a runner thread: under `mu`.
  absl::StatusCode full = absl::StatusCode::kOk;
  std::string full_message;
  auto is_full = [&] {
    MutexLock lock(&mu);
    return full != absl::StatusCode::kOk;
  };
  // The queue may have drained a little; keep submitting until it is full.
  for (int i = 0; i < 8 && !is_full(); ++i) {
    pool->Submit(Request(), absl::InfiniteFuture(), nullptr,
                 [&](absl::StatusOr<RunResult> r, uint64_t) {
                   if (r.status().code() != absl::StatusCode::kResourceExhausted) {
                     return record(std::move(r), 0);
                   }
                   MutexLock lock(&mu);
                   full = r.status().code();
                   full_message = std::string(r.status().message());
                 });
  }
  pool->Drain();
  MutexLock lock(&mu);
  EXPECT_EQ(full, absl::StatusCode::kResourceExhausted);
  EXPECT_NE(full_message.find("slow"), std::string::npos);
  EXPECT_EQ(std::count(codes.begin(), codes.end(), absl::StatusCode::kDeadlineExceeded), 1);
  EXPECT_EQ(std::count(codes.begin(), codes.end(), absl::StatusCode::kCancelled), 1);
  EXPECT_GE(std::count(codes.begin(), codes.end(), absl::StatusCode::kOk), 2);
}

// Runs `n` requests through the workers (a pool times a few runs before it
// takes any inline) and waits for their answers.
void WarmUp(SessionPool& pool, const std::function<RunRequest()>& request, int n = 4) {
  std::atomic<int> answered{0};
  for (int i = 0; i < n; ++i) {
    pool.Submit(request(), absl::InfiniteFuture(), nullptr,
                [&](absl::StatusOr<RunResult> r, uint64_t) {
                  EXPECT_TRUE(r.ok()) << r.status();
                  ++answered;
                });
  }
  while (answered.load() < n) absl::SleepFor(absl::Milliseconds(1));
  // Sessions go back before their answers; this is a check, not a wait.
  while (pool.stats().busy_sessions > 0) absl::SleepFor(absl::Microseconds(100));
}

TEST_F(SessionPoolTest, InlineRunAnswersOnTheCallersThread) {
  auto model = MakeModel(8, 16);
  ASSERT_NE(model, nullptr);
  SessionPoolOptions options;
  options.sessions = 2;
  options.inline_max_run = absl::Seconds(10);  // lavapipe's runs are slow
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto pool, SessionPool::Create(model, options));
  for (size_t i = 0; i < input_.size() / 4; ++i) {
    const float v = 0.01f * static_cast<float>(i % 97) - 0.3f;
    std::memcpy(input_.data() + i * 4, &v, 4);
  }
  // Before any run is timed, an inline-allowed request still goes to a worker.
  std::thread::id ran_on;
  std::atomic<bool> answered{false};
  std::vector<uint8_t> by_worker;
  pool->Submit(
      Request(), absl::InfiniteFuture(), nullptr,
      [&](absl::StatusOr<RunResult> r, uint64_t) {
        ASSERT_TRUE(r.ok()) << r.status();
        ran_on = std::this_thread::get_id();
        const auto& data = r->outputs.at(0).host.data;
        by_worker.assign(data.begin(), data.end());
        answered = true;
      },
      /*may_run_inline=*/true);
  while (!answered.load()) absl::SleepFor(absl::Milliseconds(1));
  EXPECT_NE(ran_on, std::this_thread::get_id());
  EXPECT_EQ(pool->inline_runs(), 0u);
  WarmUp(*pool, [&] { return Request(); });
  // Idle sessions, nothing queued, short runs: this thread runs it, and
  // the answer is the one a worker gives.
  answered = false;
  std::vector<uint8_t> inline_bytes;
  pool->Submit(
      Request(), absl::InfiniteFuture(), nullptr,
      [&](absl::StatusOr<RunResult> r, uint64_t queue_ns) {
        ASSERT_TRUE(r.ok()) << r.status();
        ran_on = std::this_thread::get_id();
        const auto& data = r->outputs.at(0).host.data;
        inline_bytes.assign(data.begin(), data.end());
        EXPECT_LT(queue_ns, uint64_t{1'000'000'000});
        answered = true;
      },
      /*may_run_inline=*/true);
  EXPECT_TRUE(answered.load());  // before Submit returned
  EXPECT_EQ(ran_on, std::this_thread::get_id());
  EXPECT_EQ(pool->inline_runs(), 1u);
  EXPECT_EQ(inline_bytes, by_worker);
  EXPECT_EQ(pool->stats().busy_sessions, 0u);
  // Without the caller's permission it never runs inline.
  answered = false;
  pool->Submit(Request(), absl::InfiniteFuture(), nullptr,
               [&](absl::StatusOr<RunResult>, uint64_t) {
                 ran_on = std::this_thread::get_id();
                 answered = true;
               });
  pool->Drain();
  EXPECT_TRUE(answered.load());
  EXPECT_NE(ran_on, std::this_thread::get_id());
  EXPECT_EQ(pool->inline_runs(), 1u);
  // A draining pool refuses an inline-allowed request like any other.
  absl::Status refused;
  pool->Submit(
      Request(), absl::InfiniteFuture(), nullptr,
      [&](absl::StatusOr<RunResult> r, uint64_t) { refused = r.status(); }, true);
  EXPECT_EQ(refused.code(), absl::StatusCode::kUnavailable);
}

TEST_F(SessionPoolTest, InlineRunChecksDeadlineAndCancellation) {
  auto model = MakeModel(8, 16);
  ASSERT_NE(model, nullptr);
  SessionPoolOptions options;
  options.sessions = 1;
  options.inline_max_run = absl::Seconds(10);
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto pool, SessionPool::Create(model, options));
  WarmUp(*pool, [&] { return Request(); });
  absl::Status expired, cancelled;
  pool->Submit(
      Request(), absl::Now() - absl::Milliseconds(1), nullptr,
      [&](absl::StatusOr<RunResult> r, uint64_t) { expired = r.status(); }, true);
  pool->Submit(
      Request(), absl::InfiniteFuture(), [] { return true; },
      [&](absl::StatusOr<RunResult> r, uint64_t) { cancelled = r.status(); }, true);
  // Both answered before Submit returned, without running.
  EXPECT_EQ(expired.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(cancelled.code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(pool->inline_runs(), 2u);
  EXPECT_EQ(pool->stats().busy_sessions, 0u);
}

TEST_F(SessionPoolTest, InlineNeverOvertakesTheQueue) {
  auto model = MakeModel(64, 64);  // slow on lavapipe
  ASSERT_NE(model, nullptr);
  SessionPoolOptions options;
  options.sessions = 1;
  options.max_queue = 0;
  options.inline_max_run = absl::Seconds(10);
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto pool, SessionPool::Create(model, options));
  WarmUp(*pool, [&] { return Request(); });
  // The order in which requests reach the session: a run reads its input
  // through the request's reader (server/models/shared_memory.h's kind).
  Mutex mu;
  std::vector<int> order;
  std::atomic<bool> holding{false};
  std::atomic<bool> go{false};
  auto reaching = [&](int id) {
    RunRequest r = Request();
    r.inputs[0].source = HostInputReader([&, id](std::span<uint8_t> to) {
      {
        MutexLock lock(&mu);
        order.push_back(id);
      }
      if (id == 0) {  // 0 holds the session until `go`
        holding = true;
        while (!go.load()) absl::SleepFor(absl::Microseconds(100));
      }
      if (to.size() != input_.size()) return absl::InternalError("reader given the wrong size");
      std::memcpy(to.data(), input_.data(), to.size());
      return absl::OkStatus();
    });
    return r;
  };
  std::atomic<int> answered{0};
  auto done = [&](absl::StatusOr<RunResult> r, uint64_t) {
    EXPECT_TRUE(r.ok()) << r.status();
    ++answered;
  };
  pool->Submit(reaching(0), absl::InfiniteFuture(), nullptr, done);
  while (!holding.load()) absl::SleepFor(absl::Microseconds(100));
  // 1 waits; 2 may run inline but must queue behind 1.
  pool->Submit(reaching(1), absl::InfiniteFuture(), nullptr, done);
  pool->Submit(reaching(2), absl::InfiniteFuture(), nullptr, done, /*may_run_inline=*/true);
  EXPECT_EQ(answered.load(), 0);  // 2 did not run on this thread
  EXPECT_EQ(pool->stats().queued_now, 2u);
  go = true;
  pool->Drain();
  EXPECT_EQ(answered.load(), 3);
  MutexLock lock(&mu);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(pool->inline_runs(), 0u);
}

TEST_F(SessionPoolTest, NoInlineRunsForLongRunsAndDrainWaitsForOne) {
  auto model = MakeModel(64, 64);
  ASSERT_NE(model, nullptr);
  SessionPoolOptions options;
  options.sessions = 1;
  options.inline_max_run = absl::Nanoseconds(1);  // every run is longer
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto pool, SessionPool::Create(model, options));
  WarmUp(*pool, [&] { return Request(); });
  std::atomic<bool> answered{false};
  pool->Submit(
      Request(), absl::InfiniteFuture(), nullptr,
      [&](absl::StatusOr<RunResult>, uint64_t) { answered = true; }, true);
  pool->Drain();
  EXPECT_TRUE(answered.load());
  EXPECT_EQ(pool->inline_runs(), 0u);

  // A pool whose runs qualify: Drain(), called while an inline run's answer
  // is being written, returns only after that request is answered.
  options.inline_max_run = absl::Seconds(10);
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto fast, SessionPool::Create(model, options));
  WarmUp(*fast, [&] { return Request(); });
  answered = false;
  std::atomic<bool> answering{false};
  std::thread caller([&] {
    fast->Submit(
        Request(), absl::InfiniteFuture(), nullptr,
        [&](absl::StatusOr<RunResult> r, uint64_t) {
          EXPECT_TRUE(r.ok()) << r.status();
          answering = true;
          absl::SleepFor(absl::Milliseconds(20));  // a slow answer
          answered = true;
        },
        true);
  });
  while (!answering.load()) absl::SleepFor(absl::Microseconds(100));
  fast->Drain();
  EXPECT_TRUE(answered.load());
  caller.join();
  EXPECT_EQ(fast->inline_runs(), 1u);
}

TEST_F(SessionPoolTest, ResidentRegistryHandlesLimitsAndExpiry) {
  ResidentLimits limits;
  limits.max_count = 2;
  limits.max_bytes = 1 << 20;
  limits.idle_expiry = absl::Seconds(60);
  ResidentRegistry registry(limits);
  auto make = [&](uint64_t bytes) {
    auto buffer =
        allocator_->Allocate(bytes, gpu::MemoryUsage::kDeviceLocal, gpu::MemoryKind::kResident);
    EXPECT_TRUE(buffer.ok());
    return std::make_shared<DeviceTensor>(
        "t", DataType::kUint8, std::vector<int64_t>{static_cast<int64_t>(bytes)},
        std::move(buffer).value(), GpuContext{.allocator = allocator_.get()});
  };
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::string a, registry.Add(make(100), "m"));
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::string b, registry.Add(make(100), "m"));
  EXPECT_NE(a, b);
  EXPECT_EQ(registry.Add(make(100), "m").status().code(), absl::StatusCode::kResourceExhausted);
  VKSERVE_ASSERT_OK(registry.Release(a));
  EXPECT_EQ(registry.Get(a).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(registry.Release(a).code(), absl::StatusCode::kNotFound);
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto tensor, registry.Get(b));
  EXPECT_FALSE(tensor->released());
  EXPECT_EQ(registry.stats().count, 1u);
  // Idle past the expiry: reclaimed, and the tensor is released.
  EXPECT_EQ(registry.ExpireIdle(absl::Now() + absl::Seconds(61)), 1u);
  EXPECT_TRUE(tensor->released());
  EXPECT_EQ(registry.stats().count, 0u);
  EXPECT_EQ(registry.stats().bytes, 0u);
  EXPECT_EQ(tensor->Read().status().code(), absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace vkserve
