// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Recording and submission: dispatch results checked element by element,
// replay with new input data, barriers only on real dependencies, and
// timestamps — all with push descriptors and with pooled descriptor sets.
#include "gpu/command_buffer.h"

#include <cstring>
#include <random>
#include <vector>

#include "gpu/transfer.h"
#include "tests/testing/gpu_fixture.h"

namespace vkserve::gpu {
namespace {

using testing::GpuTestWithDescriptorMode;

constexpr uint32_t kLocal = 64;

struct SaxpyParams {
  uint32_t n;
  float a;
};

std::vector<uint8_t> Bytes(const SaxpyParams& p) {
  std::vector<uint8_t> b(sizeof(p));
  std::memcpy(b.data(), &p, sizeof(p));
  return b;
}

std::vector<float> RandomFloats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  std::vector<float> v(n);
  for (float& f : v) f = dist(rng);
  return v;
}

std::span<const uint8_t> AsBytes(const std::vector<float>& v) {
  return {reinterpret_cast<const uint8_t*>(v.data()), v.size() * sizeof(float)};
}

class CommandBufferTest : public GpuTestWithDescriptorMode {
 protected:
  // Uploads x and y, records y = a*x + y, runs it and returns y.
  std::vector<float> RunSaxpy(uint32_t n, float a, const std::vector<float>& x,
                              const std::vector<float>& y) {
    auto pipeline = GetPipeline("gpu/saxpy", 2, sizeof(SaxpyParams), {kLocal, 1, 1});
    auto xb = allocator_->Allocate(n * 4, MemoryUsage::kDeviceLocal, MemoryKind::kIo);
    auto yb = allocator_->Allocate(n * 4, MemoryUsage::kDeviceLocal, MemoryKind::kIo);
    EXPECT_TRUE(xb.ok() && yb.ok());
    EXPECT_TRUE(Upload(*allocator_, *xb, 0, AsBytes(x)).ok());
    EXPECT_TRUE(Upload(*allocator_, *yb, 0, AsBytes(y)).ok());
    auto cb = CommandBuffer::Create(*device_);
    EXPECT_TRUE(cb.ok());
    EXPECT_TRUE((*cb)->Begin().ok());
    const Binding bindings[] = {{xb->range(), Access::kRead}, {yb->range(), Access::kReadWrite}};
    EXPECT_TRUE(
        (*cb)->Dispatch(pipeline, bindings, Bytes({n, a}), {(n + kLocal - 1) / kLocal, 1, 1}).ok());
    EXPECT_TRUE((*cb)->End().ok());
    auto value = device_->queue().Submit(**cb);
    EXPECT_TRUE(value.ok());
    EXPECT_TRUE(device_->queue().Wait(*value).ok());
    std::vector<float> out(n);
    EXPECT_TRUE(
        Download(*allocator_, *yb, 0, {reinterpret_cast<uint8_t*>(out.data()), n * 4u}).ok());
    return out;
  }
};

TEST_P(CommandBufferTest, DispatchResultsMatchElementByElement) {
  for (uint32_t n : {1u, 3u, 63u, 64u, 65u, 4097u, (1u << 20) + 1}) {
    SCOPED_TRACE(n);
    const auto x = RandomFloats(n, n), y = RandomFloats(n, n + 1);
    const float a = 1.5f;
    const std::vector<float> out = RunSaxpy(n, a, x, y);
    for (uint32_t i = 0; i < n; ++i) {
      // fma or mul+add: both within one rounding of the exact result.
      const float expected = a * x[i] + y[i];
      ASSERT_NEAR(out[i], expected, 1e-6f * (1 + std::abs(expected))) << "element " << i;
    }
  }
}

TEST_P(CommandBufferTest, ReplayUsesNewInputsWithoutRerecording) {
  const uint32_t n = 1000;
  auto pipeline = GetPipeline("gpu/saxpy", 2, sizeof(SaxpyParams), {kLocal, 1, 1});
  VKSERVE_ASSERT_OK_AND_ASSIGN(
      Buffer x, allocator_->Allocate(n * 4, MemoryUsage::kHostUpload, MemoryKind::kIo));
  VKSERVE_ASSERT_OK_AND_ASSIGN(
      Buffer y, allocator_->Allocate(n * 4, MemoryUsage::kHostUpload, MemoryKind::kIo));
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto cb, CommandBuffer::Create(*device_));
  VKSERVE_ASSERT_OK(cb->Begin());
  const Binding bindings[] = {{x.range(), Access::kRead}, {y.range(), Access::kReadWrite}};
  VKSERVE_ASSERT_OK(
      cb->Dispatch(pipeline, bindings, Bytes({n, 2.0f}), {(n + kLocal - 1) / kLocal, 1, 1}));
  VKSERVE_ASSERT_OK(cb->End());
  const VkCommandBuffer recorded = cb->handle();

