// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The memory budget of cached plans and per-signature session state
// (gpu/cache_budget.h): a model run at many distinct batch sizes keeps
// its cached bytes within the budget by evicting least recently used
// entries, still computes what a fresh model computes, never frees a plan a
// caller holds or the state of a run in flight, and gives the memory back
// (process RSS on lavapipe, whose device memory is host memory).
#include "gpu/cache_budget.h"

#include <gmock/gmock.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "absl/base/config.h"
#include "base/host_heap.h"
#include "runtime/model.h"
#include "runtime/session.h"
#include "tests/testing/gpu_fixture.h"
#include "tests/testing/graph_helpers.h"

namespace vkserve {
namespace {

using testing::GpuTest;

// y = Relu(x + c) * c, x float[N, width], c float[width].
Graph ElementwiseGraph(int64_t width) {
  Graph g;
  g.opset_imports[""] = 14;
  TensorType type;
  type.dtype = DataType::kFloat;
  type.has_shape = true;
  type.shape = {Dim{-1, "N", ""}, Dim{width, "", ""}};
  g.inputs.push_back({"x", type});
  g.outputs.push_back({"y", type});
  std::vector<float> c(static_cast<size_t>(width));
  for (size_t i = 0; i < c.size(); ++i) c[i] = 0.25f + static_cast<float>(i % 7) * 0.5f;
  g.initializers["c"] = HostTensor::FromFloats(c, {width});
  auto node = [&](const char* name, const char* op, std::vector<std::string> in, const char* out) {
    Node n;
    n.name = name;
    n.op_type = op;
    n.opset = 14;
    n.inputs = std::move(in);
    n.outputs = {out};
    g.nodes.push_back(std::move(n));
  };
  node("add", "Add", {"x", "c"}, "s");
  node("relu", "Relu", {"s"}, "r");
  node("mul", "Mul", {"r", "c"}, "y");
  return g;
}

using testing::Floats;

// Resident set size of this process, in bytes.
uint64_t Rss() {
  long pages = 0, resident = 0;
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  const int read = std::fscanf(f, "%ld %ld", &pages, &resident);
  std::fclose(f);
  return read == 2 ? static_cast<uint64_t>(resident) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE))
                   : 0;
}

class CacheBudgetTest : public GpuTest {
 protected:
  static constexpr int64_t kWidth = 256;

  std::shared_ptr<Model> Load(std::optional<CacheLimits> limits, int64_t width = kWidth) {
    ModelOptions options;
    options.cache_limits = limits;
    auto model = Model::FromGraph(ElementwiseGraph(width),
                                  {device_.get(), allocator_.get(), pipelines_.get()}, options);
    EXPECT_TRUE(model.ok()) << model.status();
    return model.ok() ? *model : nullptr;
  }

  static HostTensor Input(int64_t n, int64_t width = kWidth) {
    std::vector<float> x(static_cast<size_t>(n * width));
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = static_cast<float>(static_cast<int64_t>(i * 37 % 101) - 50) / 16.0f;
    return HostTensor::FromFloats(x, {n, width});
  }

  static RunRequest Request(const HostTensor& x) {
    RunRequest r;
    r.inputs.push_back(InputBinding::Host("x", x));
    return r;
  }

  // What the model computes, on the host.
  static std::vector<float> Reference(const HostTensor& x, int64_t width = kWidth) {
    const std::vector<float> in = Floats(x);
    std::vector<float> y(in.size());
    for (size_t i = 0; i < in.size(); ++i) {
      const float c = 0.25f + static_cast<float>((i % width) % 7) * 0.5f;
      y[i] = std::max(in[i] + c, 0.0f) * c;
    }
    return y;
  }
};

