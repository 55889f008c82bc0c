// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Device discovery and selection, and VkResult -> Status conversion.
#include "gpu/device.h"

#include "gpu/vk_status.h"
#include "tests/testing/gpu_fixture.h"

namespace vkserve::gpu {
namespace {

using testing::GpuTest;

TEST_F(GpuTest, ReportsTheLimitsKernelsAreSizedFrom) {
  const DeviceInfo& info = device_->info();
  EXPECT_TRUE(info.usable);
  EXPECT_GT(info.subgroup_size, 0u);
  EXPECT_GE(info.max_shared_memory, 16384u);  // Vulkan's required minimum
  EXPECT_GE(info.max_storage_buffer_range, uint64_t{1} << 27);
  EXPECT_GE(info.max_allocation_size, uint64_t{1} << 30);
  EXPECT_FALSE(info.heaps.empty());
  EXPECT_FALSE(info.memory_types.empty());
  const std::string text = info.ToString();
  for (const char* field :
       {"subgroup size", "shared memory", "max storage buffer range", "max allocation",
        "16-bit storage", "float16", "cooperative matrix", "heap 0", "host-visible device-local"}) {
    EXPECT_NE(text.find(field), std::string::npos) << field << " missing from:\n" << text;
  }
}

TEST_F(GpuTest, SelectsByIndexNameAndRank) {
  const auto& devices = instance_->devices();
  ASSERT_FALSE(devices.empty());
  VKSERVE_ASSERT_OK_AND_ASSIGN(const DeviceInfo* best, SelectDevice(devices, ""));
  for (const DeviceInfo& d : devices) {
    // Nothing usable outranks the automatic choice.
    if (d.usable && d.type == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU) {
      EXPECT_EQ(best->type, VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU);
    }
  }
  VKSERVE_ASSERT_OK_AND_ASSIGN(const DeviceInfo* by_index,
                               SelectDevice(devices, std::to_string(best->index)));
  EXPECT_EQ(by_index, best);
  // A lower-case fragment of the name matches.
  std::string fragment = best->name.substr(0, 4);
  for (char& c : fragment) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  VKSERVE_ASSERT_OK_AND_ASSIGN(const DeviceInfo* by_name, SelectDevice(devices, fragment));
  EXPECT_NE(by_name, nullptr);

  // The UUID, in either case, selects the device; an unknown one fails.
  ASSERT_EQ(best->uuid().size(), 40u) << best->uuid();
  EXPECT_EQ(best->uuid().substr(0, 4), "GPU-");
  VKSERVE_ASSERT_OK_AND_ASSIGN(const DeviceInfo* by_uuid, SelectDevice(devices, best->uuid()));
  EXPECT_EQ(by_uuid, best);
  std::string upper = best->uuid();
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  VKSERVE_ASSERT_OK_AND_ASSIGN(const DeviceInfo* by_upper, SelectDevice(devices, upper));
  EXPECT_EQ(by_upper, best);
  EXPECT_EQ(SelectDevice(devices, "GPU-00000000-0000-0000-0000-00000000000x").status().code(),
            absl::StatusCode::kNotFound);

  auto missing = SelectDevice(devices, "no-such-gpu-xyz");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("no-such-gpu-xyz"), std::string::npos);
  EXPECT_EQ(SelectDevice(devices, "999").status().code(), absl::StatusCode::kNotFound);
}

TEST(VkStatusTest, NamesTheCallAndMapsCodes) {
  absl::Status oom =
      VkResultToStatus(VK_ERROR_OUT_OF_DEVICE_MEMORY, "vkAllocateMemory(dev, &i, nullptr, &m)");
  EXPECT_EQ(oom.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(oom.message(), "vkAllocateMemory failed: VK_ERROR_OUT_OF_DEVICE_MEMORY (-2)");
  EXPECT_FALSE(IsDeviceLost(oom));

  absl::Status lost = VkResultToStatus(VK_ERROR_DEVICE_LOST, "vkQueueSubmit(q, 1, &s, f)");
  EXPECT_EQ(lost.code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(IsDeviceLost(lost));
  EXPECT_NE(lost.message().find("vkQueueSubmit"), std::string::npos);

  EXPECT_EQ(VkResultToStatus(VK_TIMEOUT, "vkWaitSemaphores").code(),
            absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(VkResultToStatus(VK_ERROR_EXTENSION_NOT_PRESENT, "vkCreateDevice").code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST_F(GpuTest, QueueWaitTimesOutAsAStatus) {
  // Waiting for a value nothing will signal must time out, not hang.
  absl::Status status = device_->queue().Wait(1000000, /*timeout_ns=*/1000000);
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded) << status;
}

}  // namespace
}  // namespace vkserve::gpu
