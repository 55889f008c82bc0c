// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Instance groups across GPUs in a serving daemon (a Server on a loopback
// port, C++ gRPC clients in this process), on lavapipe's one device:
//  - as the server runs: `gpus: [0]` and a group without gpus name one
//    device, so the model gets one GPU with both groups' sessions; a UUID
//    selects the device; a GPU that does not exist fails the load naming
//    its selector;
//  - with the DeviceSet test seam (ServerHooks::device_per_selector) the
//    same config opens the device twice, as two GPUs: concurrent clients'
//    requests run on both (the per-GPU phase series count them), every
//    answer right, and the per-GPU session gauges show both.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gpu/instance.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "proto/grpc_service.grpc.pb.h"
#include "server/daemon/server.h"
#include "tests/server/server_test_util.h"
#include "tests/testing/temp_dir.h"

namespace vkserve {
namespace {

using ::testing::HasSubstr;
using namespace inference;  // NOLINT: the protocol's messages
using testing::BytesToFloats;
using testing::RawRequest;

// Sessions: one in a group on GPU 0, one in a group on the server's device.
constexpr char kTwoGroups[] =
    "max_batch_size: 8\n"
    "instance_group { count: 1 gpus: [0] }\n"
    "instance_group { count: 1 }\n";

// Values of the series of `family` with label gpu="...", by that label,
// where the series' text also contains `filter`.
std::map<std::string, double> ByGpu(const std::string& text, const std::string& family,
                                    const std::string& filter) {
  std::map<std::string, double> out;
  const std::regex gpu_label("gpu=\"([^\"]*)\"");
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(family + "{", 0) != 0 || line.find(filter) == std::string::npos) continue;
    std::smatch m;
    if (!std::regex_search(line, m, gpu_label)) continue;
    out[m[1]] += std::stod(line.substr(line.rfind(' ') + 1));
  }
  return out;
}

class MultiGpuServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir("multi_gpu_test");
    repo_ = std::filesystem::path(dir_) / "repository";
  }
  void TearDown() override {
    server_.reset();
    std::filesystem::remove_all(dir_);
  }
  void AddModel(const std::string& name, const std::string& config) {
    testing::WriteFile(repo_ / name / "1/model.onnx", testing::AddOneModelBytes());
    testing::WriteFile(repo_ / name / "config.pbtxt", config);
  }
  void Start(bool device_per_selector, std::vector<std::string> startup) {
    ServerSettings settings = testing::TestServerSettings(repo_.string());
    settings.startup_models = std::move(startup);
    ServerHooks hooks;
    hooks.device_per_selector = device_per_selector;
    auto server = Server::Start(settings, hooks);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    channel_ = testing::UnlimitedChannel(server_->address());
  }
  std::unique_ptr<GRPCInferenceService::Stub> Stub() {
    return GRPCInferenceService::NewStub(channel_);
  }
  static std::unique_ptr<grpc::ClientContext> Context() {
    auto ctx = std::make_unique<grpc::ClientContext>();
    ctx->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    return ctx;
  }
  // x + 1 for `n` rows starting at `base`; OK only with the right values.
  grpc::Status AddOne(const std::string& model, int n, float base) {
    std::vector<float> x(static_cast<size_t>(4 * n));
    for (size_t i = 0; i < x.size(); ++i) x[i] = base + static_cast<float>(i);
    ModelInferResponse resp;
    grpc::Status s = Stub()->ModelInfer(Context().get(), RawRequest(model, "x", {n, 4}, x), &resp);
    if (!s.ok()) return s;
    for (float& v : x) v += 1;
    if (resp.raw_output_contents_size() != 1 || BytesToFloats(resp.raw_output_contents(0)) != x) {
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
  // `clients` threads each sending `each` requests: how many came back right.
  int Burst(const std::string& model, int clients, int each) {
    std::atomic<int> right{0};
    std::vector<std::thread> threads;
    for (int c = 0; c < clients; ++c) {
      threads.emplace_back([&, c] {
        for (int i = 0; i < each; ++i)
          right += AddOne(model, 1 + (c + i) % 3, static_cast<float>(100 * c + i)).ok();
      });
    }
    for (std::thread& t : threads) t.join();
    return right.load();
  }

  std::string dir_;
  std::filesystem::path repo_;
  std::unique_ptr<Server> server_;
  std::shared_ptr<grpc::Channel> channel_;
};

TEST_F(MultiGpuServerTest, SelectorsOfOneDeviceShareItAndAMissingGpuIsNamed) {
  auto instance = gpu::Instance::Create();
  ASSERT_TRUE(instance.ok()) << instance.status();
  auto best = gpu::SelectDevice((*instance)->devices(), "");
  ASSERT_TRUE(best.ok()) << best.status();
  const std::string uuid = (*best)->uuid();
  AddModel("pool", kTwoGroups);
  AddModel("batched", std::string(kTwoGroups) + "dynamic_batching { }\n");
  AddModel("by_uuid", "max_batch_size: 8\ninstance_group { count: 2 }\nvkserve { device: \"" +
                          uuid + "\" }\n");
  AddModel("missing", "max_batch_size: 8\ninstance_group { count: 1 gpus: [0, 9] }\n");
  Start(/*device_per_selector=*/false, {"pool", "batched", "by_uuid"});
  for (const char* model : {"pool", "batched", "by_uuid"}) {
    EXPECT_EQ(Burst(model, 4, 3), 12) << model;
  }
  const std::string text = server_->metrics().Render();
  // Both groups' sessions on the one device, labelled with its UUID.
  for (const char* model : {"pool", "batched", "by_uuid"}) {
    const std::string of = absl::StrCat("model=\"", model, "\"");
    EXPECT_EQ(ByGpu(text, "vkserve_gpu_sessions", of), (std::map<std::string, double>{{uuid, 2}}))
        << model;
    EXPECT_EQ(ByGpu(text, "vkserve_phase_duration_seconds_count", of + ",phase=\"gpu\""),
              (std::map<std::string, double>{{uuid, 12}}))
        << model;
  }
  EXPECT_EQ(ByGpu(text, "vkserve_gpu_memory_bytes", "kind=\"weights\"").count(uuid), 1u);

  grpc::Status missing = Load("missing");
  EXPECT_EQ(missing.error_code(), grpc::StatusCode::NOT_FOUND) << missing.error_message();
  EXPECT_THAT(missing.error_message(), HasSubstr("device selector '9'"));
}

TEST_F(MultiGpuServerTest, RequestsSpreadOverTwoGpusOfOneDevice) {
  AddModel("pool", kTwoGroups);
  AddModel("batched",
           std::string(kTwoGroups) + "dynamic_batching { max_queue_delay_microseconds: 200 }\n");
  Start(/*device_per_selector=*/true, {"pool", "batched"});
  for (const char* model : {"pool", "batched"}) {
    EXPECT_EQ(Burst(model, 12, 8), 96) << model;
    const std::string text = server_->metrics().Render();
    const std::string of = absl::StrCat("model=\"", model, "\"");
    const auto sessions = ByGpu(text, "vkserve_gpu_sessions", of);
    ASSERT_EQ(sessions.size(), 2u) << model;  // two GPUs (one UUID, the second " #2")
    for (const auto& [gpu, n] : sessions) EXPECT_EQ(n, 1) << gpu;
    // Every request counted once, on the GPU that ran it; both ran some.
    const auto ran = ByGpu(text, "vkserve_phase_duration_seconds_count", of + ",phase=\"gpu\"");
    ASSERT_EQ(ran.size(), 2u) << model;
    double total = 0;
    for (const auto& [gpu, n] : ran) {
      EXPECT_GT(n, 0) << model << " never ran on " << gpu;
      total += n;
    }
    EXPECT_EQ(total, 96) << model;
  }
}

}  // namespace
}  // namespace vkserve