TEST_F(CacheBudgetTest, ManyBatchSizesStayWithinTheBudgetAndMatchAFreshModel) {
  const CacheLimits limits{uint64_t{1} << 20, uint64_t{256} << 10};
  const std::shared_ptr<Model> model = Load(limits);
  ASSERT_NE(model, nullptr);
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> session, Session::Create(model));
  std::vector<int64_t> batches;
  for (int64_t k = 0; k < 24; ++k) batches.push_back(8 * k + 1);
  for (int64_t k = 0; k < 6; ++k) batches.push_back(8 * k + 1);  // again, after eviction
  for (int64_t n : batches) {
    SCOPED_TRACE(n);
    const HostTensor x = Input(n);
    VKSERVE_ASSERT_OK_AND_ASSIGN(const RunResult got, session->Run(Request(x)));
    const CacheBudgetStats stats = model->cache_stats();
    EXPECT_LE(stats.device_bytes, limits.device_bytes);
    EXPECT_LE(stats.host_bytes, limits.host_bytes);
    EXPECT_EQ(stats.device_bytes, stats.of(CacheKind::kPlan).device_bytes +
                                      stats.of(CacheKind::kSessionState).device_bytes);
    EXPECT_GE(stats.of(CacheKind::kPlan).entries, session->cached_state_count());
    // A fresh model without a budget computes the same bits.
    const std::shared_ptr<Model> fresh = Load(CacheLimits{});
    ASSERT_NE(fresh, nullptr);
    VKSERVE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> fresh_session, Session::Create(fresh));
    VKSERVE_ASSERT_OK_AND_ASSIGN(const RunResult want, fresh_session->Run(Request(x)));
    EXPECT_EQ(got.outputs[0].host.data.ToVector(), want.outputs[0].host.data.ToVector());
    EXPECT_THAT(Floats(got.outputs[0].host),
                ::testing::Pointwise(::testing::FloatNear(1e-5f), Reference(x)));
  }
  const CacheBudgetStats stats = model->cache_stats();
  EXPECT_GT(stats.of(CacheKind::kPlan).evictions, 0u);
  EXPECT_GT(stats.of(CacheKind::kSessionState).evictions, 0u);
  EXPECT_GT(stats.of(CacheKind::kSessionState).misses, 24u) << "evicted states were rebuilt";
  EXPECT_LT(session->cached_state_count(), 24u);
  EXPECT_LT(model->cached_plan_count(), 24u);
  EXPECT_GT(session->cached_state_count(), 0u) << "the budget holds some states";
}

TEST_F(CacheBudgetTest, APlanInUseIsNeitherEvictedNorFreed) {
  const std::shared_ptr<Model> model = Load(CacheLimits{1, 1});  // nothing idle stays
  ASSERT_NE(model, nullptr);
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> session, Session::Create(model));
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::shared_ptr<const Plan> held, model->GetPlan({{5, kWidth}}));
  for (int64_t n : {1, 2, 3, 7, 9}) {
    VKSERVE_ASSERT_OK_AND_ASSIGN(const RunResult r, session->Run(Request(Input(n))));
  }
  EXPECT_GT(model->cache_stats().of(CacheKind::kPlan).evictions, 0u);
  EXPECT_EQ(model->cached_plan_count(), 1u) << "only the held plan stays";
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::shared_ptr<const Plan> again, model->GetPlan({{5, kWidth}}));
  EXPECT_EQ(again.get(), held.get()) << "a held plan stays cached";
  again.reset();
  // Still usable: a run at its shape matches the reference.
  const HostTensor x = Input(5);
  VKSERVE_ASSERT_OK_AND_ASSIGN(const RunResult r, session->Run(Request(x)));
  EXPECT_THAT(Floats(r.outputs[0].host),
              ::testing::Pointwise(::testing::FloatNear(1e-5f), Reference(x)));

  // Once released, the next enforcement evicts and frees it.
  const std::weak_ptr<const Plan> weak = held;
  held.reset();
  VKSERVE_ASSERT_OK_AND_ASSIGN(const RunResult other, session->Run(Request(Input(11))));
  EXPECT_TRUE(weak.expired());
}

