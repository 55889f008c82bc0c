// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// DynamicBatcher: concurrent requests of mixed batch sizes and shapes get
// the outputs each gets when run alone on its own session (the batch's
// bytes scattered straight into each request's sink or buffer, inputs
// viewed or read); a request cancelled or timed out while its batch forms
// never runs and leaves the others alone; a full queue is
// RESOURCE_EXHAUSTED; Drain() runs forming batches at once; priority
// levels are served in order, each with its own queue policy; lone
// requests stop waiting out the delay once waiting has stopped paying, and
// wait again as soon as requests meet; a batch whose size has no plan yet
// runs padded to a planned size while its own is planned in the background;
// a batch keeps growing while another batch's GPU work holds the GPU
// (unless the delay is 0).
#include "server/scheduling/dynamic_batcher.h"

#include <atomic>
#include <cmath>
#include <cstring>
#include <future>

#include "gpu/transfer.h"
#include "runtime/device_tensor.h"
#include "tests/testing/conv_model.h"
#include "tests/testing/gpu_fixture.h"

namespace vkserve {
namespace {

using testing::GpuTest;
constexpr int64_t kChannels = 4;

// y = Conv(x, W) (pads 1), z = Relu(y); x is [N, 4, H, W] with N, H and W
// symbolic, so requests differ in batch size and in spatial shape.
Graph ConvReluGraph() {
  testing::ConvGraphSpec spec;
  spec.input_shape = {Dim{-1, "N", ""}, Dim{kChannels, "", ""}, Dim{-1, "H", ""}, Dim{-1, "W", ""}};
  spec.weight_seed = 7;
  spec.relu = true;
  return testing::ConvGraph(spec);
}

// One request's bytes and what came back for it.
struct Client {
  int64_t batch = 1;
  int64_t size = 6;  // H = W
  std::vector<uint8_t> input;
  bool use_sink = false;                       // outputs straight into `sunk`
  bool use_reader = false;                     // input read, not viewed
  std::shared_ptr<DeviceTensor> device_input;  // bound instead of the bytes
  bool resident_y = false;                     // output y stays on the GPU
  std::vector<std::vector<uint8_t>> sunk{2};
  absl::Status status;
  std::vector<std::vector<uint8_t>> outputs;  // y, z
  ExecutionInfo info;
  absl::Time answered;
  std::atomic<bool> cancel{false};
};

class DynamicBatcherTest : public GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    auto model =
        Model::FromGraph(ConvReluGraph(), {device_.get(), allocator_.get(), pipelines_.get()});
    ASSERT_TRUE(model.ok()) << model.status();
    model_ = *model;
    settings_.name = "convnet";
    settings_.max_batch_size = 8;
    settings_.dynamic_batching = true;
    settings_.sessions = 1;
  }

  void TearDown() override {
    model_.reset();  // its weights go before the allocator
    GpuTest::TearDown();
  }

  static void Fill(Client& c, int seed) {
    c.input = testing::RandomFloatBytes(static_cast<size_t>(c.batch * kChannels * c.size * c.size),
                                        static_cast<unsigned>(seed));
  }

  static std::vector<int64_t> Shape(const Client& c) {
    return {c.batch, kChannels, c.size, c.size};
  }

  static SchedulerRequest Request(Client& c) {
    SchedulerRequest r;
    r.batch_size = c.batch;
    if (c.device_input != nullptr) {
      r.run.inputs.push_back(InputBinding::Device("x", c.device_input));
    } else if (c.use_reader) {
      r.run.inputs.push_back(
          InputBinding::Read("x", DataType::kFloat, Shape(c), [&c](std::span<uint8_t> to) {
            if (to.size() != c.input.size())
              return absl::InternalError("reader given the wrong size");
            std::memcpy(to.data(), c.input.data(), to.size());
            return absl::OkStatus();
          }));
    } else {
      r.run.inputs.push_back(InputBinding::Host("x", DataType::kFloat, Shape(c), c.input));
    }
    if (c.resident_y) r.run.outputs.push_back({"y", OutputLocation::kDevice, nullptr});
    if (c.use_sink) {
      for (size_t o = 0; o < 2; ++o) {
        OutputBinding& out = r.run.Output(o == 0 ? "y" : "z");
        if (out.location != OutputLocation::kHost) continue;
        out.sink = [&c, o](const std::vector<int64_t>&, uint64_t bytes) {
          c.sunk[o].resize(bytes);
          return OutputPieces{std::span<uint8_t>(c.sunk[o])};
        };
      }
    }
    r.cancelled = [&c] { return c.cancel.load(); };
    return r;
  }

