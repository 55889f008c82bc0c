// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// GPU faults injected into a real model (squeezenet1_1, a model fixture in
// tests/data/models): every allocation a load and a run make is
// failed in turn, and the device is lost mid-run. Each fault must surface as
// a Status of the right code naming the model or the bytes asked, leak no GPU
// memory, and leave the model able to run again with the same outputs.
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gpu/fault_injector.h"
#include "gpu/vk_status.h"
#include "gtest/gtest.h"
#include "runtime/model.h"
#include "runtime/session.h"
#include "tests/testing/gpu_fixture.h"
#include "tests/testing/test_data.h"

namespace vkserve {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;

std::string ModelPath() { return testing::ModelsDir() + "/squeezenet1_1.onnx"; }

class FaultInjectionTest : public testing::GpuTest {
 protected:
  void SetUp() override {
    ASSERT_TRUE(std::filesystem::exists(ModelPath())) << "missing model fixture " << ModelPath();
    faults_ = std::make_shared<gpu::FaultInjector>();
    SetUpGpu(/*push_descriptors=*/true, {}, faults_);
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    input_.resize(3 * 224 * 224);
    for (float& v : input_) v = dist(rng);
  }

  RunRequest Request(const Model& model) const {
    RunRequest request;
    request.inputs.push_back(
        InputBinding::Host(model.inputs()[0].name, DataType::kFloat, {1, 3, 224, 224},
                           {reinterpret_cast<const uint8_t*>(input_.data()), input_.size() * 4}));
    return request;
  }

  static std::vector<uint8_t> Bytes(const RunResult& r) {
    return {r.outputs[0].host.data.begin(), r.outputs[0].host.data.end()};
  }

  // Live buffers now: what a failed load or run must return to.
  uint64_t LiveBuffers() const { return allocator_->stats().allocation_count; }

  std::shared_ptr<gpu::FaultInjector> faults_;
  std::vector<float> input_;
};

TEST_F(FaultInjectionTest, EveryAllocationOfALoadFailsCleanly) {
  const uint64_t live = LiveBuffers();
  const uint64_t before = faults_->allocations();
  std::vector<uint8_t> expected;
  {
    VKSERVE_ASSERT_OK_AND_ASSIGN(std::shared_ptr<Model> model, Model::Load(ModelPath(), context()));
    VKSERVE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> session, Session::Create(model));
    VKSERVE_ASSERT_OK_AND_ASSIGN(RunResult result, session->Run(Request(*model)));
    expected.assign(result.outputs[0].host.data.begin(), result.outputs[0].host.data.end());
  }
  // Allocations of the load alone: load again and count.
  const uint64_t load_start = faults_->allocations();
  { VKSERVE_ASSERT_OK_AND_ASSIGN(auto model, Model::Load(ModelPath(), context())); }
  const uint64_t sites = faults_->allocations() - load_start;
  ASSERT_GT(sites, 0u);
  ASSERT_GT(load_start, before);
  EXPECT_EQ(LiveBuffers(), live);

  for (uint64_t k = 1; k <= sites; ++k) {
    SCOPED_TRACE(::testing::Message() << "allocation " << k << " of " << sites);
    faults_->FailAllocation(k);
    auto model = Model::Load(ModelPath(), context());
    faults_->FailAllocation(0);
    ASSERT_FALSE(model.ok());
    EXPECT_EQ(model.status().code(), absl::StatusCode::kResourceExhausted) << model.status();
    EXPECT_THAT(std::string(model.status().message()), HasSubstr("squeezenet1_1"))
        << model.status();
    EXPECT_THAT(std::string(model.status().message()), ContainsRegex("[0-9]+ bytes"))
        << model.status();
    EXPECT_EQ(LiveBuffers(), live) << "a failed load leaked GPU buffers";
  }
  // The device is still fine: a clean load computes what it did before.
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::shared_ptr<Model> model, Model::Load(ModelPath(), context()));
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> session, Session::Create(model));
  VKSERVE_ASSERT_OK_AND_ASSIGN(RunResult result, session->Run(Request(*model)));
  EXPECT_EQ(Bytes(result), expected);
}

TEST_F(FaultInjectionTest, EveryAllocationOfARunFailsCleanly) {
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::shared_ptr<Model> model, Model::Load(ModelPath(), context()));
  std::vector<uint8_t> expected;
  uint64_t sites = 0;
  {
    VKSERVE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> session, Session::Create(model));
    const uint64_t start = faults_->allocations();
    VKSERVE_ASSERT_OK_AND_ASSIGN(RunResult result, session->Run(Request(*model)));
    sites = faults_->allocations() - start;
    expected.assign(result.outputs[0].host.data.begin(), result.outputs[0].host.data.end());
  }
  ASSERT_GT(sites, 0u);
  // The model's plan (and its constants) stays cached; sessions' state goes
  // with them.
  const uint64_t live = LiveBuffers();

  for (uint64_t k = 1; k <= sites; ++k) {
    SCOPED_TRACE(::testing::Message() << "allocation " << k << " of " << sites);
    VKSERVE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> session, Session::Create(model));
    faults_->FailAllocation(k);
    auto failed = session->Run(Request(*model));
    faults_->FailAllocation(0);
    ASSERT_FALSE(failed.ok());
    EXPECT_EQ(failed.status().code(), absl::StatusCode::kResourceExhausted) << failed.status();
    EXPECT_THAT(std::string(failed.status().message()), ContainsRegex("[0-9]+ bytes"))
        << failed.status();
    // The same session runs once memory is back, with the same result.
    VKSERVE_ASSERT_OK_AND_ASSIGN(RunResult result, session->Run(Request(*model)));
    EXPECT_EQ(Bytes(result), expected);
    session.reset();
    EXPECT_EQ(LiveBuffers(), live) << "a failed run leaked GPU buffers";
  }
}

TEST_F(FaultInjectionTest, DeviceLostFailsEveryLaterRunAsUnavailable) {
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::shared_ptr<Model> model, Model::Load(ModelPath(), context()));
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> session, Session::Create(model));
  VKSERVE_ASSERT_OK(session->Run(Request(*model)).status());
  faults_->LoseDeviceAtSubmit(1);
  for (int i = 0; i < 3; ++i) {
    auto lost = session->Run(Request(*model));
    ASSERT_FALSE(lost.ok());
    EXPECT_EQ(lost.status().code(), absl::StatusCode::kUnavailable) << lost.status();
    EXPECT_TRUE(gpu::IsDeviceLost(lost.status())) << lost.status();
    EXPECT_THAT(std::string(lost.status().message()), HasSubstr("VK_ERROR_DEVICE_LOST"));
  }
  EXPECT_TRUE(device_->lost());
  // Everything made from the lost device is destroyed without a hang.
  session.reset();
  model.reset();
}

}  // namespace
}  // namespace vkserve