TEST_F(CacheBudgetTest, TheStateOfARunInFlightIsNotEvicted) {
  const std::shared_ptr<Model> model = Load(CacheLimits{1, 1});
  ASSERT_NE(model, nullptr);
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> a, Session::Create(model));
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> b, Session::Create(model));
  const HostTensor x = Input(33);
  RunRequest request = Request(x);
  std::vector<uint8_t> sink;
  size_t a_states_during = 0;
  uint64_t evictions_during = 0;
  // Called while `a`'s run holds its state, before its output is copied out
  // of that state's buffers: `b` forces evictions meanwhile.
  request.Output("y").sink = [&](const std::vector<int64_t>&, uint64_t bytes) {
    for (int64_t n : {2, 4, 6, 8}) {
      auto r = b->Run(Request(Input(n)));
      EXPECT_TRUE(r.ok()) << r.status();
    }
    a_states_during = a->cached_state_count();
    evictions_during = model->cache_stats().of(CacheKind::kSessionState).evictions;
    sink.assign(bytes, 0);
    return OutputPieces{std::span<uint8_t>(sink)};
  };
  VKSERVE_ASSERT_OK_AND_ASSIGN(const RunResult r, a->Run(request));
  EXPECT_EQ(a_states_during, 1u) << "the busy state was evicted";
  EXPECT_GT(evictions_during, 0u);
  ASSERT_TRUE(r.outputs[0].in_sink);
  HostTensor got = HostTensor::FromFloats(std::vector<float>(sink.size() / 4), x.shape);
  std::memcpy(got.data.data(), sink.data(), sink.size());
  EXPECT_THAT(Floats(got), ::testing::Pointwise(::testing::FloatNear(1e-5f), Reference(x)));
  EXPECT_EQ(a->cached_state_count(), 0u) << "idle again, and over the budget";
  EXPECT_EQ(b->cached_state_count(), 0u);
}

// Lavapipe's device memory is host memory: what the budget evicts must leave
// the process. Ten batch sizes of about 40 MB of state each would keep
// ~400 MB without eviction; with a 64 MiB budget growth stays far below.
TEST_F(CacheBudgetTest, EvictedMemoryLeavesTheProcess) {
#ifdef ABSL_HAVE_ADDRESS_SANITIZER  // GCC and clang alike
  // AddressSanitizer's allocator quarantines freed memory and keeps its own
  // pools, so the process's RSS says nothing about what vkserve returned.
  GTEST_SKIP() << "RSS is not meaningful under AddressSanitizer";
#endif
  constexpr int64_t kWide = 4096;
  const CacheLimits limits{uint64_t{64} << 20, uint64_t{16} << 20};
  const std::shared_ptr<Model> model = Load(limits, kWide);
  ASSERT_NE(model, nullptr);
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> session, Session::Create(model));
  { VKSERVE_ASSERT_OK_AND_ASSIGN(const RunResult warm, session->Run(Request(Input(512, kWide)))); }
  TrimHostMemory();
  const uint64_t baseline = Rss();
  ASSERT_GT(baseline, 0u);
  uint64_t allocated = 0;
  for (int64_t k = 1; k <= 10; ++k) {
    const int64_t n = 512 + 32 * k;
    const HostTensor x = Input(n, kWide);
    VKSERVE_ASSERT_OK_AND_ASSIGN(const RunResult r, session->Run(Request(x)));
    allocated += 4 * static_cast<uint64_t>(n * kWide) * sizeof(float);
  }
  TrimHostMemory();
  const uint64_t growth = Rss() > baseline ? Rss() - baseline : 0;
  std::printf("rss growth %llu MiB\n", static_cast<unsigned long long>(growth >> 20));
  EXPECT_GT(allocated, uint64_t{300} << 20);
  EXPECT_LT(growth, limits.device_bytes + (uint64_t{96} << 20))
      << "RSS grew by " << (growth >> 20) << " MiB over ten batch sizes";
  EXPECT_GT(model->cache_stats().of(CacheKind::kSessionState).evictions, 0u);
  EXPECT_GT(model->cache_stats().host_trims, 0u);
}

}  // namespace
}  // namespace vkserve