  static Scheduler::Callback Record(Client& c) {
    return [&c](absl::StatusOr<RunResult> result, const ExecutionInfo& info) {
      c.info = info;
      c.answered = absl::Now();
      c.status = result.status();
      if (!result.ok()) return;
      for (size_t o = 0; o < result->outputs.size(); ++o) {
        const RunOutput& out = result->outputs[o];
        EXPECT_EQ(out.shape, Shape(c)) << out.name;
        if (out.device != nullptr) {
          // A handle of its own, holding only this request's rows.
          EXPECT_EQ(out.device->shape(), Shape(c));
          auto host = out.device->Read(/*release=*/true);
          EXPECT_TRUE(host.ok()) << host.status();
          c.outputs.push_back(host.ok() ? host->data.ToVector() : std::vector<uint8_t>());
        } else {
          c.outputs.push_back(out.in_sink ? c.sunk[o] : out.host.data.ToVector());
        }
      }
    };
  }

  // Runs `c` alone on a session of its own: the reference.
  std::vector<std::vector<uint8_t>> Alone(Session& session, Client& c) {
    return testing::RunAlone(session, "x", Shape(c), c.input);
  }

  // Within 1e-5 relative (of the tensor's largest magnitude); returns
  // whether the bytes are identical.
  static bool ExpectClose(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want) {
    EXPECT_EQ(got.size(), want.size());
    if (got.size() != want.size()) return false;
    const size_t n = got.size() / 4;
    std::vector<float> a(n), b(n);
    std::memcpy(a.data(), got.data(), got.size());
    std::memcpy(b.data(), want.data(), want.size());
    float scale = 1e-6f;
    for (float v : b) scale = std::max(scale, std::fabs(v));
    for (size_t i = 0; i < n; ++i) {
      if (std::fabs(a[i] - b[i]) > 1e-5f * scale) {
        ADD_FAILURE() << "element " << i << ": " << a[i] << " vs " << b[i];
        return false;
      }
    }
    return got == want;
  }