  for (uint32_t run = 0; run < 5; ++run) {
    SCOPED_TRACE(run);
    const auto xs = RandomFloats(n, 100 + run), ys = RandomFloats(n, 200 + run);
    VKSERVE_ASSERT_OK(Upload(*allocator_, x, 0, AsBytes(xs)));
    VKSERVE_ASSERT_OK(Upload(*allocator_, y, 0, AsBytes(ys)));
    VKSERVE_ASSERT_OK_AND_ASSIGN(uint64_t value, device_->queue().Submit(*cb));
    VKSERVE_ASSERT_OK(device_->queue().Wait(value));
    std::vector<float> out(n);
    VKSERVE_ASSERT_OK(
        Download(*allocator_, y, 0, {reinterpret_cast<uint8_t*>(out.data()), n * 4u}));
    for (uint32_t i = 0; i < n; ++i) ASSERT_NEAR(out[i], 2.0f * xs[i] + ys[i], 1e-5f) << i;
    EXPECT_EQ(cb->handle(), recorded);
    EXPECT_EQ(cb->command_count(), 1u);
  }
}

TEST_P(CommandBufferTest, BarriersOnlyForRealDependencies) {
  const uint32_t n = 256;
  auto pipeline = GetPipeline("gpu/saxpy", 2, sizeof(SaxpyParams), {kLocal, 1, 1});
  VKSERVE_ASSERT_OK_AND_ASSIGN(
      Buffer x, allocator_->Allocate(n * 4, MemoryUsage::kHostUpload, MemoryKind::kIo));
  VKSERVE_ASSERT_OK_AND_ASSIGN(
      Buffer y1, allocator_->Allocate(n * 4, MemoryUsage::kHostUpload, MemoryKind::kIo));
  VKSERVE_ASSERT_OK_AND_ASSIGN(
      Buffer y2, allocator_->Allocate(n * 4, MemoryUsage::kHostUpload, MemoryKind::kIo));
  const std::vector<float> ones(n, 1.0f), zeros(n, 0.0f);
  VKSERVE_ASSERT_OK(Upload(*allocator_, x, 0, AsBytes(ones)));
  VKSERVE_ASSERT_OK(Upload(*allocator_, y1, 0, AsBytes(zeros)));
  VKSERVE_ASSERT_OK(Upload(*allocator_, y2, 0, AsBytes(zeros)));
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto cb, CommandBuffer::Create(*device_));
  VKSERVE_ASSERT_OK(cb->Begin());
  const std::array<uint32_t, 3> groups{n / kLocal, 1, 1};
  // Two dispatches that only share a read: no barrier between them.
  const Binding first[] = {{x.range(), Access::kRead}, {y1.range(), Access::kReadWrite}};
  const Binding second[] = {{x.range(), Access::kRead}, {y2.range(), Access::kReadWrite}};
  VKSERVE_ASSERT_OK(cb->Dispatch(pipeline, first, Bytes({n, 1.0f}), groups));
  VKSERVE_ASSERT_OK(cb->Dispatch(pipeline, second, Bytes({n, 2.0f}), groups));
  EXPECT_EQ(cb->barrier_count(), 0u);
  // y2 += 3 * y1 reads y1 and writes y2, both written above: one barrier.
  const Binding third[] = {{y1.range(), Access::kRead}, {y2.range(), Access::kReadWrite}};
  VKSERVE_ASSERT_OK(cb->Dispatch(pipeline, third, Bytes({n, 3.0f}), groups));
  EXPECT_EQ(cb->barrier_count(), 1u);
  VKSERVE_ASSERT_OK(cb->End());
  VKSERVE_ASSERT_OK_AND_ASSIGN(uint64_t value, device_->queue().Submit(*cb));
  VKSERVE_ASSERT_OK(device_->queue().Wait(value));
  std::vector<float> out(n);
  VKSERVE_ASSERT_OK(Download(*allocator_, y2, 0, {reinterpret_cast<uint8_t*>(out.data()), n * 4u}));
  for (uint32_t i = 0; i < n; ++i) ASSERT_FLOAT_EQ(out[i], 2.0f + 3.0f * 1.0f) << i;
}

