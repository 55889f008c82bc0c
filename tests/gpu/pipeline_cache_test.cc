// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// PipelineCache: pipelines shared per key and compiled once however many
// threads ask for one at a time, the cache file written and
// reloaded, a file from another device or a corrupt one ignored, and a
// shader's required subgroup size asked for or refused.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gpu/pipeline.h"
#include "shaders/shader_registry.h"
#include "tests/testing/gpu_fixture.h"

namespace vkserve::gpu {
namespace {

using testing::GpuTest;

class PipelineCacheTest : public GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    dir_ = std::filesystem::temp_directory_path() /
           ("vkserve_pc_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "pipelines.bin").string();
  }
  void TearDown() override {
    std::filesystem::remove_all(dir_);
    GpuTest::TearDown();
  }
  PipelineDesc Saxpy(uint32_t local) {
    PipelineDesc desc;
    desc.name = "gpu/saxpy";
    desc.spirv = shaders::Find("gpu/saxpy");
    desc.num_bindings = 2;
    desc.push_constant_bytes = 8;
    desc.local_size = {local, 1, 1};
    return desc;
  }
  std::filesystem::path dir_;
  std::string path_;
};

TEST_F(PipelineCacheTest, RequiredSubgroupSizeIsAskedForOrRefused) {
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto cache, PipelineCache::Create(*device_));
  const DeviceInfo& info = device_->info();
  PipelineDesc own = Saxpy(64);
  own.required_subgroup_size = info.subgroup_size;  // the default: nothing to ask
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto a, cache->Get(own));
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto b, cache->Get(Saxpy(64)));
  EXPECT_NE(a, b);  // a separate key
  // Every size the device can be asked for (subgroup size control).
  for (uint32_t size = info.min_subgroup_size; size > 0 && size <= info.max_subgroup_size;
       size *= 2) {
    PipelineDesc asked = Saxpy(64);
    asked.required_subgroup_size = size;
    EXPECT_TRUE(cache->Get(asked).ok()) << size;
  }
  PipelineDesc wide = Saxpy(64);
  wide.required_subgroup_size = 2 * std::max(info.subgroup_size, info.max_subgroup_size);
  const absl::Status refused = cache->Get(wide).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.message(), ::testing::HasSubstr(absl::StrCat(
                                     "needs subgroups of ", wide.required_subgroup_size)));
}

TEST(DeviceInfoTest, RunsSubgroupsOfTheDefaultOrARequestableSize) {
  DeviceInfo nvidia;
  nvidia.subgroup_size = 32;
  nvidia.min_subgroup_size = nvidia.max_subgroup_size = 32;
  EXPECT_TRUE(nvidia.RunsSubgroupsOf(32));
  EXPECT_FALSE(nvidia.RunsSubgroupsOf(64));
  DeviceInfo amd;  // wave64 by default, wave32 on request
  amd.subgroup_size = 64;
  amd.min_subgroup_size = 32;
  amd.max_subgroup_size = 64;
  EXPECT_TRUE(amd.RunsSubgroupsOf(32));
  EXPECT_TRUE(amd.RunsSubgroupsOf(64));
  EXPECT_FALSE(amd.RunsSubgroupsOf(16));
  DeviceInfo fixed;  // no subgroup size control
  fixed.subgroup_size = 64;
  EXPECT_FALSE(fixed.RunsSubgroupsOf(32));
  EXPECT_TRUE(fixed.RunsSubgroupsOf(64));
}

TEST_F(PipelineCacheTest, SharesPipelinesPerKey) {
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto cache, PipelineCache::Create(*device_));
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto a, cache->Get(Saxpy(64)));
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto b, cache->Get(Saxpy(64)));
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto c, cache->Get(Saxpy(32)));
  EXPECT_EQ(a.get(), b.get());
  EXPECT_NE(a.get(), c.get());
  EXPECT_EQ(cache->size(), 2u);
}

// Kernels are created in parallel, and a model's layers ask for the same
// pipelines: threads asking for one key at once wait for one compile.
TEST_F(PipelineCacheTest, CompilesAKeyOnceForConcurrentCallers) {
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto cache, PipelineCache::Create(*device_));
  constexpr int kThreads = 8;
  std::vector<const Pipeline*> got(kThreads, nullptr);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto pipeline = cache->Get(Saxpy(64));
      if (pipeline.ok()) got[t] = pipeline->get();
    });
  }
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) ASSERT_NE(got[t], nullptr) << "thread " << t;
  for (int t = 1; t < kThreads; ++t) EXPECT_EQ(got[t], got[0]);
  EXPECT_EQ(cache->compiles(), 1u);
  EXPECT_EQ(cache->size(), 1u);
}

// Past its budget the cache drops the least recently used pipelines that
// nothing else holds, and never one in use.
TEST_F(PipelineCacheTest, EvictsLeastRecentlyUsedPipelinesPastItsBudget) {
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto cache, PipelineCache::Create(*device_, "", 2));
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto held, cache->Get(Saxpy(16)));  // in use throughout
  VKSERVE_ASSERT_OK(cache->Get(Saxpy(32)).status());               // not held
  VKSERVE_ASSERT_OK(cache->Get(Saxpy(64)).status());  // over budget: 32 goes, 16 is held
  EXPECT_EQ(cache->size(), 2u);
  EXPECT_EQ(cache->evictions(), 1u);
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto again_16, cache->Get(Saxpy(16)));
  EXPECT_EQ(again_16.get(), held.get()) << "a pipeline in use was dropped";
  // 64 is now the least recently used: getting 32 again compiles it anew
  // and drops 64.
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto again_32, cache->Get(Saxpy(32)));
  EXPECT_EQ(cache->size(), 2u);
  EXPECT_EQ(cache->evictions(), 2u);
  // Everything in use: the budget yields rather than dropping a held pipeline.
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto extra, cache->Get(Saxpy(128)));
  EXPECT_EQ(cache->size(), 3u);
  EXPECT_EQ(cache->evictions(), 2u);
  again_32.reset();
  extra.reset();
  VKSERVE_ASSERT_OK(cache->Get(Saxpy(256)).status());  // 32 (older than 128) and 128 go
  EXPECT_EQ(cache->size(), 2u);
  EXPECT_EQ(cache->evictions(), 4u);
}