  // The pacing scenario (batch_pacing.h), two sessions, preferred size 4,
  // `delay`: three lone runs of a large input teach the batcher its GPU time
  // (returned: the shortest of them; zero after a failure). Then `a` holds
  // the GPU; while it runs b[0] comes and, 3 ms later (the delay three times
  // over at 1 ms), b[1] and b[2]. Every request has been answered on return;
  // `b1_submitted` is when b[0] came.
  absl::Duration HoldScenario(absl::Duration delay, Client& a, Client (&b)[3],
                              absl::Time* b1_submitted) {
    settings_.sessions = 2;
    settings_.preferred_batch_sizes = {4};
    settings_.max_queue_delay = delay;
    auto batcher = DynamicBatcher::Create(model_, settings_);
    if (!batcher.ok()) {
      ADD_FAILURE() << batcher.status();
      return absl::ZeroDuration();
    }
    // Large enough that lavapipe's GPU work takes tens of milliseconds.
    constexpr int64_t kLarge = 384;
    std::promise<void> done[7];
    // `gpu_time` (may be null): where the run's GPU time goes.
    auto submit = [&](Client& c, SchedulerRequest request, std::promise<void>& answered,
                      absl::Duration* gpu_time = nullptr) {
      (*batcher)->Submit(
          std::move(request),
          [&c, &answered, gpu_time](absl::StatusOr<RunResult> result, const ExecutionInfo& info) {
            if (result.ok() && gpu_time != nullptr) {
              *gpu_time = absl::Nanoseconds(static_cast<int64_t>(result->timing.gpu_ns));
            }
            Record(c)(std::move(result), info);
            answered.set_value();
          });
    };
    absl::Duration gpu = absl::InfiniteDuration();
    Client taught[3];
    for (int i = 0; i < 3; ++i) {
      taught[i].size = kLarge;
      Fill(taught[i], 60 + i);
      absl::Duration run_gpu;
      submit(taught[i], Request(taught[i]), done[i], &run_gpu);
      done[i].get_future().wait();
      if (!taught[i].status.ok()) {
        ADD_FAILURE() << taught[i].status;
        return absl::ZeroDuration();
      }
      gpu = std::min(gpu, run_gpu);
    }
    std::printf("lone run of [1, %lld, %lld, %lld]: %s of GPU work\n",
                static_cast<long long>(kChannels), static_cast<long long>(kLarge),
                static_cast<long long>(kLarge), absl::FormatDuration(gpu).c_str());
    a.size = kLarge;
    a.use_reader = true;
    Fill(a, 70);
    for (int i = 0; i < 3; ++i) {  // before a runs: random bytes are slow under sanitizers
      b[i].size = kLarge;
      Fill(b[i], 71 + i);
    }
    std::promise<void> a_started;
    SchedulerRequest a_request = Request(a);
    HostInputReader read = std::get<HostInputReader>(a_request.run.inputs[0].source);
    a_request.run.inputs[0].source = HostInputReader([read, &a_started](std::span<uint8_t> to) {
      a_started.set_value();  // on a's session, once it was dispatched
      return read(to);
    });
    submit(a, std::move(a_request), done[3]);
    a_started.get_future().wait();
    for (int i = 0; i < 3; ++i) {
      if (i == 1) absl::SleepFor(absl::Milliseconds(3));
      if (i == 0) *b1_submitted = absl::Now();
      submit(b[i], Request(b[i]), done[4 + i]);
    }
    for (int i = 3; i < 7; ++i) done[i].get_future().wait();
    return gpu;
  }

  std::shared_ptr<const Model> model_;
  ModelSettings settings_;
};

TEST_F(DynamicBatcherTest, MixedBatchSizesAndShapesGetTheirOwnOutputs) {
  settings_.preferred_batch_sizes = {4, 8};
  settings_.max_queue_delay = absl::Milliseconds(200);
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto batcher, DynamicBatcher::Create(model_, settings_));
  std::vector<std::unique_ptr<Client>> clients;
  for (int i = 0; i < 18; ++i) {
    auto c = std::make_unique<Client>();
    c->batch = 1 + i % 3;
    c->size = (i / 3) % 2 == 0 ? 6 : 9;
    c->use_sink = i % 2 == 0;
    c->use_reader = i % 5 == 0;
    Fill(*c, i);
    clients.push_back(std::move(c));
  }
  // Concurrent submitters, as gRPC threads are.
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&, t] {
      for (size_t i = static_cast<size_t>(t); i < clients.size(); i += 3) {
        batcher->Submit(Request(*clients[i]), Record(*clients[i]));
      }
    });
  }
  for (std::thread& t : threads) t.join();
  batcher->Drain();

  VKSERVE_ASSERT_OK_AND_ASSIGN(auto session, Session::Create(model_));
  int executions = 0, batched = 0, identical = 0;
  int64_t inferences = 0, executed = 0;
  for (auto& c : clients) {
    ASSERT_TRUE(c->status.ok()) << c->status;
    ASSERT_EQ(c->outputs.size(), 2u);
    const auto want = Alone(*session, *c);
    ASSERT_EQ(want.size(), 2u);
    for (int o = 0; o < 2; ++o) {
      const bool same = ExpectClose(c->outputs[o], want[o]);
      identical += same ? 1 : 0;
      // Run alone, it ran the very same kernels on the same shapes.
      if (c->info.requests == 1 && c->info.padding_rows == 0) {
        EXPECT_TRUE(same) << "output " << o << " of a request run alone";
      }
    }
    EXPECT_GE(c->info.execution_batch_size, c->batch);
    EXPECT_LE(c->info.execution_batch_size, 8);
    inferences += c->batch;
    if (c->info.requests > 1) ++batched;
    if (c->info.reports_execution) {
      ++executions;
      executed += c->info.execution_batch_size;
    }
  }
  // Every inference ran in exactly one execution, and requests did share runs.
  EXPECT_EQ(executed, inferences);
  EXPECT_LT(executions, static_cast<int>(clients.size()));
  EXPECT_GT(batched, 0);
  // Batched, the kernels may tile differently: within 1e-5 is the contract;
  // how many came out identical is reported (all of them on lavapipe).
  std::printf("%d of %zu outputs bit-identical to the request run alone\n", identical,
              2 * clients.size());
}