// A profile times each command alone: independent neighbours, which share
// no range, still get a barrier between them when every command is timed.
TEST_P(CommandBufferTest, ProfiledCommandsRunOneAtATime) {
  if (device_->info().timestamp_valid_bits == 0) GTEST_SKIP() << "device has no timestamps";
  const uint32_t n = 256;
  auto pipeline = GetPipeline("gpu/saxpy", 2, sizeof(SaxpyParams), {kLocal, 1, 1});
  VKSERVE_ASSERT_OK_AND_ASSIGN(
      Buffer x, allocator_->Allocate(n * 4, MemoryUsage::kDeviceLocal, MemoryKind::kIo));
  VKSERVE_ASSERT_OK_AND_ASSIGN(
      Buffer y1, allocator_->Allocate(n * 4, MemoryUsage::kDeviceLocal, MemoryKind::kIo));
  VKSERVE_ASSERT_OK_AND_ASSIGN(
      Buffer y2, allocator_->Allocate(n * 4, MemoryUsage::kDeviceLocal, MemoryKind::kIo));
  const Binding first[] = {{x.range(), Access::kRead}, {y1.range(), Access::kReadWrite}};
  const Binding second[] = {{x.range(), Access::kRead}, {y2.range(), Access::kReadWrite}};
  for (uint32_t timed : {0u, 8u}) {
    CommandBufferOptions options;
    options.max_timed_commands = timed;
    VKSERVE_ASSERT_OK_AND_ASSIGN(auto cb, CommandBuffer::Create(*device_, options));
    VKSERVE_ASSERT_OK(cb->Begin());
    VKSERVE_ASSERT_OK(cb->Dispatch(pipeline, first, Bytes({n, 1.0f}), {n / kLocal, 1, 1}));
    VKSERVE_ASSERT_OK(cb->Dispatch(pipeline, second, Bytes({n, 2.0f}), {n / kLocal, 1, 1}));
    EXPECT_EQ(cb->barrier_count(), timed > 0 ? 1u : 0u) << "timed commands: " << timed;
    VKSERVE_ASSERT_OK(cb->End());
  }
}

TEST_P(CommandBufferTest, TimestampsAreNonZeroAndOrderedOnEveryReplay) {
  if (device_->info().timestamp_valid_bits == 0) GTEST_SKIP() << "device has no timestamps";
  const uint32_t n = 1 << 16;
  auto pipeline = GetPipeline("gpu/saxpy", 2, sizeof(SaxpyParams), {kLocal, 1, 1});
  VKSERVE_ASSERT_OK_AND_ASSIGN(
      Buffer x, allocator_->Allocate(n * 4, MemoryUsage::kDeviceLocal, MemoryKind::kIo));
  VKSERVE_ASSERT_OK_AND_ASSIGN(
      Buffer y, allocator_->Allocate(n * 4, MemoryUsage::kDeviceLocal, MemoryKind::kIo));
  CommandBufferOptions options;
  options.max_timed_commands = 8;
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto cb, CommandBuffer::Create(*device_, options));
  VKSERVE_ASSERT_OK(cb->Begin());
  VKSERVE_ASSERT_OK(cb->Fill(x.range(), 0, "fill x"));
  VKSERVE_ASSERT_OK(cb->Fill(y.range(), 0, "fill y"));
  const Binding bindings[] = {{x.range(), Access::kRead}, {y.range(), Access::kReadWrite}};
  for (int i = 0; i < 3; ++i) {
    VKSERVE_ASSERT_OK(cb->Dispatch(pipeline, bindings, Bytes({n, 1.0f}), {n / kLocal, 1, 1},
                                   "saxpy " + std::to_string(i)));
  }
  VKSERVE_ASSERT_OK(cb->End());
  for (int run = 0; run < 2; ++run) {
    VKSERVE_ASSERT_OK_AND_ASSIGN(uint64_t value, device_->queue().Submit(*cb));
    VKSERVE_ASSERT_OK(device_->queue().Wait(value));
    VKSERVE_ASSERT_OK_AND_ASSIGN(std::vector<TimestampSpan> spans, cb->ReadTimestamps());
    ASSERT_EQ(spans.size(), 5u);
    EXPECT_EQ(spans[0].label, "fill x");
    EXPECT_EQ(spans[4].label, "saxpy 2");
    for (size_t i = 0; i < spans.size(); ++i) {
      EXPECT_GT(spans[i].start_ns, 0u) << i;
      EXPECT_GE(spans[i].end_ns, spans[i].start_ns) << i;
      if (i > 0) {
        // One at a time, independent or not (the two fills share nothing).
        EXPECT_GE(spans[i].start_ns, spans[i - 1].end_ns) << i;
      }
    }
    // A dispatch over 64K elements takes measurable time.
    EXPECT_GT(spans[4].end_ns - spans[2].start_ns, 0u);
  }
}