TEST_F(PipelineCacheTest, WritesAndReloads) {
  {
    VKSERVE_ASSERT_OK_AND_ASSIGN(auto cache, PipelineCache::Create(*device_, path_));
    EXPECT_FALSE(cache->loaded_from_disk());
    VKSERVE_ASSERT_OK(cache->Get(Saxpy(64)).status());
    VKSERVE_ASSERT_OK(cache->Save());
  }
  ASSERT_TRUE(std::filesystem::exists(path_));
  // At least the header; lavapipe stores nothing beyond it.
  EXPECT_GE(std::filesystem::file_size(path_), 16u + VK_UUID_SIZE);
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto reloaded, PipelineCache::Create(*device_, path_));
  EXPECT_TRUE(reloaded->loaded_from_disk());
  EXPECT_TRUE(reloaded->ignored_reason().empty());
  VKSERVE_ASSERT_OK(reloaded->Get(Saxpy(64)).status());
}

TEST_F(PipelineCacheTest, IgnoresFilesForOtherDevicesOrDrivers) {
  {
    VKSERVE_ASSERT_OK_AND_ASSIGN(auto cache, PipelineCache::Create(*device_, path_));
    VKSERVE_ASSERT_OK(cache->Get(Saxpy(64)).status());
    VKSERVE_ASSERT_OK(cache->Save());
  }
  std::string data;
  {
    std::ifstream in(path_, std::ios::binary);
    data.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto rewrite = [&](const std::string& bytes) {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  };
  std::string other_uuid = data;
  other_uuid[16] = static_cast<char>(other_uuid[16] ^ 0xff);  // pipelineCacheUUID
  rewrite(other_uuid);
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto a, PipelineCache::Create(*device_, path_));
  EXPECT_FALSE(a->loaded_from_disk());
  EXPECT_NE(a->ignored_reason().find("pipelineCacheUUID"), std::string::npos);
  VKSERVE_ASSERT_OK(a->Get(Saxpy(64)).status());

  std::string other_device = data;
  other_device[12] = static_cast<char>(other_device[12] ^ 0x5a);  // deviceID
  rewrite(other_device);
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto b, PipelineCache::Create(*device_, path_));
  EXPECT_FALSE(b->loaded_from_disk());
  EXPECT_NE(b->ignored_reason().find("another device"), std::string::npos);

  rewrite("garbage");
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto c, PipelineCache::Create(*device_, path_));
  EXPECT_FALSE(c->loaded_from_disk());
  EXPECT_FALSE(c->ignored_reason().empty());
}

TEST_F(PipelineCacheTest, RejectsMalformedDescriptions) {
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto cache, PipelineCache::Create(*device_));
  PipelineDesc empty = Saxpy(64);
  empty.spirv = {};
  EXPECT_EQ(cache->Get(empty).status().code(), absl::StatusCode::kInvalidArgument);
  PipelineDesc huge_group = Saxpy(device_->info().max_workgroup_invocations + 1);
  EXPECT_EQ(cache->Get(huge_group).status().code(), absl::StatusCode::kInvalidArgument);
  PipelineDesc big_push = Saxpy(64);
  big_push.push_constant_bytes = device_->info().max_push_constants + 4;
  EXPECT_EQ(cache->Get(big_push).status().code(), absl::StatusCode::kInvalidArgument);
}

// Compile statistics come from the driver when asked for and only then; the
// ones every driver reports differ, so the test checks that they are there
// and well formed (lavapipe reports instruction counts, NVIDIA registers).
TEST_F(PipelineCacheTest, CapturesCompileStatisticsWhenAsked) {
  if (!device_->info().pipeline_executable_info) {
    GTEST_SKIP() << "no VK_KHR_pipeline_executable_properties";
  }
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto plain, PipelineCache::Create(*device_));
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto without, plain->Get(Saxpy(64)));
  EXPECT_FALSE(device_->captures_pipeline_statistics());
  EXPECT_TRUE(without->statistics().empty());

  DeviceOptions options;
  options.pipeline_statistics = true;
  if (const char* sel = std::getenv("VKSERVE_TEST_DEVICE")) options.selector = sel;
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto device, Device::Create(*instance_, options));
  EXPECT_TRUE(device->captures_pipeline_statistics());
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto cache, PipelineCache::Create(*device));
  VKSERVE_ASSERT_OK_AND_ASSIGN(auto with, cache->Get(Saxpy(64)));
  ASSERT_FALSE(with->statistics().empty());
  for (const std::string& s : with->statistics()) {
    // "name value": a name, then a value after the last space.
    const size_t space = s.rfind(' ');
    ASSERT_NE(space, std::string::npos) << s;
    EXPECT_GT(space, 0u) << s;
    EXPECT_NE(s.substr(space + 1), "?") << s;
  }
  ASSERT_TRUE(device->queue().WaitIdle().ok());
}

}  // namespace
}  // namespace vkserve::gpu
