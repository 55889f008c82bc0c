// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The systemd watchdog: ProgressWatchdog's decisions on synthetic queue
// samples, then a Server whose GPU queue is wedged by fault injection
// (FaultInjector::WedgeAtSubmit) under a ServiceMonitor that speaks to a
// NOTIFY_SOCKET this test owns: WATCHDOG=1 pings arrive while idle and while
// requests run, stop while a submission hangs, and resume once it is let go
// (the hung request then answers correctly).
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "proto/grpc_service.grpc.pb.h"
#include "server/daemon/progress_watchdog.h"
#include "server/daemon/server.h"
#include "server/daemon/service_monitor.h"
#include "server/daemon/systemd_notifier.h"
#include "tests/server/server_test_util.h"
#include "tests/testing/temp_dir.h"

namespace vkserve {
namespace {

using namespace inference;  // NOLINT: the protocol's messages

const absl::Time kT0 = absl::FromUnixSeconds(1000);

TEST(ProgressWatchdogTest, IdleAndFinishingQueuesAreHealthy) {
  ProgressWatchdog w(absl::Seconds(2));
  EXPECT_TRUE(w.Healthy({{0, 5}}, kT0));
  EXPECT_TRUE(w.Healthy({{0, 5}}, kT0 + absl::Seconds(10)));    // idle for long: fine
  EXPECT_TRUE(w.Healthy({{3, 5}}, kT0 + absl::Seconds(11)));    // work arrived
  EXPECT_TRUE(w.Healthy({{3, 6}}, kT0 + absl::Seconds(12.5)));  // and some finished
  EXPECT_TRUE(w.Healthy({{3, 7}}, kT0 + absl::Seconds(14)));
  EXPECT_TRUE(w.reason().empty());
}

TEST(ProgressWatchdogTest, PendingWorkThatNeverFinishesTurnsUnhealthyAfterTheLimit) {
  ProgressWatchdog w(absl::Seconds(2));
  EXPECT_TRUE(w.Healthy({{0, 5}, {0, 1}}, kT0));
  EXPECT_TRUE(w.Healthy({{0, 5}, {1, 1}}, kT0 + absl::Seconds(1)));
  EXPECT_TRUE(w.Healthy({{0, 5}, {1, 1}}, kT0 + absl::Seconds(2.9)));  // 1.9 s stalled
  EXPECT_FALSE(w.Healthy({{0, 5}, {1, 1}}, kT0 + absl::Seconds(3.1)));
  EXPECT_NE(w.reason().find("GPU queue 1"), std::string::npos) << w.reason();
  EXPECT_EQ(w.reason().find("GPU queue 0"), std::string::npos) << w.reason();
  EXPECT_FALSE(w.Healthy({{0, 5}, {1, 1}}, kT0 + absl::Seconds(9)));
  EXPECT_TRUE(w.Healthy({{0, 5}, {0, 2}}, kT0 + absl::Seconds(9.5)));  // it finished
  EXPECT_TRUE(w.Healthy({{0, 5}, {1, 2}}, kT0 + absl::Seconds(11)));
}

// The service manager's end of NOTIFY_SOCKET: counts WATCHDOG=1 datagrams.
class FakeServiceManager {
 public:
  explicit FakeServiceManager(const std::string& path) {
    fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
    bound_ = fd_ >= 0 && bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
    thread_ = std::thread([this] { Read(); });
  }
  ~FakeServiceManager() {
    stop_ = true;
    thread_.join();
    close(fd_);
  }
  bool bound() const { return bound_; }
  int pings() const { return pings_.load(); }
  // Pings that arrive during `d`.
  int PingsDuring(absl::Duration d) const {
    const int before = pings();
    absl::SleepFor(d);
    return pings() - before;
  }

