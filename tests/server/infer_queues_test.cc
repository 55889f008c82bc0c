// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ModelInfer on the async API (server/grpc/infer_queues.h) through real gRPC
// clients: one queue thread serving many clients, and a shutdown while
// calls are in flight (every client answered, nothing run after Stop).
#include <atomic>
#include <filesystem>
#include <thread>
#include <vector>

#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "proto/grpc_service.grpc.pb.h"
#include "server/daemon/server.h"
#include "tests/server/server_test_util.h"
#include "tests/testing/temp_dir.h"

namespace vkserve {
namespace {

using inference::GRPCInferenceService;
using inference::ModelInferResponse;
using testing::BytesToFloats;
using testing::RawRequest;

std::unique_ptr<Server> StartServer(const std::string& repo, int infer_threads) {
  testing::WriteFile(std::filesystem::path(repo) / "addone/1/model.onnx",
                     testing::AddOneModelBytes());
  ServerSettings settings = testing::TestServerSettings(repo);
  settings.grpc_infer_threads = infer_threads;
  settings.exit_timeout = absl::Seconds(10);
  auto server = Server::Start(settings);
  EXPECT_TRUE(server.ok()) << server.status();
  return server.ok() ? *std::move(server) : nullptr;
}

// Sends addone requests whose inputs name the client and the request;
// checks each answer. Returns the first non-OK status, or OK after `n`.
grpc::Status SendChecked(GRPCInferenceService::Stub& stub, int client, int n,
                         std::atomic<int>* good) {
  for (int i = 0; i < n; ++i) {
    const float base = static_cast<float>(client * 1000 + i * 4);
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    ModelInferResponse resp;
    grpc::Status s = stub.ModelInfer(
        &ctx, RawRequest("addone", "x", {1, 4}, {base, base + 1, base + 2, base + 3}), &resp);
    if (!s.ok()) return s;
    EXPECT_EQ(BytesToFloats(resp.raw_output_contents(0)),
              (std::vector<float>{base + 1, base + 2, base + 3, base + 4}))
        << "client " << client << " request " << i;
    ++*good;
  }
  return grpc::Status::OK;
}

TEST(InferQueuesTest, OneThreadAnswersManyClients) {
  const std::string repo = testing::MakeTempDir("infer_queues_one");
  std::unique_ptr<Server> server = StartServer(repo, 1);
  ASSERT_NE(server, nullptr);
  std::atomic<int> good{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < 24; ++c) {
    clients.emplace_back([&, c] {
      auto stub = GRPCInferenceService::NewStub(testing::UnlimitedChannel(server->address()));
      const grpc::Status s = SendChecked(*stub, c, 10, &good);
      EXPECT_TRUE(s.ok()) << "client " << c << ": " << s.error_message();
    });
  }
  for (std::thread& t : clients) t.join();
  EXPECT_EQ(good.load(), 240);
  server.reset();
  std::filesystem::remove_all(repo);
}

TEST(InferQueuesTest, ShutdownAnswersEveryCallInFlight) {
  const std::string repo = testing::MakeTempDir("infer_queues_stop");
  std::unique_ptr<Server> server = StartServer(repo, 2);
  ASSERT_NE(server, nullptr);
  const std::string address = server->address();
  std::atomic<int> good{0}, refused{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < 16; ++c) {
    clients.emplace_back([&, c] {
      auto stub = GRPCInferenceService::NewStub(testing::UnlimitedChannel(address));
      // Until the server stops: then UNAVAILABLE (refused, or no longer
      // listening) or CANCELLED (cut off by gRPC's shutdown), never
      // anything else and never a wrong answer.
      const grpc::Status s = SendChecked(*stub, c, 1 << 30, &good);
      EXPECT_TRUE(s.error_code() == grpc::StatusCode::UNAVAILABLE ||
                  s.error_code() == grpc::StatusCode::CANCELLED)
          << "client " << c << ": " << s.error_code() << " " << s.error_message();
      ++refused;
    });
  }
  while (good.load() < 64) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  server->Shutdown();  // returns: every call in flight was answered
  for (std::thread& t : clients) t.join();
  EXPECT_EQ(refused.load(), 16);
  server.reset();
  std::filesystem::remove_all(repo);
}

}  // namespace
}  // namespace vkserve
