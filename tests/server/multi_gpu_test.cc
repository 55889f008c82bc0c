// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// A model on several GPUs, on one lavapipe device: two lavapipe devices
// cannot be created, so the test opens the one physical device twice — two
// gpu::Device objects (VkDevices), each with its own queue, allocator and
// pipeline cache, as two GPUs of a multi-GPU host would have — and loads
// the model on each. Checked through the schedulers:
//  - GpuLoad picks the GPU with an idle session and the fewest busy ones;
//  - SessionPool and DynamicBatcher spread concurrent requests over both
//    GPUs least-loaded first (0, 1, 0, 1 — not 0, 0, 1, 1), with the
//    outputs each request gets when run alone;
//  - a GPU-resident output fed to a session on the other GPU is copied
//    through the host (counted in ExecutionInfo) and gives the output the
//    same input gives from the host; on its own GPU it is bound as is.
// The validation layer (CTest turns it on) fails the test if a buffer of
// one VkDevice were ever bound on the other.
#include <atomic>
#include <cmath>
#include <cstring>

#include "base/mutex.h"
#include "server/scheduling/dynamic_batcher.h"
#include "server/scheduling/gpu_load.h"
#include "server/scheduling/session_pool.h"
#include "tests/testing/conv_model.h"
#include "tests/testing/gpu_fixture.h"

