// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The server's gpu {} settings on the devices it opens: gpu.matrix_extension
// (`vkserve serve --matrix-extension`) opens the server's device as
// `vkserve infer --matrix-extension` opens its own with the same choice —
// refused with the same Status where the device lacks the extension
// (lavapipe offers neither), through it where the device offers it — and a
// reload that changes it names it among the restart-only settings.
#include <filesystem>
#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "base/matrix_extension.h"
#include "gtest/gtest.h"
#include "runtime/gpu_runtime.h"
#include "server/daemon/reloader.h"
#include "server/daemon/server.h"
#include "tests/server/server_test_util.h"
#include "tests/testing/temp_dir.h"

namespace vkserve {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;

TEST(GpuSettingsTest, MatrixExtensionReachesTheDeviceAsInferWouldOpenIt) {
  const std::string repo = testing::MakeTempDir("gpu_settings_test");
  for (MatrixExtension setting : {MatrixExtension::kAuto, MatrixExtension::kNv, MatrixExtension::kKhr}) {
    const std::string name(MatrixExtensionName(setting));
    SCOPED_TRACE(name);
    // What `vkserve infer --matrix-extension NAME` opens.
    GpuRuntimeOptions cli;
    cli.matrix_extension = setting;
    absl::StatusOr<std::unique_ptr<GpuRuntime>> infer = GpuRuntime::Create(cli);

    ServerSettings settings = testing::TestServerSettings(repo);
    settings.matrix_extension = setting;
    absl::StatusOr<std::unique_ptr<Server>> server = Server::Start(settings);
    if (!infer.ok()) {
      // Only an insisted-on extension the device lacks refuses, naming it.
      EXPECT_NE(setting, MatrixExtension::kAuto);
      EXPECT_EQ(infer.status().code(), absl::StatusCode::kFailedPrecondition) << infer.status();
      EXPECT_THAT(std::string(infer.status().message()),
                  HasSubstr(setting == MatrixExtension::kKhr ? "VK_KHR_cooperative_matrix"
                                                             : "VK_NV_cooperative_matrix"));
      EXPECT_EQ(server.status(), infer.status());
      continue;
    }
    ASSERT_TRUE(server.ok()) << server.status();
    const gpu::DeviceInfo& served = (*server)->devices().Default().device->info();
    const gpu::DeviceInfo& alone = (*infer)->device().info();
    EXPECT_EQ(served.cooperative_matrix_enabled, alone.cooperative_matrix_enabled);
    EXPECT_EQ(served.cooperative_matrix_khr, alone.cooperative_matrix_khr);
    if (setting != MatrixExtension::kAuto) {
      EXPECT_TRUE(served.cooperative_matrix_enabled);
      EXPECT_EQ(served.cooperative_matrix_khr, setting == MatrixExtension::kKhr);
    }
    (*server)->Shutdown();
  }
  std::filesystem::remove_all(repo);
}

TEST(GpuSettingsTest, MatrixExtensionTakesEffectOnlyOnARestart) {
  ServerSettings running = testing::TestServerSettings("/repo");
  ServerSettings next = running;
  EXPECT_TRUE(Reloader::RestartOnlyChanges(running, next).empty());
  next.matrix_extension = MatrixExtension::kNv;
  EXPECT_THAT(Reloader::RestartOnlyChanges(running, next), Contains("gpu"));
}

}  // namespace
}  // namespace vkserve
