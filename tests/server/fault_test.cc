// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// GPU faults under a serving daemon: allocations failing during a model load
// and during a run, and the device lost while clients keep sending. A Server
// on an ephemeral loopback port with a FaultInjector on its device
// (ServerHooks), driven by C++ gRPC clients in this process.
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "proto/grpc_service.grpc.pb.h"
#include "server/daemon/server.h"
#include "tests/server/server_test_util.h"
#include "tests/testing/temp_dir.h"

namespace vkserve {
namespace {

using ::testing::AnyOf;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using namespace inference;  // NOLINT: the protocol's messages
using testing::BytesToFloats;
using testing::RawRequest;

class FaultTest : public ::testing::Test {
 protected:
  void SetUp() override {
    namespace fs = std::filesystem;
    dir_ = testing::MakeTempDir("fault_test");
    const fs::path repo = fs::path(dir_) / "repository";
    const std::string addone = testing::AddOneModelBytes();
    for (const char* name : {"addone", "spare", "third"}) {
      testing::WriteFile(repo / name / "1/model.onnx", addone);
    }
    ServerSettings settings = testing::TestServerSettings(repo.string());
    settings.startup_models = {"addone", "spare"};
    settings.exit_timeout = absl::Seconds(10);
    faults_ = std::make_shared<gpu::FaultInjector>();
    ServerHooks hooks;
    hooks.faults = faults_;
    // A recovery waits (up to 20 s) until the test has seen the models out
    // of service, so it cannot finish between two looks.
    hooks.before_device_reopen = [this] {
      MutexLock lock(&seen_mutex_);
      seen_mutex_.AwaitWithTimeout(Condition(&lost_seen_), absl::Seconds(20));
    };
    auto server = Server::Start(settings, hooks);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    channel_ = testing::UnlimitedChannel(server_->address());
  }
  void TearDown() override {
    server_.reset();
    std::filesystem::remove_all(dir_);
  }

  std::unique_ptr<GRPCInferenceService::Stub> Stub() {
    return GRPCInferenceService::NewStub(channel_);
  }
  static std::unique_ptr<grpc::ClientContext> Context() {
    auto ctx = std::make_unique<grpc::ClientContext>();
    ctx->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    return ctx;
  }
  // x + 1 for a batch of n rows; OK only with the right values.
  grpc::Status AddOne(const std::string& model, int n) {
    std::vector<float> x(static_cast<size_t>(4 * n));
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
    ModelInferResponse resp;
    grpc::Status s = Stub()->ModelInfer(Context().get(), RawRequest(model, "x", {n, 4}, x), &resp);
    if (!s.ok()) return s;
    std::vector<float> want(x);
    for (float& v : want) v += 1;
    if (resp.raw_output_contents_size() != 1 ||
        BytesToFloats(resp.raw_output_contents(0)) != want) {
      return grpc::Status(grpc::StatusCode::DATA_LOSS, "wrong output");
    }
    return s;
  }
  grpc::Status Load(const std::string& model) {
    RepositoryModelLoadRequest req;
    req.set_model_name(model);
    RepositoryModelLoadResponse resp;
    return Stub()->RepositoryModelLoad(Context().get(), req, &resp);
  }
  std::map<std::string, RepositoryIndexResponse::ModelIndex> Index() {
    RepositoryIndexResponse index;
    EXPECT_TRUE(Stub()->RepositoryIndex(Context().get(), {}, &index).ok());
    std::map<std::string, RepositoryIndexResponse::ModelIndex> rows;
    for (const auto& m : index.models()) rows[m.name()] = m;
    return rows;
  }

