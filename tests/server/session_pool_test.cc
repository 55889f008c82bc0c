// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// SessionPool: every accepted request answered exactly once; a full queue,
// an expired deadline and a cancellation answered without running; Drain()
// waits for in-flight work. ResidentRegistry: handles, limits and expiry.
#include "server/session_pool.h"

#include <atomic>
#include <random>

#include "server/resident_registry.h"
#include "tests/testing/gpu_fixture.h"

namespace vkserve {
namespace {

using testing::GpuTest;

// y = Conv(x, W): big enough on lavapipe that runs take milliseconds.
Graph ConvGraph(int64_t channels, int64_t size) {
  Graph g;
  g.opset_imports[""] = 13;
  TensorType in;
  in.dtype = DataType::kFloat;
  in.has_shape = true;
  for (int64_t d : {int64_t{1}, channels, size, size}) in.shape.push_back(Dim{d, "", ""});
  g.inputs.push_back({"x", in});
  TensorType out = in;
  g.outputs.push_back({"y", out});
  std::vector<float> w(static_cast<size_t>(channels * channels * 9));
  std::mt19937 rng(1);
  for (float& v : w) v = static_cast<float>(rng() % 100) / 100.0f - 0.5f;
  g.initializers["W"] = HostTensor::FromFloats(w, {channels, channels, 3, 3});
  Node conv;
  conv.name = "conv";
  conv.op_type = "Conv";
  conv.opset = 13;
  conv.inputs = {"x", "W"};
  conv.outputs = {"y"};
  Attribute pads;
  pads.type = Attribute::Type::kInts;
  pads.ints = {1, 1, 1, 1};
  conv.attributes["pads"] = pads;
  g.nodes.push_back(conv);
  return g;
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
    InputBinding b;
    b.name = "x";
    b.host = {DataType::kFloat, shape_, input_};
    r.inputs.push_back(b);
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
  absl::Mutex mu;
  std::vector<absl::StatusCode> codes;
  auto record = [&](absl::StatusOr<RunResult> r, uint64_t) {
    absl::MutexLock lock(&mu);
    codes.push_back(r.status().code());
  };
  std::atomic<bool> cancel{false};
  // Occupies the session, then fills the queue: a timed-out one, a cancelled
  // one and a normal one; the next is refused.
  pool->Submit(Request(), absl::InfiniteFuture(), nullptr, record);
  absl::SleepFor(absl::Milliseconds(20));
  pool->Submit(Request(), absl::Now() + absl::Microseconds(1), nullptr, record);
  pool->Submit(Request(), absl::InfiniteFuture(), [&] { return cancel.load(); }, record);
  cancel = true;
  pool->Submit(Request(), absl::InfiniteFuture(), nullptr, record);
  absl::StatusCode full = absl::StatusCode::kOk;
  std::string full_message;
  // The queue may have drained a little; keep submitting until it is full.
  for (int i = 0; i < 8 && full == absl::StatusCode::kOk; ++i) {
    pool->Submit(Request(), absl::InfiniteFuture(), nullptr,
                 [&](absl::StatusOr<RunResult> r, uint64_t) {
                   if (r.status().code() == absl::StatusCode::kResourceExhausted) {
                     full = r.status().code();
                     full_message = std::string(r.status().message());
                   } else {
                     record(std::move(r), 0);
                   }
                 });
  }
  pool->Drain();
  EXPECT_EQ(full, absl::StatusCode::kResourceExhausted);
  EXPECT_NE(full_message.find("slow"), std::string::npos);
  absl::MutexLock lock(&mu);
  EXPECT_EQ(std::count(codes.begin(), codes.end(), absl::StatusCode::kDeadlineExceeded), 1);
  EXPECT_EQ(std::count(codes.begin(), codes.end(), absl::StatusCode::kCancelled), 1);
  EXPECT_GE(std::count(codes.begin(), codes.end(), absl::StatusCode::kOk), 2);
}

TEST_F(SessionPoolTest, ResidentRegistryHandlesLimitsAndExpiry) {
  ResidentLimits limits;
  limits.max_count = 2;
  limits.max_bytes = 1 << 20;
  limits.idle_expiry = absl::Seconds(60);
  ResidentRegistry registry(limits);
  auto make = [&](uint64_t bytes) {
    auto buffer = allocator_->Allocate(bytes, gpu::MemoryUsage::kDeviceLocal, gpu::MemoryKind::kResident);
    EXPECT_TRUE(buffer.ok());
    return std::make_shared<DeviceTensor>("t", DataType::kUint8,
                                          std::vector<int64_t>{static_cast<int64_t>(bytes)},
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
