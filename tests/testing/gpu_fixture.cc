// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "tests/testing/gpu_fixture.h"

#include "shaders/shader_registry.h"

namespace vkserve::testing {

namespace {

// The one Vulkan instance of the test process (never destroyed: drivers do
// not like being unloaded and loaded again).
gpu::Instance* SharedInstance() {
  static gpu::Instance* const shared = [] {
    auto instance = gpu::Instance::Create();
    EXPECT_TRUE(instance.ok()) << instance.status();
    return instance.ok() ? std::move(instance).value().release() : nullptr;
  }();
  return shared;
}

}  // namespace

void GpuTest::AttachInstance() {
  instance_ = SharedInstance();
  ASSERT_NE(instance_, nullptr);
  messages_at_start_ = instance_->validation_message_count();
  // CTest sets VKSERVE_VALIDATION: make sure the layer really is on.
  if (const char* v = std::getenv("VKSERVE_VALIDATION"); v != nullptr && std::string(v) != "0") {
    ASSERT_TRUE(instance_->validation_enabled());
  }
}

void GpuTest::SetUpGpuFrom(GpuObjects objects) {
  ASSERT_TRUE(objects.device && objects.allocator && objects.pipelines);
  AttachInstance();
  if (HasFatalFailure()) return;
  device_ = std::move(objects.device);
  allocator_ = std::move(objects.allocator);
  pipelines_ = std::move(objects.pipelines);
}

GpuTest::GpuObjects GpuTest::ReleaseGpu() {
  GpuObjects objects;
  if (device_ && !device_->lost() && device_->queue().WaitIdle().ok()) {
    objects.device = std::move(device_);
    objects.allocator = std::move(allocator_);
    objects.pipelines = std::move(pipelines_);
  }
  return objects;
}

void GpuTest::SetUpGpu(bool push_descriptors, const gpu::AllocatorOptions& allocator_options,
                       std::shared_ptr<gpu::FaultInjector> faults) {
  AttachInstance();
  if (HasFatalFailure()) return;
  gpu::DeviceOptions device_options;
  device_options.allow_push_descriptors = push_descriptors;
  device_options.faults = std::move(faults);
  if (const char* sel = std::getenv("VKSERVE_TEST_DEVICE")) device_options.selector = sel;
  // auto, nv or khr: e.g. the op cases through the _khr kernels on an NVIDIA GPU.
  if (const char* e = std::getenv("VKSERVE_TEST_MATRIX_EXTENSION")) {
    absl::StatusOr<gpu::MatrixExtension> extension = gpu::ParseMatrixExtension(e);
    ASSERT_TRUE(extension.ok()) << extension.status();
    device_options.matrix_extension = *extension;
  }
  auto device = gpu::Device::Create(*instance_, device_options);
  ASSERT_TRUE(device.ok()) << device.status();
  device_ = std::move(device).value();
  auto allocator = gpu::Allocator::Create(*device_, allocator_options);
  ASSERT_TRUE(allocator.ok()) << allocator.status();
  allocator_ = std::move(allocator).value();
  auto pipelines = gpu::PipelineCache::Create(*device_);
  ASSERT_TRUE(pipelines.ok()) << pipelines.status();
  pipelines_ = std::move(pipelines).value();
}

void GpuTest::TearDown() {
  if (device_ && !device_->lost()) {
    EXPECT_TRUE(device_->queue().WaitIdle().ok());
  }
  pipelines_.reset();
  allocator_.reset();
  device_.reset();
  if (instance_) {
    EXPECT_EQ(instance_->validation_message_count() - messages_at_start_, 0)
        << "validation layer messages, the last ones:\n"
        << [&] {
             std::string all;
             for (const auto& m : instance_->recent_validation_messages()) all += m + "\n";
             return all;
           }();
  }
  instance_ = nullptr;
}

std::shared_ptr<const gpu::Pipeline> GpuTest::GetPipeline(const std::string& shader,
                                                          uint32_t bindings, uint32_t push_bytes,
                                                          std::array<uint32_t, 3> local_size,
                                                          std::vector<uint32_t> spec) {
  gpu::PipelineDesc desc;
  desc.name = shader;
  desc.spirv = shaders::Find(shader);
  EXPECT_FALSE(desc.spirv.empty()) << "no embedded shader " << shader;
  desc.num_bindings = bindings;
  desc.push_constant_bytes = push_bytes;
  desc.local_size = local_size;
  desc.spec_constants = std::move(spec);
  auto pipeline = pipelines_->Get(desc);
  EXPECT_TRUE(pipeline.ok()) << pipeline.status();
  return pipeline.ok() ? *pipeline : nullptr;
}

std::string DescriptorModeName(const ::testing::TestParamInfo<bool>& info) {
  return info.param ? "PushDescriptors" : "PooledSets";
}

}  // namespace vkserve::testing