TEST_F(DynamicBatcherTest, ResidentInputsAreGatheredAndResidentOutputsSliced) {
  settings_.max_queue_delay = absl::Seconds(10);  // Drain() sends them
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto batcher, DynamicBatcher::Create(model_, settings_));
  std::vector<std::unique_ptr<Client>> clients;
  for (int i = 0; i < 8; ++i) {
    auto c = std::make_unique<Client>();
    c->batch = 1 + i % 2;
    Fill(*c, 100 + i);
    if (i % 3 != 2) {  // resident input (others: host bytes of the same input)
      VKSERVE_ASSERT_OK_AND_ASSIGN(
          gpu::Buffer buffer, allocator_->Allocate(c->input.size(), gpu::MemoryUsage::kDeviceLocal,
                                                   gpu::MemoryKind::kResident));
      VKSERVE_ASSERT_OK(gpu::Upload(*allocator_, buffer, 0, c->input));
      c->device_input = std::make_shared<DeviceTensor>("x", DataType::kFloat, Shape(*c),
                                                       std::move(buffer), model_->gpu());
    }
    c->resident_y = i < 4;  // two groups: y on the GPU, or not
    clients.push_back(std::move(c));
  }
  for (auto& c : clients) batcher->Submit(Request(*c), Record(*c));
  batcher->Drain();
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto session, Session::Create(model_));
  for (auto& c : clients) {
    ASSERT_TRUE(c->status.ok()) << c->status;
    ASSERT_EQ(c->outputs.size(), 2u);
    // Requests of one output placement ran together, the others apart.
    EXPECT_EQ(c->info.requests, 4);
    EXPECT_EQ(c->info.execution_batch_size, 6);
    const auto want = Alone(*session, *c);
    ASSERT_EQ(want.size(), 2u);
    for (int o = 0; o < 2; ++o) ExpectClose(c->outputs[o], want[o]);
  }
}

TEST_F(DynamicBatcherTest, CancelledOrTimedOutWhileFormingNeverRuns) {
  settings_.preferred_batch_sizes = {8};
  // Far longer than the answers below may take on a loaded CI machine under
  // a sanitizer; Drain() ends the wait well before it.
  settings_.max_queue_delay = absl::Seconds(5);
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto batcher, DynamicBatcher::Create(model_, settings_));
  Client cancelled, timed_out, a, b;
  for (Client* c : {&cancelled, &timed_out, &a, &b}) Fill(*c, 1);
  const absl::Time start = absl::Now();
  batcher->Submit(Request(cancelled), Record(cancelled));
  SchedulerRequest r = Request(timed_out);
  r.timeout = absl::Milliseconds(20);  // the policy has no timeout: the request's applies
  batcher->Submit(std::move(r), Record(timed_out));
  batcher->Submit(Request(a), Record(a));
  batcher->Submit(Request(b), Record(b));
  absl::SleepFor(absl::Milliseconds(10));
  cancelled.cancel = true;
  // Past the timeout, within the delay; then Drain() runs what still waits.
  absl::SleepFor(absl::Milliseconds(100));
  batcher->Drain();
  EXPECT_EQ(cancelled.status.code(), absl::StatusCode::kCancelled) << cancelled.status;
  EXPECT_EQ(timed_out.status.code(), absl::StatusCode::kDeadlineExceeded) << timed_out.status;
  // Answered while the batch was still forming, long before the delay ran out.
  EXPECT_LT(cancelled.answered - start, absl::Seconds(2));
  EXPECT_LT(timed_out.answered - start, absl::Seconds(2));
  EXPECT_EQ(cancelled.info.execution_batch_size, 0);
  EXPECT_EQ(timed_out.info.execution_batch_size, 0);
  // The others ran together, without them.
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto session, Session::Create(model_));
  for (Client* c : {&a, &b}) {
    ASSERT_TRUE(c->status.ok()) << c->status;
    EXPECT_EQ(c->info.execution_batch_size, 2);
    EXPECT_EQ(c->info.requests, 2);
    const auto want = Alone(*session, *c);
    ASSERT_EQ(want.size(), 2u);
    for (int o = 0; o < 2; ++o) ExpectClose(c->outputs[o], want[o]);
  }
}