// Timing::kSpans times the recorder's groups only: one span around the
// three dispatches, none for the fills outside it; re-recorded with
// kEachCommand, every command again.
TEST_P(CommandBufferTest, SpanTimingTimesOnlyTheGroups) {
  if (device_->info().timestamp_valid_bits == 0) GTEST_SKIP() << "device has no timestamps";
  const uint32_t n = 1 << 16;
  auto pipeline = GetPipeline("gpu/saxpy", 2, sizeof(SaxpyParams), {kLocal, 1, 1});
  VKSERVE_ASSERT_OK_AND_ASSIGN(
      Buffer x, allocator_->Allocate(n * 4, MemoryUsage::kDeviceLocal, MemoryKind::kIo));
  VKSERVE_ASSERT_OK_AND_ASSIGN(
      Buffer y, allocator_->Allocate(n * 4, MemoryUsage::kDeviceLocal, MemoryKind::kIo));
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto cb, CommandBuffer::Create(*device_, {.max_timed_commands = 8}));
  const Binding bindings[] = {{x.range(), Access::kRead}, {y.range(), Access::kReadWrite}};
  for (Timing timing : {Timing::kSpans, Timing::kEachCommand}) {
    VKSERVE_ASSERT_OK(cb->Begin(timing));
    VKSERVE_ASSERT_OK(cb->Fill(x.range(), 0x3f800000u, "fill x"));  // 1.0f
    VKSERVE_ASSERT_OK(cb->Fill(y.range(), 0, "fill y"));
    cb->BeginSpan("saxpy x3");
    for (int i = 0; i < 3; ++i) {
      VKSERVE_ASSERT_OK(cb->Dispatch(pipeline, bindings, Bytes({n, 1.0f}), {n / kLocal, 1, 1},
                                     "saxpy " + std::to_string(i)));
    }
    cb->EndSpan();
    VKSERVE_ASSERT_OK(cb->End());
    VKSERVE_ASSERT_OK_AND_ASSIGN(uint64_t value, device_->queue().Submit(*cb));
    VKSERVE_ASSERT_OK(device_->queue().Wait(value));
    VKSERVE_ASSERT_OK_AND_ASSIGN(std::vector<TimestampSpan> spans, cb->ReadTimestamps());
    std::vector<float> out(n);
    VKSERVE_ASSERT_OK(
        Download(*allocator_, y, 0, {reinterpret_cast<uint8_t*>(out.data()), n * 4u}));
    EXPECT_EQ(out[n - 1], 3.0f);  // timing changes nothing the commands do
    if (timing == Timing::kSpans) {
      ASSERT_EQ(spans.size(), 1u);
      EXPECT_EQ(spans[0].label, "saxpy x3");
      EXPECT_GT(spans[0].end_ns, spans[0].start_ns);
    } else {
      ASSERT_EQ(spans.size(), 5u);
      EXPECT_EQ(spans[2].label, "saxpy 0");
    }
  }
}

TEST_P(CommandBufferTest, MisuseIsAStatus) {
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto cb, CommandBuffer::Create(*device_));
  EXPECT_EQ(device_->queue().Submit(*cb).status().code(), absl::StatusCode::kFailedPrecondition);
  auto pipeline = GetPipeline("gpu/saxpy", 2, sizeof(SaxpyParams), {kLocal, 1, 1});
  VKSERVE_ASSERT_OK_AND_ASSIGN(
      Buffer x, allocator_->Allocate(64, MemoryUsage::kDeviceLocal, MemoryKind::kIo));
  VKSERVE_ASSERT_OK(cb->Begin());
  const Binding one[] = {{x.range(), Access::kRead}};
  EXPECT_EQ(cb->Dispatch(pipeline, one, Bytes({1, 1.0f}), {1, 1, 1}).code(),
            absl::StatusCode::kInvalidArgument);
  const Binding two[] = {{x.range(), Access::kRead}, {x.range(), Access::kReadWrite}};
  EXPECT_EQ(cb->Dispatch(pipeline, two, {}, {1, 1, 1}).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(cb->Dispatch(pipeline, two, Bytes({1, 1.0f}), {0, 1, 1}).code(),
            absl::StatusCode::kInvalidArgument);
  VKSERVE_ASSERT_OK(cb->End());
}