namespace vkserve {
namespace {

using testing::GpuTest;
constexpr int64_t kChannels = 4;
constexpr int64_t kSize = 8;

// y = Conv(x, W) (pads 1) on x [N, 4, 8, 8], N symbolic: y has x's shape,
// so an output can be fed back as an input.
Graph ConvGraph() {
  testing::ConvGraphSpec spec;
  spec.input_shape = {Dim{-1, "N", ""}, Dim{kChannels, "", ""}, Dim{kSize, "", ""},
                      Dim{kSize, "", ""}};
  spec.weight_seed = 11;
  return testing::ConvGraph(spec);
}

std::vector<uint8_t> RandomInput(int seed) {
  return testing::RandomFloatBytes(static_cast<size_t>(kChannels * kSize * kSize),
                                   static_cast<unsigned>(seed));
}

void ExpectSameFloats(std::span<const uint8_t> got, std::span<const uint8_t> want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i + 4 <= got.size(); i += 4) {
    float a, b;
    std::memcpy(&a, got.data() + i, 4);
    std::memcpy(&b, want.data() + i, 4);
    ASSERT_NEAR(a, b, 1e-5f * (1.0f + std::fabs(b))) << "float " << i / 4;
  }
}

// One request: its bytes, and what came back, recorded by the callback.
struct Call {
  std::vector<uint8_t> input;
  std::shared_ptr<DeviceTensor> device_input;  // bound instead of `input`
  bool resident_output = false;
  Mutex mutex;
  bool running ABSL_GUARDED_BY(mutex) = false;  // its run reads its input
  bool answered ABSL_GUARDED_BY(mutex) = false;
  absl::StatusOr<RunResult> result ABSL_GUARDED_BY(mutex) = absl::UnknownError("not answered");
  ExecutionInfo info ABSL_GUARDED_BY(mutex);
};

class MultiGpuTest : public GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    // The second identity: the same physical device opened again.
    gpu::DeviceOptions options;
    if (const char* sel = std::getenv("VKSERVE_TEST_DEVICE")) options.selector = sel;
    VKSERVE_ASSERT_OK_AND_ASSIGN(device2_, gpu::Device::Create(*instance_, options));
    VKSERVE_ASSERT_OK_AND_ASSIGN(allocator2_, gpu::Allocator::Create(*device2_));
    VKSERVE_ASSERT_OK_AND_ASSIGN(pipelines2_, gpu::PipelineCache::Create(*device2_));
    VKSERVE_ASSERT_OK_AND_ASSIGN(models_[0], Model::FromGraph(ConvGraph(), context()));
    VKSERVE_ASSERT_OK_AND_ASSIGN(
        models_[1],
        Model::FromGraph(ConvGraph(), {device2_.get(), allocator2_.get(), pipelines2_.get()}));
    ASSERT_NE(models_[0]->gpu().device, models_[1]->gpu().device);
    settings_.name = "conv";
    settings_.max_batch_size = 4;
    settings_.dynamic_batching = true;
  }
  void TearDown() override {
    // Everything made on the second device goes before it.
    models_[0].reset();
    models_[1].reset();
    pipelines2_.reset();
    allocator2_.reset();
    device2_.reset();
    GpuTest::TearDown();
  }

  std::vector<ModelReplica> Replicas(int sessions0, int sessions1) const {
    std::vector<ModelReplica> r;
    if (sessions0 > 0) r.push_back({models_[0], sessions0});
    if (sessions1 > 0) r.push_back({models_[1], sessions1});
    return r;
  }

  // The output `input` gets run alone, on the first GPU, from the host.
  std::vector<uint8_t> Alone(const std::vector<uint8_t>& input) {
    auto session = Session::Create(models_[0]);
    EXPECT_TRUE(session.ok()) << session.status();
    if (!session.ok()) return {};
    auto outputs = testing::RunAlone(**session, "x", {1, kChannels, kSize, kSize}, input);
    return outputs.empty() ? std::vector<uint8_t>{} : outputs[0];
  }

  // Submits `call`; its callback records the answer. A host input is read
  // by the run, which keeps its session busy while `hold` is set (the
  // schedulers hand a session back before answering).
  void Submit(Scheduler& scheduler, Call& call) {
    SchedulerRequest request;
    if (call.device_input != nullptr) {
      request.run.inputs.push_back(InputBinding::Device("x", call.device_input));
    } else {
      auto read = [this, &call](std::span<uint8_t> to) {
        {
          MutexLock lock(&call.mutex);
          call.running = true;
        }
        MutexLock lock(&hold_mutex_);
        hold_mutex_.Await(Condition(
            +[](bool* hold) { return !*hold; }, &hold_));
        if (to.size() != call.input.size())
          return absl::InternalError("reader given the wrong size");
        std::memcpy(to.data(), call.input.data(), to.size());
        return absl::OkStatus();
      };
      request.run.inputs.push_back(
          InputBinding::Read("x", DataType::kFloat, {1, kChannels, kSize, kSize}, read));
    }
    if (call.resident_output)
      request.run.outputs.push_back({"y", OutputLocation::kDevice, nullptr});
    request.batch_size = 1;
    scheduler.Submit(std::move(request),
                     [&call](absl::StatusOr<RunResult> r, const ExecutionInfo& info) {
                       {
                         MutexLock lock(&call.mutex);
                         call.result = std::move(r);
                         call.info = info;
                         call.answered = true;
                       }
                     });
  }
  static void AwaitAnswer(Call& call) {
    MutexLock lock(&call.mutex);
    call.mutex.Await(Condition(&call.answered));
  }
  static void AwaitRunning(Call& call) {
    MutexLock lock(&call.mutex);
    call.mutex.Await(Condition(&call.running));
  }
  void Hold(bool hold) {
    MutexLock lock(&hold_mutex_);
    hold_ = hold;
  }

  // Four requests, each submitted once the one before is running (its
  // session held busy): the GPUs they ran on, and each output checked
  // against the request run alone.
  std::vector<int> SpreadFour(Scheduler& scheduler) {
    std::vector<int> gpus;
    Call calls[4];
    Hold(true);
    for (int i = 0; i < 4; ++i) {
      calls[i].input = RandomInput(100 + i);
      Submit(scheduler, calls[i]);
      AwaitRunning(calls[i]);
    }
    Hold(false);
    scheduler.Drain();
    for (Call& call : calls) {
      MutexLock lock(&call.mutex);
      EXPECT_TRUE(call.result.ok()) << call.result.status();
      gpus.push_back(call.info.gpu);
      if (call.result.ok()) ExpectSameFloats(call.result->outputs[0].host.data, Alone(call.input));
    }
    return gpus;
  }

  std::unique_ptr<gpu::Device> device2_;
  std::unique_ptr<gpu::Allocator> allocator2_;
  std::unique_ptr<gpu::PipelineCache> pipelines2_;
  std::shared_ptr<Model> models_[2];
  ModelSettings settings_;
  Mutex hold_mutex_;
  bool hold_ ABSL_GUARDED_BY(hold_mutex_) = false;
};

TEST(GpuLoadTest, PicksTheLeastBusyGpuWithAnIdleSession) {
  GpuLoad load({2, 1, 2});
  EXPECT_EQ(load.Pick(), 0);  // all idle: the first
  load.Take(0);
  EXPECT_EQ(load.Pick(), 1);
  load.Take(1);
  EXPECT_EQ(load.Pick(), 2);
  load.Take(2);
  EXPECT_EQ(load.Pick(), 0);  // 1 busy each; GPU 1 has no idle session
  load.Take(0);
  EXPECT_EQ(load.Pick(), 2);
  load.Take(2);
  EXPECT_EQ(load.Pick(), -1);  // every session busy
  load.Give(1);
  EXPECT_EQ(load.Pick(), 1);
  load.Give(0);
  EXPECT_EQ(load.Pick(), 1);  // 0 busy on GPU 1, 1 on GPU 0: GPU 1
  EXPECT_EQ(load.busy(0), 1);
  EXPECT_EQ(load.busy(2), 2);
}