TEST_F(DynamicBatcherTest, FullQueueIsRefusedAndDrainRunsTheFormingBatch) {
  settings_.preferred_batch_sizes = {8};
  settings_.max_queue_delay = absl::Seconds(30);
  settings_.max_queue_size = 2;
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto batcher, DynamicBatcher::Create(model_, settings_));
  Client a, b, refused, late;
  for (Client* c : {&a, &b, &refused, &late}) Fill(*c, 2);
  batcher->Submit(Request(a), Record(a));
  batcher->Submit(Request(b), Record(b));
  batcher->Submit(Request(refused), Record(refused));
  const absl::Time drain_start = absl::Now();
  batcher->Drain();
  EXPECT_LT(absl::Now() - drain_start, absl::Seconds(10));  // not the 30 s delay
  EXPECT_EQ(refused.status.code(), absl::StatusCode::kResourceExhausted) << refused.status;
  EXPECT_NE(refused.status.message().find("convnet"), std::string::npos) << refused.status;
  for (Client* c : {&a, &b}) {
    ASSERT_TRUE(c->status.ok()) << c->status;
    EXPECT_EQ(c->info.execution_batch_size, 2);
  }
  batcher->Submit(Request(late), Record(late));
  EXPECT_EQ(late.status.code(), absl::StatusCode::kUnavailable);
}

TEST_F(DynamicBatcherTest, PriorityLevelsRunInOrderWithTheirOwnQueues) {
  settings_.max_queue_delay = absl::Seconds(10);  // Drain() sends them, highest level first
  settings_.priority_levels = 2;
  settings_.default_priority_level = 2;
  settings_.priority_queue_policies[1].max_queue_size = 1;
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto batcher, DynamicBatcher::Create(model_, settings_));
  Client low, high, high_refused, default_level;
  for (Client* c : {&low, &high, &high_refused, &default_level}) Fill(*c, 3);
  low.size = 9;  // a shape of its own: never in the high request's batch
  Fill(low, 4);
  auto submit = [&](Client& c, uint64_t priority) {
    SchedulerRequest r = Request(c);
    r.priority = priority;
    batcher->Submit(std::move(r), Record(c));
  };
  submit(low, 2);
  submit(high, 1);
  submit(high_refused, 1);    // level 1 holds one request
  submit(default_level, 99);  // out of range: the default level, 2
  batcher->Drain();
  ASSERT_TRUE(low.status.ok()) << low.status;
  ASSERT_TRUE(high.status.ok()) << high.status;
  ASSERT_TRUE(default_level.status.ok()) << default_level.status;
  EXPECT_EQ(high_refused.status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(high_refused.status.message().find("priority level 1"), std::string::npos);
  // The high request arrived after the low one but ran first. As in Triton
  // the queue is walked in priority order, so the default-level request of
  // the same shape joined its batch; the low one, of another shape, did not.
  EXPECT_LT(high.answered, low.answered);
  EXPECT_EQ(high.info.execution_batch_size, 2);
  EXPECT_EQ(default_level.info.execution_batch_size, 2);
  EXPECT_EQ(low.info.execution_batch_size, 1);
}