// An event the GPU sets part-way: unset until the submission runs, set
// once it has (with the dispatch before it done and its result readable),
// unset again by Reset() for the next replay.
TEST_P(CommandBufferTest, SignalHostSetsTheEventAfterTheCommandsBeforeIt) {
  const uint32_t n = 4097;
  auto pipeline = GetPipeline("gpu/saxpy", 2, sizeof(SaxpyParams), {kLocal, 1, 1});
  VKSERVE_ASSERT_OK_AND_ASSIGN(
      Buffer x, allocator_->Allocate(n * 4, MemoryUsage::kHostUpload, MemoryKind::kIo));
  VKSERVE_ASSERT_OK_AND_ASSIGN(
      Buffer y, allocator_->Allocate(n * 4, MemoryUsage::kHostUpload, MemoryKind::kIo));
  VKSERVE_ASSERT_OK_AND_ASSIGN(
      Buffer staged, allocator_->Allocate(n * 4, MemoryUsage::kHostReadback, MemoryKind::kStaging));
  VKSERVE_ASSERT_OK_AND_ASSIGN(Event event, Event::Create(*device_));
  VKSERVE_ASSERT_OK_AND_ASSIGN(bool set, event.IsSet());
  EXPECT_FALSE(set);
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto cb, CommandBuffer::Create(*device_));
  EXPECT_EQ(cb->SignalHost(event).code(), absl::StatusCode::kFailedPrecondition);  // not recording
  VKSERVE_ASSERT_OK(cb->Begin());
  EXPECT_EQ(cb->SignalHost(Event()).code(), absl::StatusCode::kInvalidArgument);
  const Binding bindings[] = {{x.range(), Access::kRead}, {y.range(), Access::kReadWrite}};
  VKSERVE_ASSERT_OK(
      cb->Dispatch(pipeline, bindings, Bytes({n, 3.0f}), {(n + kLocal - 1) / kLocal, 1, 1}));
  VKSERVE_ASSERT_OK(cb->Copy(y.range(), staged.range()));
  VKSERVE_ASSERT_OK(cb->SignalHost(event));
  VKSERVE_ASSERT_OK(cb->Fill(y.range(), 0));  // after the event: not what the host reads
  VKSERVE_ASSERT_OK(cb->End());
  for (uint32_t run = 0; run < 3; ++run) {
    SCOPED_TRACE(run);
    const auto xs = RandomFloats(n, 300 + run), ys = RandomFloats(n, 400 + run);
    VKSERVE_ASSERT_OK(Upload(*allocator_, x, 0, AsBytes(xs)));
    VKSERVE_ASSERT_OK(Upload(*allocator_, y, 0, AsBytes(ys)));
    VKSERVE_ASSERT_OK(event.Reset());
    VKSERVE_ASSERT_OK_AND_ASSIGN(set, event.IsSet());
    EXPECT_FALSE(set);
    VKSERVE_ASSERT_OK_AND_ASSIGN(uint64_t value, device_->queue().Submit(*cb));
    do {
      VKSERVE_ASSERT_OK_AND_ASSIGN(set, event.IsSet());
    } while (!set);
    std::vector<float> out(n);
    staged.InvalidateForHostRead(0, n * 4u);
    std::memcpy(out.data(), staged.mapped(), n * 4u);
    for (uint32_t i = 0; i < n; ++i) ASSERT_NEAR(out[i], 3.0f * xs[i] + ys[i], 1e-5f) << i;
    VKSERVE_ASSERT_OK(device_->queue().Wait(value));
  }
}

INSTANTIATE_TEST_SUITE_P(Descriptors, CommandBufferTest, ::testing::Bool(),
                         testing::DescriptorModeName);

}  // namespace
}  // namespace vkserve::gpu