  std::string dir_;
  Mutex seen_mutex_;
  bool lost_seen_ ABSL_GUARDED_BY(seen_mutex_) = false;
  std::shared_ptr<gpu::FaultInjector> faults_;
  std::unique_ptr<Server> server_;
  std::shared_ptr<grpc::Channel> channel_;
};

TEST_F(FaultTest, AllocationFailuresInALoadNameTheModelAndOthersKeepServing) {
  // How many allocations a clean load of "third" makes.
  const uint64_t start = faults_->allocations();
  ASSERT_TRUE(Load("third").ok());
  const uint64_t sites = faults_->allocations() - start;
  ASSERT_GT(sites, 0u);
  for (uint64_t k = 1; k <= sites; ++k) {
    SCOPED_TRACE(::testing::Message() << "allocation " << k << " of " << sites);
    faults_->FailAllocation(k);
    grpc::Status s = Load("third");
    faults_->FailAllocation(0);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << s.error_message();
    EXPECT_THAT(s.error_message(), HasSubstr("model 'third'"));
    EXPECT_THAT(s.error_message(), ContainsRegex("[0-9]+ bytes"));
    EXPECT_THAT(s.error_message(), Not(HasSubstr(dir_)));
    auto rows = Index();
    EXPECT_EQ(rows["third"].state(), "UNAVAILABLE");
    EXPECT_THAT(rows["third"].reason(), HasSubstr("out of GPU memory"));
    EXPECT_TRUE(AddOne("addone", 1).ok());
    EXPECT_TRUE(AddOne("spare", 2).ok());
  }
  ASSERT_TRUE(Load("third").ok());
  EXPECT_TRUE(AddOne("third", 3).ok());
}

TEST_F(FaultTest, AllocationFailuresInARunNameTheModelAndTheNextRunWorks) {
  // Each new batch size makes the session allocate its state afresh.
  int n = 2;
  const uint64_t start = faults_->allocations();
  ASSERT_TRUE(AddOne("addone", n++).ok());
  const uint64_t sites = faults_->allocations() - start;
  ASSERT_GT(sites, 0u);
  for (uint64_t k = 1; k <= sites; ++k, ++n) {
    SCOPED_TRACE(::testing::Message() << "allocation " << k << " of " << sites);
    faults_->FailAllocation(k);
    grpc::Status s = AddOne("addone", n);
    faults_->FailAllocation(0);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << s.error_message();
    EXPECT_THAT(s.error_message(), HasSubstr("model 'addone'"));
    EXPECT_THAT(s.error_message(), ContainsRegex("[0-9]+ bytes"));
    EXPECT_TRUE(AddOne("spare", n).ok());
    EXPECT_TRUE(AddOne("addone", n).ok());
  }
}

TEST_F(FaultTest, DeviceLostTakesModelsOffThenReopensTheDeviceAndReloadsThem) {
  ASSERT_TRUE(AddOne("addone", 1).ok());
  const gpu::Device* before = server_->devices().Default().device;

  // Watch the repository index while the device is lost and recovered.
  std::atomic<bool> stop{false};
  std::atomic<int> lost_reason_seen{0};
  std::thread watcher([&] {
    while (!stop.load()) {
      for (const auto& [name, row] : Index()) {
        if (row.state() == "UNAVAILABLE" && row.reason().find("was lost") != std::string::npos) {
          ++lost_reason_seen;
          MutexLock lock(&seen_mutex_);
          lost_seen_ = true;
        }
      }
    }
  });
  // Clients keep sending to both models; every answer is right or UNAVAILABLE.
  std::atomic<int> ok{0}, unavailable{0}, other{0};
  std::vector<std::string> others;
  std::mutex others_mutex;
  std::vector<std::thread> clients;
  for (int c = 0; c < 4; ++c) {
    clients.emplace_back([&, c] {
      for (int i = 0; i < 60; ++i) {
        grpc::Status s = AddOne(c % 2 == 0 ? "addone" : "spare", 1 + (i % 3));
        if (s.ok()) {
          ++ok;
        } else if (s.error_code() == grpc::StatusCode::UNAVAILABLE) {
          ++unavailable;
        } else {
          ++other;
          std::lock_guard<std::mutex> lock(others_mutex);
          others.push_back(s.error_message());
        }
        if (i == 5 && c == 0) faults_->LoseDeviceAtSubmit(1);
      }
    });
  }
  for (std::thread& t : clients) t.join();
  server_->models().WaitForRecovery();
  stop = true;
  watcher.join();

  EXPECT_EQ(other.load(), 0) << (others.empty() ? "" : others.front());
  EXPECT_GT(unavailable.load(), 0);
  EXPECT_GT(ok.load(), 0);
  EXPECT_GT(lost_reason_seen.load(), 0) << "RepositoryIndex never showed the reason";
  // A new device, and both models serve again with the right outputs.
  EXPECT_NE(server_->devices().Default().device, before);
  auto rows = Index();
  EXPECT_EQ(rows["addone"].state(), "READY");
  EXPECT_EQ(rows["spare"].state(), "READY");
  for (int n = 1; n <= 3; ++n) {
    EXPECT_TRUE(AddOne("addone", n).ok());
    EXPECT_TRUE(AddOne("spare", n).ok());
  }
}

}  // namespace
}  // namespace vkserve