TEST_F(DynamicBatcherTest, LoneRequestsStopWaitingUntilRequestsMeetAgain) {
  // Long enough that a lone run which goes at once (tinynet, even under a
  // sanitizer on a loaded CI machine) ends well within it.
  settings_.max_queue_delay = absl::Milliseconds(400);
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto batcher, DynamicBatcher::Create(model_, settings_));
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto session, Session::Create(model_));
  // One client at a time: submit, wait for the answer, check it.
  auto one = [&](int seed) {
    Client c;
    Fill(c, seed);
    std::promise<void> answered;
    const absl::Time start = absl::Now();
    batcher->Submit(Request(c), [&](absl::StatusOr<RunResult> result, const ExecutionInfo& info) {
      Record(c)(std::move(result), info);
      answered.set_value();
    });
    answered.get_future().wait();
    EXPECT_TRUE(c.status.ok()) << c.status;
    if (c.status.ok()) {
      const auto want = Alone(*session, c);
      for (int o = 0; o < 2; ++o) ExpectClose(c.outputs[o], want[o]);
    }
    return c.answered - start;
  };
  // Eight lone requests wait the whole delay for company that never comes.
  for (int i = 0; i < 8; ++i) EXPECT_GE(one(i), absl::Milliseconds(400)) << "request " << i;
  // Then lone requests go at once (the 16th would be a probe).
  for (int i = 8; i < 20; ++i) EXPECT_LT(one(i), absl::Milliseconds(300)) << "request " << i;
  // Three at once on the one session: the first goes alone, the other two
  // meet while it runs and form a batch, so waiting pays again.
  Client a, b, c;
  Fill(a, 30), Fill(b, 31), Fill(c, 32);
  // Each callback signals its own promise, so the reads below happen after
  // the writes in the callbacks (no sleeping on the batcher's timing). The
  // first run is held (its input is read, and the read waits) until all
  // three are submitted, so the other two are queued while it runs however
  // slowly this thread runs (under ThreadSanitizer, on a loaded CI machine,
  // the first run could otherwise end before the third arrives).
  std::promise<void> done[3];
  std::promise<void> all_submitted;
  std::shared_future<void> submitted = all_submitted.get_future().share();
  Client* const clients[3] = {&a, &b, &c};
  a.use_reader = true;
  for (int i = 0; i < 3; ++i) {
    SchedulerRequest request = Request(*clients[i]);
    if (i == 0) {
      HostInputReader read = std::get<HostInputReader>(request.run.inputs[0].source);
      request.run.inputs[0].source = HostInputReader([read, submitted](std::span<uint8_t> to) {
        submitted.wait();
        return read(to);
      });
    }
    batcher->Submit(std::move(request),
                    [&, i](absl::StatusOr<RunResult> result, const ExecutionInfo& info) {
                      Record (*clients[i])(std::move(result), info);
                      done[i].set_value();
                    });
  }
  all_submitted.set_value();
  for (auto& d : done) d.get_future().wait();
  for (Client* x : clients) ASSERT_TRUE(x->status.ok()) << x->status;
  EXPECT_EQ(b.info.execution_batch_size, 2);
  EXPECT_EQ(c.info.execution_batch_size, 2);
  EXPECT_GE(one(40), absl::Milliseconds(400)) << "after requests met, a lone one waits again";
}

TEST_F(DynamicBatcherTest, ABatchKeepsGrowingWhileAnotherHoldsTheGpu) {
  // b[0] waits out the 1 ms delay three times over with the second session
  // idle; b[1] and b[2] then come. All three run as one batch once a's GPU
  // work is about to end, where without pacing b[0] would have left alone
  // after the delay.
  Client a, b[3];
  absl::Time b1_submitted;
  const absl::Duration gpu = HoldScenario(absl::Milliseconds(1), a, b, &b1_submitted);
  ASSERT_GE(gpu, absl::Milliseconds(20)) << "too short a run to tell holding from timing noise";
  ASSERT_TRUE(a.status.ok()) << a.status;
  EXPECT_EQ(a.info.requests, 1);
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto session, Session::Create(model_));
  for (Client& c : b) {
    ASSERT_TRUE(c.status.ok()) << c.status;
    EXPECT_EQ(c.info.requests, 3) << "b1 left before b2 and b3 came";
    EXPECT_EQ(c.info.execution_batch_size, 3);
    const auto want = Alone(*session, c);
    for (int o = 0; o < 2; ++o) ExpectClose(c.outputs[o], want[o]);
  }
  // The hold ends with a's run: b's batch started about when a was answered,
  // not after (slack: half of a's GPU time).
  const absl::Time b_started =
      b1_submitted + absl::Nanoseconds(static_cast<int64_t>(b[0].info.queue_ns));
  EXPECT_LE(b_started - a.answered, gpu / 2) << "b's batch waited past a's end";
}