 private:
  void Read() {
    char buffer[4096];
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, 50) <= 0) continue;
      const ssize_t n = recv(fd_, buffer, sizeof(buffer), 0);
      if (n > 0 &&
          std::string(buffer, static_cast<size_t>(n)).find("WATCHDOG=1") != std::string::npos) {
        ++pings_;
      }
    }
  }
  int fd_ = -1;
  bool bound_ = false;
  std::atomic<bool> stop_{false};
  std::atomic<int> pings_{0};
  std::thread thread_;
};

TEST(WatchdogTest, PingsStopWhileTheGpuQueueIsWedged) {
  namespace fs = std::filesystem;
  const fs::path dir = testing::MakeTempDir("watchdog_test");
  testing::WriteFile(dir / "repository/addone/1/model.onnx", testing::AddOneModelBytes());
  FakeServiceManager manager((dir / "notify.sock").string());
  ASSERT_TRUE(manager.bound());
  // As systemd sets them for WatchdogSec=400ms: pings every 200 ms, a queue
  // stalled for 400 ms stops them.
  setenv("NOTIFY_SOCKET", (dir / "notify.sock").c_str(), 1);
  setenv("WATCHDOG_USEC", "400000", 1);
  unsetenv("WATCHDOG_PID");
  SystemdNotifier notifier;
  ASSERT_TRUE(notifier.active());
  ASSERT_EQ(notifier.watchdog_interval(), absl::Milliseconds(400));

  ServerSettings settings;
  settings.grpc_port = 0;
  settings.metrics_enabled = false;
  settings.repository_path = (dir / "repository").string();
  settings.pipeline_cache_path = "";
  settings.exit_timeout = absl::Seconds(10);
  auto faults = std::make_shared<gpu::FaultInjector>();
  ServerHooks hooks;
  hooks.faults = faults;
  auto server = Server::Start(settings, hooks);
  ASSERT_TRUE(server.ok()) << server.status();
  ServiceMonitor monitor(server->get(), &notifier, absl::Seconds(60));
  monitor.Start();

  auto channel = testing::UnlimitedChannel((*server)->address());
  auto stub = GRPCInferenceService::NewStub(channel);
  auto add_one = [&]() -> grpc::Status {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    const std::vector<float> x = {1, 2, 3, 4};
    ModelInferResponse resp;
    grpc::Status s = stub->ModelInfer(&ctx, testing::RawRequest("addone", "x", {1, 4}, x), &resp);
    if (s.ok() &&
        (resp.raw_output_contents_size() != 1 ||
         testing::BytesToFloats(resp.raw_output_contents(0)) != std::vector<float>{2, 3, 4, 5})) {
      return grpc::Status(grpc::StatusCode::DATA_LOSS, "wrong output");
    }
    return s;
  };

  // Idle: pings about every 200 ms.
  EXPECT_GE(manager.PingsDuring(absl::Seconds(1)), 3);
  // Requests running: still pinging.
  std::atomic<bool> busy{true};
  std::thread traffic([&] {
    while (busy) EXPECT_TRUE(add_one().ok());
  });
  EXPECT_GE(manager.PingsDuring(absl::Seconds(1)), 3);
  busy = false;
  traffic.join();

  // The next submission hangs: after the 400 ms stall limit, no pings.
  faults->WedgeAtSubmit(1);
  grpc::Status hung;
  std::thread wedged([&] { hung = add_one(); });
  for (int i = 0; i < 200 && !faults->wedged(); ++i) absl::SleepFor(absl::Milliseconds(10));
  ASSERT_TRUE(faults->wedged());
  absl::SleepFor(absl::Milliseconds(700));
  EXPECT_EQ(manager.PingsDuring(absl::Seconds(1.5)), 0);

  // Let it go: the request answers correctly and the pings resume.
  faults->Unwedge();
  wedged.join();
  EXPECT_TRUE(hung.ok()) << hung.error_message();
  EXPECT_GE(manager.PingsDuring(absl::Seconds(1)), 3);
  EXPECT_TRUE(add_one().ok());

  monitor.Stop();
  server->reset();
  unsetenv("NOTIFY_SOCKET");
  unsetenv("WATCHDOG_USEC");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace vkserve
