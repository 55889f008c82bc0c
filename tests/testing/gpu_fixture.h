// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// GpuTest: a googletest fixture holding an Instance (validation on when
// VKSERVE_VALIDATION is set, as CTest sets it), a Device, an Allocator and an
// in-memory PipelineCache. TearDown fails the test if the validation layer
// sent any message during it. The Instance is shared by every test of the
// binary: NVIDIA's driver runs out of static TLS when a process creates and
// destroys dozens of instances. GpuTestWithDescriptorMode runs a test twice:
// with push descriptors and with pooled descriptor sets.
#ifndef VKSERVE_TESTS_TESTING_GPU_FIXTURE_H_
#define VKSERVE_TESTS_TESTING_GPU_FIXTURE_H_

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "base/status_macros.h"
#include "gpu/allocator.h"
#include "gpu/command_buffer.h"
#include "gpu/device.h"
#include "gpu/fault_injector.h"
#include "gpu/gpu_context.h"
#include "gpu/instance.h"
#include "gpu/pipeline.h"
#include "gpu/queue.h"

namespace vkserve::testing {

// Fails the enclosing test with the status message unless it is OK.
#define VKSERVE_ASSERT_OK(expr)                                  \
  do {                                                           \
    const ::absl::Status vkserve_s_ = (expr);                    \
    ASSERT_TRUE(vkserve_s_.ok()) << #expr << ": " << vkserve_s_; \
  } while (0)

#define VKSERVE_ASSERT_OK_AND_ASSIGN(lhs, rexpr) \
  VKSERVE_ASSERT_OK_AND_ASSIGN_IMPL_(VKSERVE_CONCAT_(vkserve_sor_, __LINE__), lhs, rexpr)
#define VKSERVE_ASSERT_OK_AND_ASSIGN_IMPL_(sor, lhs, rexpr) \
  auto sor = (rexpr);                                       \
  ASSERT_TRUE(sor.ok()) << #rexpr << ": " << sor.status();  \
  lhs = std::move(sor).value()

class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override { SetUpGpu(/*push_descriptors=*/true); }
  void TearDown() override;
  // `faults`: injected allocation failures / device loss (null: none).
  void SetUpGpu(bool push_descriptors, const gpu::AllocatorOptions& allocator_options = {},
                std::shared_ptr<gpu::FaultInjector> faults = nullptr);
  // The device, allocator and pipeline cache a test owns, handed from one
  // test to the next by fixtures whose tests would otherwise compile the same
  // pipelines again (op cases).
  struct GpuObjects {
    std::unique_ptr<gpu::Device> device;
    std::unique_ptr<gpu::Allocator> allocator;
    std::unique_ptr<gpu::PipelineCache> pipelines;
  };
  // SetUpGpu with objects an earlier test released. REQUIRES: all three set.
  void SetUpGpuFrom(GpuObjects objects);
  // Waits for the device and hands the objects over; TearDown then only
  // checks the validation layer's messages. Null objects when the device
  // was lost.
  GpuObjects ReleaseGpu();
  // The three GPU objects as a runtime GpuContext.
  GpuContext context() const { return {device_.get(), allocator_.get(), pipelines_.get()}; }

  // The pipeline of an embedded shader; fails the test if it is missing.
  std::shared_ptr<const gpu::Pipeline> GetPipeline(const std::string& shader, uint32_t bindings,
                                                   uint32_t push_bytes,
                                                   std::array<uint32_t, 3> local_size,
                                                   std::vector<uint32_t> spec = {});

  // The shared instance and its message count now; ASSERTs the layer is on
  // when VKSERVE_VALIDATION asks for it.
  void AttachInstance();

  gpu::Instance* instance_ = nullptr;  // shared, see above
  int messages_at_start_ = 0;
  std::unique_ptr<gpu::Device> device_;
  std::unique_ptr<gpu::Allocator> allocator_;
  std::unique_ptr<gpu::PipelineCache> pipelines_;
};

class GpuTestWithDescriptorMode : public GpuTest, public ::testing::WithParamInterface<bool> {
 protected:
  void SetUp() override { SetUpGpu(/*push_descriptors=*/GetParam()); }
};

std::string DescriptorModeName(const ::testing::TestParamInfo<bool>& info);

}  // namespace vkserve::testing

#endif  // VKSERVE_TESTS_TESTING_GPU_FIXTURE_H_