TEST(GpuLoadTest, LeastBusyListsEveryGpuPickCouldReturn) {
  GpuLoad load({2, 1, 2});
  EXPECT_EQ(load.LeastBusy(), (std::vector<int>{0, 1, 2}));
  load.Take(0);
  EXPECT_EQ(load.LeastBusy(), (std::vector<int>{1, 2}));
  load.Take(1);
  load.Take(2);
  EXPECT_EQ(load.LeastBusy(), (std::vector<int>{0, 2})) << "GPU 1 has no idle session";
  load.Take(0);
  load.Take(2);
  EXPECT_TRUE(load.LeastBusy().empty());
}

TEST_F(MultiGpuTest, SessionPoolSpreadsOverGpusLeastLoadedFirst) {
  SessionPoolOptions options;
  options.name = "conv";
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto pool, SessionPool::Create(Replicas(2, 2), options));
  const SchedulerStats idle = pool->stats();
  EXPECT_EQ(idle.sessions, 4u);
  EXPECT_EQ(idle.sessions_by_gpu, (std::vector<uint64_t>{2, 2}));
  EXPECT_EQ(SpreadFour(*pool), (std::vector<int>{0, 1, 0, 1}));
}

TEST_F(MultiGpuTest, DynamicBatcherSpreadsOverGpusLeastLoadedFirst) {
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto batcher, DynamicBatcher::Create(Replicas(2, 2), settings_));
  EXPECT_EQ(batcher->stats().sessions_by_gpu, (std::vector<uint64_t>{2, 2}));
  EXPECT_EQ(SpreadFour(*batcher), (std::vector<int>{0, 1, 0, 1}));
}

TEST_F(MultiGpuTest, BusySessionsAreCountedPerGpu) {
  SessionPoolOptions options;
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto pool, SessionPool::Create(Replicas(1, 2), options));
  Call calls[2];
  Hold(true);
  for (Call& call : calls) {
    call.input = RandomInput(7);
    Submit(*pool, call);
    AwaitRunning(call);
  }
  const SchedulerStats busy = pool->stats();
  Hold(false);
  EXPECT_EQ(busy.busy_by_gpu, (std::vector<uint64_t>{1, 1}));
  EXPECT_EQ(busy.busy_sessions, 2u);
  pool->Drain();
}

TEST_F(MultiGpuTest, ResidentInputFromAnotherGpuIsCopiedThroughTheHost) {
  SessionPoolOptions options;
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto on_first, SessionPool::Create(Replicas(1, 0), options));
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto on_second, SessionPool::Create(Replicas(0, 1), options));
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto batcher_on_second,
                               DynamicBatcher::Create(Replicas(0, 1), settings_));

  // Produce y on the first GPU, kept there.
  Call produce;
  produce.input = RandomInput(5);
  produce.resident_output = true;
  Submit(*on_first, produce);
  AwaitAnswer(produce);
  std::shared_ptr<DeviceTensor> resident;
  {
    MutexLock lock(&produce.mutex);
    ASSERT_TRUE(produce.result.ok()) << produce.result.status();
    resident = produce.result->outputs[0].device;
  }
  ASSERT_NE(resident, nullptr);
  EXPECT_EQ(resident->device(), models_[0]->gpu().device);
  VKSERVE_ASSERT_OK_AND_ASSIGN(HostTensor y, resident->Read());
  const std::vector<uint8_t> want = Alone(y.data.ToVector());

  // Fed back: copied to the second GPU (pool and batcher), bound as is on
  // the first.
  struct Case {
    Scheduler* scheduler;
    uint64_t copies;
  };
  for (const Case& c :
       {Case{on_second.get(), 1}, Case{batcher_on_second.get(), 1}, Case{on_first.get(), 0}}) {
    Call feed;
    feed.device_input = resident;
    Submit(*c.scheduler, feed);
    AwaitAnswer(feed);
    MutexLock lock(&feed.mutex);
    ASSERT_TRUE(feed.result.ok()) << feed.result.status();
    EXPECT_EQ(feed.info.cross_device_copies, c.copies);
    EXPECT_EQ(feed.info.cross_device_bytes, c.copies * resident->byte_size());
    ExpectSameFloats(feed.result->outputs[0].host.data, want);
  }
  // The resident output stays where it was made, and usable.
  EXPECT_FALSE(resident->released());
  EXPECT_EQ(resident->device(), models_[0]->gpu().device);

  // Released: the copy fails with the tensor's error, naming the input,
  // and the request does not count as run.
  resident->Release();
  for (Scheduler* scheduler : {static_cast<Scheduler*>(on_second.get()),
                               static_cast<Scheduler*>(batcher_on_second.get())}) {
    Call late;
    late.device_input = resident;
    Submit(*scheduler, late);
    AwaitAnswer(late);
    MutexLock lock(&late.mutex);
    EXPECT_EQ(late.result.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_NE(late.result.status().message().find("input 'x'"), std::string::npos)
        << late.result.status();
    EXPECT_EQ(late.info.gpu, -1);
  }
}

}  // namespace
}  // namespace vkserve