TEST_F(DynamicBatcherTest, WithNoDelayNothingWaitsForTheGpu) {
  // max_queue_delay 0 asks for no waiting: b[0] leaves at once on the idle
  // session while a still runs.
  Client a, b[3];
  absl::Time b1_submitted;
  const absl::Duration gpu = HoldScenario(absl::ZeroDuration(), a, b, &b1_submitted);
  ASSERT_GE(gpu, absl::Milliseconds(20)) << "too short a run to tell holding from timing noise";
  for (Client& c : b) ASSERT_TRUE(c.status.ok()) << c.status;
  EXPECT_EQ(b[0].info.requests, 1) << "b1 waited for the GPU";
  EXPECT_LT(absl::Nanoseconds(static_cast<int64_t>(b[0].info.queue_ns)), gpu / 2);
}

TEST_F(DynamicBatcherTest, UnplannedSizeRunsPaddedWhileItIsPlanned) {
  settings_.preferred_batch_sizes = {4};          // planned at creation, at H = W = 1
  settings_.max_queue_delay = absl::Seconds(10);  // Drain() sends the batch
  const std::vector<std::vector<int64_t>> three = {{3, kChannels, 1, 1}};
  // A batcher's destructor drops the plans it has not started, so each is
  // kept to the end: the first must outlive the planning awaited below.
  std::vector<std::unique_ptr<DynamicBatcher>> batchers;
  auto batch_of_three = [&](std::vector<std::unique_ptr<Client>>& clients, int seed) {
    VKSERVE_ASSERT_OK_AND_ASSIGN(batchers.emplace_back(),
                                 DynamicBatcher::Create(model_, settings_));
    DynamicBatcher* batcher = batchers.back().get();
    for (int i = 0; i < 3; ++i) {
      auto c = std::make_unique<Client>();
      c->size = 1;  // the planned non-batch shape
      c->use_sink = i == 1;
      c->use_reader = i == 2;  // the batch's input is read, its tail zeroed
      Fill(*c, seed + i);
      batcher->Submit(Request(*c), Record(*c));
      clients.push_back(std::move(c));
    }
    batcher->Drain();
  };
  ASSERT_FALSE(model_->HasPlan(three));
  std::vector<std::unique_ptr<Client>> padded;
  batch_of_three(padded, 50);
  // Planned ahead in the background: wait for the planner to go idle
  // (bounded, generously: a loaded CI machine under TSan is slow), then the
  // plan must be there (a failed plan is logged by the batcher).
  ASSERT_TRUE(batchers.front()->AwaitPlansAhead(absl::Minutes(3)))
      << "the batch's own size was still being planned ahead after 3 minutes";
  EXPECT_TRUE(model_->HasPlan(three)) << "the batch's own size was not planned ahead";
  std::vector<std::unique_ptr<Client>> exact;
  batch_of_three(exact, 50);

  VKSERVE_ASSERT_OK_AND_ASSIGN(auto session, Session::Create(model_));
  for (auto* run : {&padded, &exact}) {
    for (auto& c : *run) {
      ASSERT_TRUE(c->status.ok()) << c->status;
      // Padding rows are neither counted nor returned.
      EXPECT_EQ(c->info.execution_batch_size, 3);
      EXPECT_EQ(c->info.requests, 3);
      EXPECT_EQ(c->info.padding_rows, run == &padded ? 1 : 0);
      ASSERT_EQ(c->outputs.size(), 2u);
      const auto want = Alone(*session, *c);
      for (int o = 0; o < 2; ++o) ExpectClose(c->outputs[o], want[o]);
    }
  }
  // Padded or not, the same requests get the same outputs.
  for (size_t i = 0; i < padded.size(); ++i) EXPECT_EQ(padded[i]->outputs, exact[i]->outputs);
}

}  // namespace
}  // namespace vkserve
