// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// End-to-end tests of the daemon: a Server on an ephemeral loopback port
// serving a temporary repository (the example tinynet plus generated
// models), driven by a C++ gRPC client through every RPC.
#include "server/daemon/server.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "proto/grpc_service.grpc.pb.h"
#include "proto/health.grpc.pb.h"
#include "server/grpc/infer_request.h"
#include "tests/server/server_test_util.h"
#include "tests/testing/temp_dir.h"

namespace vkserve {
namespace {

using ::testing::HasSubstr;
using namespace inference;  // NOLINT: the protocol's messages
using testing::BytesToFloats;
using testing::FloatBytes;
using testing::RawRequest;

constexpr int64_t kMaxMessage = 4 << 20;

class ServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    namespace fs = std::filesystem;
    repo_ = new std::string(testing::MakeTempDir("server_test"));
    const char* src = std::getenv("VKSERVE_SOURCE_DIR");
    const fs::path source = src ? src : ".";
    fs::copy(source / "config/examples/repository/tinynet", fs::path(*repo_) / "tinynet",
             fs::copy_options::recursive);
    const std::string addone = testing::AddOneModelBytes();
    testing::WriteFile(fs::path(*repo_) / "addone/1/model.onnx", addone);
    testing::WriteFile(fs::path(*repo_) / "addone/2/model.onnx", addone);
    testing::WriteFile(fs::path(*repo_) / "addone/config.pbtxt", "version_policy { all {} }\n");
    testing::WriteFile(fs::path(*repo_) / "gpuout/1/model.onnx", addone);
    testing::WriteFile(fs::path(*repo_) / "gpuout/config.pbtxt",
                       "vkserve { output { name: \"y\" location: GPU } }\n");
    testing::WriteFile(fs::path(*repo_) / "queue1/1/model.onnx", addone);
    testing::WriteFile(fs::path(*repo_) / "queue1/config.pbtxt",
                       "instance_group { count: 1 kind: KIND_GPU }\n"
                       "dynamic_batching { default_queue_policy { max_queue_size: 1 } }\n");
    testing::WriteFile(fs::path(*repo_) / "churn/1/model.onnx", addone);

    ServerSettings settings = testing::TestServerSettings(*repo_);
    settings.max_message_bytes = kMaxMessage;
    settings.resident_output_idle_expiry = absl::Seconds(2);
    settings.allow_shared_memory = true;
    settings.exit_timeout = absl::Seconds(10);
    auto server = Server::Start(settings);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = server->release();
    channel_ = new std::shared_ptr<grpc::Channel>(testing::UnlimitedChannel(server_->address()));
  }
  static void TearDownTestSuite() {
    delete channel_;
    delete server_;
    std::filesystem::remove_all(*repo_);
    delete repo_;
  }

  std::unique_ptr<GRPCInferenceService::Stub> Stub() {
    return GRPCInferenceService::NewStub(*channel_);
  }

  grpc::Status Infer(const ModelInferRequest& req, ModelInferResponse* resp) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    return Stub()->ModelInfer(&ctx, req, resp);
  }

  // Expects `status` to be `code` with a message containing `text`.
  static void ExpectError(const grpc::Status& status, grpc::StatusCode code,
                          const std::string& text) {
    EXPECT_EQ(status.error_code(), code) << status.error_message();
    EXPECT_THAT(status.error_message(), HasSubstr(text));
  }

  // The server still answers a good request.
  void ExpectStillServing() {
    ModelInferResponse resp;
    grpc::Status s = Infer(RawRequest("addone", "x", {1, 4}, {1, 2, 3, 4}), &resp);
    ASSERT_TRUE(s.ok()) << s.error_message();
    EXPECT_EQ(BytesToFloats(resp.raw_output_contents(0)), (std::vector<float>{2, 3, 4, 5}));
  }

  static std::string* repo_;
  static Server* server_;
  static std::shared_ptr<grpc::Channel>* channel_;
};

std::string* ServerTest::repo_ = nullptr;
Server* ServerTest::server_ = nullptr;
std::shared_ptr<grpc::Channel>* ServerTest::channel_ = nullptr;

TEST_F(ServerTest, HealthAndMetadata) {
  auto stub = Stub();
  {
    grpc::ClientContext ctx;
    ServerLiveResponse r;
    ASSERT_TRUE(stub->ServerLive(&ctx, {}, &r).ok());
    EXPECT_TRUE(r.live());
  }
  {
    grpc::ClientContext ctx;
    ServerReadyResponse r;
    ASSERT_TRUE(stub->ServerReady(&ctx, {}, &r).ok());
    EXPECT_TRUE(r.ready());
  }
  {
    grpc::ClientContext ctx;
    ModelReadyRequest req;
    req.set_name("tinynet");
    ModelReadyResponse r;
    ASSERT_TRUE(stub->ModelReady(&ctx, req, &r).ok());
    EXPECT_TRUE(r.ready());
  }
  {
    grpc::ClientContext ctx;
    ModelReadyRequest req;
    req.set_name("nosuch");
    ModelReadyResponse r;
    ASSERT_TRUE(stub->ModelReady(&ctx, req, &r).ok());
    EXPECT_FALSE(r.ready());
  }
  {
    grpc::ClientContext ctx;
    ServerMetadataResponse r;
    ASSERT_TRUE(stub->ServerMetadata(&ctx, {}, &r).ok());
    EXPECT_EQ(r.name(), "vkserve");
    EXPECT_THAT(r.extensions(), ::testing::Contains("statistics"));
    EXPECT_THAT(r.extensions(), ::testing::Contains("system_shared_memory"));
  }
  {
    grpc::ClientContext ctx;
    ModelMetadataRequest req;
    req.set_name("tinynet");
    ModelMetadataResponse r;
    ASSERT_TRUE(stub->ModelMetadata(&ctx, req, &r).ok());
    ASSERT_EQ(r.inputs_size(), 1);
    EXPECT_EQ(r.inputs(0).name(), "image");
    EXPECT_EQ(r.inputs(0).datatype(), "FP32");
    EXPECT_THAT(r.inputs(0).shape(), ::testing::ElementsAre(-1, 3, 16, 16));
    EXPECT_THAT(r.outputs(0).shape(), ::testing::ElementsAre(-1, 10));
    EXPECT_THAT(r.versions(), ::testing::ElementsAre("1"));
  }
  {
    grpc::ClientContext ctx;
    ModelMetadataRequest req;
    req.set_name("addone");
    ModelMetadataResponse r;
    ASSERT_TRUE(stub->ModelMetadata(&ctx, req, &r).ok());
    EXPECT_THAT(r.versions(), ::testing::ElementsAre("1", "2"));
  }
  {
    grpc::ClientContext ctx;
    ModelConfigRequest req;
    req.set_name("tinynet");
    ModelConfigResponse r;
    ASSERT_TRUE(stub->ModelConfig(&ctx, req, &r).ok());
    EXPECT_EQ(r.config().max_batch_size(), 8);
    EXPECT_EQ(r.config().name(), "tinynet");
  }
  {
    grpc::ClientContext ctx;
    ModelMetadataRequest req;
    req.set_name("nosuch");
    ModelMetadataResponse r;
    ExpectError(stub->ModelMetadata(&ctx, req, &r), grpc::StatusCode::NOT_FOUND, "nosuch");
  }
  {
    auto health = grpc::health::v1::Health::NewStub(*channel_);
    grpc::ClientContext ctx;
    grpc::health::v1::HealthCheckResponse r;
    ASSERT_TRUE(health->Check(&ctx, {}, &r).ok());
    EXPECT_EQ(r.status(), grpc::health::v1::HealthCheckResponse::SERVING);
  }
}

TEST_F(ServerTest, TinynetInferAndStatistics) {
  std::vector<float> image(2 * 3 * 16 * 16);
  for (size_t i = 0; i < image.size(); ++i) image[i] = std::sin(static_cast<float>(i) * 0.1f);
  ModelInferRequest req = RawRequest("tinynet", "image", {2, 3, 16, 16}, image);
  req.set_id("tiny-1");
  ModelInferResponse resp;
  grpc::Status s = Infer(req, &resp);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(resp.id(), "tiny-1");
  EXPECT_EQ(resp.model_version(), "1");
  ASSERT_EQ(resp.outputs_size(), 1);
  ASSERT_EQ(resp.raw_output_contents_size(), 1);
  EXPECT_EQ(resp.outputs(0).name(), "probabilities");
  EXPECT_THAT(resp.outputs(0).shape(), ::testing::ElementsAre(2, 10));
  std::vector<float> p = BytesToFloats(resp.raw_output_contents(0));
  ASSERT_EQ(p.size(), 20u);
  for (int b = 0; b < 2; ++b) {
    float sum = 0;
    for (int i = 0; i < 10; ++i) sum += p[b * 10 + i];
    EXPECT_NEAR(sum, 1.0f, 1e-4);
  }

  // The same request with typed contents gives the same bytes.
  ModelInferRequest typed = req;
  typed.clear_raw_input_contents();
  for (float f : image) typed.mutable_inputs(0)->mutable_contents()->add_fp32_contents(f);
  ModelInferResponse typed_resp;
  ASSERT_TRUE(Infer(typed, &typed_resp).ok());
  EXPECT_EQ(typed_resp.raw_output_contents(0), resp.raw_output_contents(0));

  grpc::ClientContext ctx;
  ModelStatisticsRequest sreq;
  sreq.set_name("tinynet");
  ModelStatisticsResponse stats;
  ASSERT_TRUE(Stub()->ModelStatistics(&ctx, sreq, &stats).ok());
  ASSERT_EQ(stats.model_stats_size(), 1);
  const auto& st = stats.model_stats(0);
  EXPECT_GE(st.inference_stats().success().count(), 2u);
  EXPECT_GE(st.inference_count(), 4u);  // batch 2, twice
  EXPECT_GE(st.execution_count(), 2u);
  EXPECT_GT(st.last_inference(), 0u);
  EXPECT_GT(st.inference_stats().compute_infer().ns(), 0u);
}

// Outputs of 1 MiB and more are read back into buffers that earlier
// responses carried (server/grpc/output_buffer_pool.h): after the first request,
// each one reuses the buffer the previous response gave back, shrinking and
// growing within it, and every answer is still exactly x + 1 (stale bytes of
// an earlier, larger answer never show).
TEST_F(ServerTest, LargeOutputsReuseResponseBuffers) {
  auto pooled_after = [](uint64_t given) {
    // gRPC gives the buffer back after the client has its answer.
    const absl::Time deadline = absl::Now() + absl::Seconds(20);
    while (server_->output_buffer_stats().pooled_buffers < given && absl::Now() < deadline) {
      absl::SleepFor(absl::Milliseconds(5));
    }
    return server_->output_buffer_stats().pooled_buffers;
  };
  ASSERT_EQ(pooled_after(0), 0u) << "another test left pooled buffers";
  const OutputBufferPoolStats before = server_->output_buffer_stats();
  for (int i = 0; i < 4; ++i) {
    const int64_t rows = i % 2 == 0 ? 90000 : 70000;  // 1.44 MB, then 1.12 MB
    std::vector<float> x(static_cast<size_t>(rows * 4));
    for (size_t j = 0; j < x.size(); ++j)
      x[j] = static_cast<float>(i * 1000 + static_cast<int>(j % 997));
    ModelInferResponse resp;
    grpc::Status s = Infer(RawRequest("addone", "x", {rows, 4}, x), &resp);
    ASSERT_TRUE(s.ok()) << s.error_message();
    std::vector<float> y = BytesToFloats(resp.raw_output_contents(0));
    ASSERT_EQ(y.size(), x.size());
    size_t wrong = 0;
    for (size_t j = 0; j < x.size(); ++j) wrong += y[j] != x[j] + 1;
    EXPECT_EQ(wrong, 0u) << "request " << i;
    EXPECT_EQ(pooled_after(1), 1u) << "request " << i << "'s buffer did not come back";
  }
  const OutputBufferPoolStats after = server_->output_buffer_stats();
  EXPECT_EQ(after.allocated - before.allocated, 1u);
  EXPECT_EQ(after.reused - before.reused, 3u);
}

TEST_F(ServerTest, RequestedOutputsAndVersions) {
  ModelInferRequest req = RawRequest("addone", "x", {1, 4}, {0, 1, 2, 3});
  req.set_model_version("1");
  req.add_outputs()->set_name("y");
  ModelInferResponse resp;
  ASSERT_TRUE(Infer(req, &resp).ok());
  EXPECT_EQ(resp.model_version(), "1");
  ModelInferResponse latest;
  req.set_model_version("");
  ASSERT_TRUE(Infer(req, &latest).ok());
  EXPECT_EQ(latest.model_version(), "2");
  req.set_model_version("7");
  ExpectError(Infer(req, &resp), grpc::StatusCode::NOT_FOUND, "version 7");
  req.set_model_version("abc");
  ExpectError(Infer(req, &resp), grpc::StatusCode::INVALID_ARGUMENT, "abc");
}

TEST_F(ServerTest, BadRequestsAreRefusedAndServerKeepsServing) {
  const std::vector<float> x = {1, 2, 3, 4};
  ModelInferResponse resp;
  {
    ModelInferRequest r = RawRequest("nosuch", "x", {1, 4}, x);
    ExpectError(Infer(r, &resp), grpc::StatusCode::NOT_FOUND, "nosuch");
  }
  {
    ModelInferRequest r = RawRequest("addone", "x", {1, 4}, x);
    r.mutable_inputs(0)->set_name("z");
    ExpectError(Infer(r, &resp), grpc::StatusCode::INVALID_ARGUMENT, "'z'");
  }
  {
    ModelInferRequest r;
    r.set_model_name("addone");
    ExpectError(Infer(r, &resp), grpc::StatusCode::INVALID_ARGUMENT, "missing");
  }
  {
    ModelInferRequest r = RawRequest("addone", "x", {1, 4}, x);
    *r.add_inputs() = r.inputs(0);
    r.add_raw_input_contents(FloatBytes(x));
    ExpectError(Infer(r, &resp), grpc::StatusCode::INVALID_ARGUMENT, "more than once");
  }
  {
    ModelInferRequest r = RawRequest("addone", "x", {1, 4}, x);
    r.mutable_inputs(0)->set_datatype("INT64");
    ExpectError(Infer(r, &resp), grpc::StatusCode::INVALID_ARGUMENT, "datatype INT64");
  }
  {
    ModelInferRequest r = RawRequest("addone", "x", {1, 4}, x);
    r.mutable_inputs(0)->set_datatype("FLOATY");
    ExpectError(Infer(r, &resp), grpc::StatusCode::INVALID_ARGUMENT, "FLOATY");
  }
  {
    ModelInferRequest r = RawRequest("addone", "x", {2, 2}, x);
    ExpectError(Infer(r, &resp), grpc::StatusCode::INVALID_ARGUMENT, "fixes it at 4");
  }
  {
    ModelInferRequest r = RawRequest("addone", "x", {2, 4}, x);
    ExpectError(Infer(r, &resp), grpc::StatusCode::INVALID_ARGUMENT, "16 bytes");
  }
  {
    ModelInferRequest r = RawRequest("addone", "x", {-1, 4}, x);
    ExpectError(Infer(r, &resp), grpc::StatusCode::INVALID_ARGUMENT, "negative");
  }
  {
    ModelInferRequest r = RawRequest("addone", "x", {int64_t{1} << 40, int64_t{1} << 40}, x);
    ExpectError(Infer(r, &resp), grpc::StatusCode::INVALID_ARGUMENT, "too large");
  }
  {
    ModelInferRequest r = RawRequest("addone", "x", {1, 4}, x);
    r.mutable_inputs(0)->mutable_contents()->add_fp32_contents(1);
    ExpectError(Infer(r, &resp), grpc::StatusCode::INVALID_ARGUMENT, "raw_input_contents");
  }
  {
    ModelInferRequest r = RawRequest("addone", "x", {1, 4}, x);
    r.mutable_inputs(0)->mutable_parameters()->operator[](kGpuHandleParam).set_string_param("nope");
    r.clear_raw_input_contents();
    ExpectError(Infer(r, &resp), grpc::StatusCode::NOT_FOUND, "nope");
  }
  {
    ModelInferRequest r = RawRequest("addone", "x", {1, 4}, x);
    r.add_outputs()->set_name("w");
    ExpectError(Infer(r, &resp), grpc::StatusCode::INVALID_ARGUMENT, "'w'");
  }
  {
    ModelInferRequest r = RawRequest("addone", "x", {1, 4}, x);
    (*r.mutable_inputs(0)->mutable_parameters())["shared_memory_region"].set_string_param("absent");
    r.clear_raw_input_contents();
    ExpectError(Infer(r, &resp), grpc::StatusCode::INVALID_ARGUMENT, "shared_memory_byte_size");
    (*r.mutable_inputs(0)->mutable_parameters())["shared_memory_byte_size"].set_int64_param(16);
    ExpectError(Infer(r, &resp), grpc::StatusCode::NOT_FOUND, "absent");
  }
  {
    // Larger than max_message_bytes: refused with a message naming the limit.
    std::vector<float> big((kMaxMessage / 4 / 4 + 1) * 4);
    ModelInferRequest r = RawRequest("addone", "x", {static_cast<int64_t>(big.size() / 4), 4}, big);
    ExpectError(Infer(r, &resp), grpc::StatusCode::INVALID_ARGUMENT, "max_message_bytes");
  }
  ExpectStillServing();
}

// Reads a handle's tensor through the vkserve_read_handle request parameter.
grpc::Status ReadHandle(GRPCInferenceService::Stub* stub, const std::string& handle, bool release,
                        ModelInferResponse* resp) {
  ModelInferRequest r;
  (*r.mutable_parameters())[kReadHandleParam].set_string_param(handle);
  if (release) (*r.mutable_parameters())[kReleaseParam].set_bool_param(true);
  grpc::ClientContext ctx;
  return stub->ModelInfer(&ctx, r, resp);
}

TEST_F(ServerTest, GpuResidentChainingMatchesHostPath) {
  auto stub = Stub();
  const std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8};
  // Request 1: y stays on the GPU (output parameter).
  ModelInferRequest r1 = RawRequest("addone", "x", {2, 4}, x);
  auto* out = r1.add_outputs();
  out->set_name("y");
  (*out->mutable_parameters())[kLocationParam].set_string_param("gpu");
  ModelInferResponse resp1;
  ASSERT_TRUE(Infer(r1, &resp1).ok());
  ASSERT_EQ(resp1.raw_output_contents_size(), 1);
  EXPECT_TRUE(resp1.raw_output_contents(0).empty());
  const std::string handle = resp1.outputs(0).parameters().at(kGpuHandleParam).string_param();
  ASSERT_FALSE(handle.empty());

  // Request 2: that handle as the input.
  ModelInferRequest r2;
  r2.set_model_name("addone");
  auto* in = r2.add_inputs();
  in->set_name("x");
  in->set_datatype("FP32");
  (*in->mutable_parameters())[kGpuHandleParam].set_string_param(handle);
  ModelInferResponse resp2;
  grpc::Status s = Infer(r2, &resp2);
  ASSERT_TRUE(s.ok()) << s.error_message();

  // Host path: two round trips.
  ModelInferResponse h1, h2;
  ASSERT_TRUE(Infer(RawRequest("addone", "x", {2, 4}, x), &h1).ok());
  ASSERT_TRUE(
      Infer(RawRequest("addone", "x", {2, 4}, BytesToFloats(h1.raw_output_contents(0))), &h2).ok());
  EXPECT_EQ(resp2.raw_output_contents(0), h2.raw_output_contents(0));
  EXPECT_EQ(BytesToFloats(resp2.raw_output_contents(0)),
            (std::vector<float>{3, 4, 5, 6, 7, 8, 9, 10}));

  // Read the handle, then read-and-release, then it is gone.
  ModelInferResponse read;
  ASSERT_TRUE(ReadHandle(stub.get(), handle, false, &read).ok());
  EXPECT_EQ(read.raw_output_contents(0), h1.raw_output_contents(0));
  ASSERT_TRUE(ReadHandle(stub.get(), handle, true, &read).ok());
  ExpectError(ReadHandle(stub.get(), handle, false, &read), grpc::StatusCode::NOT_FOUND, handle);
  ExpectError(Infer(r2, &resp2), grpc::StatusCode::NOT_FOUND, handle);
}

TEST_F(ServerTest, ConfigPreferredGpuOutputReleaseAndExpiry) {
  auto stub = Stub();
  ModelInferResponse resp;
  ASSERT_TRUE(Infer(RawRequest("gpuout", "x", {1, 4}, {1, 2, 3, 4}), &resp).ok());
  const std::string h1 = resp.outputs(0).parameters().at(kGpuHandleParam).string_param();
  ASSERT_TRUE(Infer(RawRequest("gpuout", "x", {1, 4}, {1, 2, 3, 4}), &resp).ok());
  const std::string h2 = resp.outputs(0).parameters().at(kGpuHandleParam).string_param();

  // Explicit release.
  ModelInferRequest rel;
  (*rel.mutable_parameters())[kReleaseHandleParam].set_string_param(h1);
  ModelInferResponse ignored;
  ASSERT_TRUE(Infer(rel, &ignored).ok());
  ExpectError(Infer(rel, &ignored), grpc::StatusCode::NOT_FOUND, h1);

  // Idle expiry (2 s in this server, swept every second).
  std::this_thread::sleep_for(std::chrono::milliseconds(3500));
  ModelInferResponse read;
  ExpectError(ReadHandle(stub.get(), h2, false, &read), grpc::StatusCode::NOT_FOUND, h2);
}

TEST_F(ServerTest, SharedMemoryRoundTrip) {
  const std::string key = "/vkserve_test_" + std::to_string(getpid());
  int fd = shm_open(key.c_str(), O_CREAT | O_RDWR, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, 64), 0);
  void* base = mmap(nullptr, 64, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ASSERT_NE(base, MAP_FAILED);
  close(fd);
  const std::vector<float> x = {1, 2, 3, 4};
  std::memcpy(base, x.data(), 16);

  auto stub = Stub();
  {
    grpc::ClientContext ctx;
    SystemSharedMemoryRegisterRequest req;
    req.set_name("region");
    req.set_key(key);
    req.set_byte_size(64);
    SystemSharedMemoryRegisterResponse r;
    grpc::Status s = stub->SystemSharedMemoryRegister(&ctx, req, &r);
    ASSERT_TRUE(s.ok()) << s.error_message();
  }
  {
    grpc::ClientContext ctx;
    SystemSharedMemoryStatusResponse r;
    ASSERT_TRUE(stub->SystemSharedMemoryStatus(&ctx, {}, &r).ok());
    ASSERT_TRUE(r.regions().contains("region"));
    EXPECT_EQ(r.regions().at("region").byte_size(), 64u);
  }
  ModelInferRequest req;
  req.set_model_name("addone");
  auto* in = req.add_inputs();
  in->set_name("x");
  in->set_datatype("FP32");
  in->add_shape(1);
  in->add_shape(4);
  (*in->mutable_parameters())["shared_memory_region"].set_string_param("region");
  (*in->mutable_parameters())["shared_memory_byte_size"].set_int64_param(16);
  auto* out = req.add_outputs();
  out->set_name("y");
  (*out->mutable_parameters())["shared_memory_region"].set_string_param("region");
  (*out->mutable_parameters())["shared_memory_byte_size"].set_int64_param(16);
  (*out->mutable_parameters())["shared_memory_offset"].set_int64_param(32);
  ModelInferResponse resp;
  grpc::Status s = Infer(req, &resp);
  ASSERT_TRUE(s.ok()) << s.error_message();
  ASSERT_EQ(resp.raw_output_contents_size(), 1);
  EXPECT_TRUE(resp.raw_output_contents(0).empty());
  std::vector<float> y(4);
  std::memcpy(y.data(), static_cast<uint8_t*>(base) + 32, 16);
  EXPECT_EQ(y, (std::vector<float>{2, 3, 4, 5}));

  // Out of range.
  (*out->mutable_parameters())["shared_memory_offset"].set_int64_param(56);
  ExpectError(Infer(req, &resp), grpc::StatusCode::INVALID_ARGUMENT, "outside region 'region'");
  {
    grpc::ClientContext ctx;
    SystemSharedMemoryUnregisterRequest ureq;
    ureq.set_name("region");
    SystemSharedMemoryUnregisterResponse r;
    ASSERT_TRUE(stub->SystemSharedMemoryUnregister(&ctx, ureq, &r).ok());
  }
  (*out->mutable_parameters())["shared_memory_offset"].set_int64_param(32);
  ExpectError(Infer(req, &resp), grpc::StatusCode::NOT_FOUND, "not registered");
  munmap(base, 64);
  shm_unlink(key.c_str());
  ExpectStillServing();
}

TEST_F(ServerTest, SixtyFourConcurrentClients) {
  std::vector<std::thread> threads;
  std::atomic<int> good{0};
  for (int t = 0; t < 64; ++t) {
    threads.emplace_back([&, t] {
      const float base = static_cast<float>(t * 10);
      std::vector<float> x = {base, base + 1, base + 2, base + 3};
      ModelInferResponse resp;
      grpc::Status s = Infer(RawRequest("addone", "x", {1, 4}, x), &resp);
      if (s.ok() && BytesToFloats(resp.raw_output_contents(0)) ==
                        std::vector<float>{base + 1, base + 2, base + 3, base + 4}) {
        ++good;
      } else {
        ADD_FAILURE() << "client " << t << ": " << s.error_message();
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(good.load(), 64);
}

TEST_F(ServerTest, StreamInferAnswersEveryRequest) {
  grpc::ClientContext ctx;
  auto stream = Stub()->ModelStreamInfer(&ctx);
  for (int i = 0; i < 8; ++i) {
    ModelInferRequest r =
        RawRequest(i == 3 ? "nosuch" : "addone", "x", {1, 4}, {float(i), 0, 0, 0});
    r.set_id("s" + std::to_string(i));
    ASSERT_TRUE(stream->Write(r));
  }
  stream->WritesDone();
  ModelStreamInferResponse resp;
  int ok = 0, errors = 0;
  while (stream->Read(&resp)) {
    if (resp.error_message().empty()) {
      ++ok;
      const int i = std::stoi(resp.infer_response().id().substr(1));
      EXPECT_EQ(BytesToFloats(resp.infer_response().raw_output_contents(0))[0], float(i) + 1);
    } else {
      ++errors;
      EXPECT_THAT(resp.error_message(), HasSubstr("nosuch"));
      EXPECT_EQ(resp.infer_response().id(), "s3");
    }
  }
  EXPECT_TRUE(stream->Finish().ok());
  EXPECT_EQ(ok, 7);
  EXPECT_EQ(errors, 1);
}

TEST_F(ServerTest, QueueFullTimeoutAndCancel) {
  // queue1 has one session and room for one waiting request; a burst of
  // large requests overflows it.
  std::vector<float> big(128 * 1024 * 4, 1.0f);
  std::vector<std::thread> threads;
  std::atomic<int> ok{0}, full{0}, other{0};
  for (int t = 0; t < 24; ++t) {
    threads.emplace_back([&] {
      ModelInferResponse resp;
      grpc::Status s = Infer(RawRequest("queue1", "x", {128 * 1024, 4}, big), &resp);
      if (s.ok())
        ++ok;
      else if (s.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED &&
               s.error_message().find("queue") != std::string::npos)
        ++full;
      else
        ++other;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_GT(ok.load(), 0);
  EXPECT_GT(full.load(), 0);
  EXPECT_EQ(other.load(), 0);
  // The Prometheus counters saw exactly what the clients saw (summed over
  // the model's served versions).
  auto requests = [&](const std::string& model, const std::string& outcome) {
    const std::string text = server_->metrics().Render();
    const std::string prefix =
        "vkserve_requests_total{model=\"" + model + "\",outcome=\"" + outcome + "\",version=";
    double total = 0;
    for (size_t at = text.find(prefix); at != std::string::npos; at = text.find(prefix, at + 1)) {
      const size_t space = text.find("} ", at);
      total += std::stod(text.substr(space + 2));
    }
    return total;
  };
  EXPECT_EQ(requests("queue1", "queue_full"), full.load());
  EXPECT_EQ(requests("queue1", "success"), ok.load());

  // A 1 us queue timeout expires before a session can take the request.
  ModelInferRequest r = RawRequest("addone", "x", {1, 4}, {1, 2, 3, 4});
  (*r.mutable_parameters())[kTimeoutParam].set_int64_param(1);
  ModelInferResponse resp;
  ExpectError(Infer(r, &resp), grpc::StatusCode::DEADLINE_EXCEEDED, "timed out");
  EXPECT_EQ(requests("addone", "timeout"), 1);

  // A call cancelled by the client is answered CANCELLED; the server goes on.
  for (int i = 0; i < 8; ++i) {
    grpc::ClientContext ctx;
    ModelInferResponse cresp;
    std::thread canceller([&ctx] { ctx.TryCancel(); });
    grpc::Status s =
        Stub()->ModelInfer(&ctx, RawRequest("addone", "x", {1, 4}, {1, 2, 3, 4}), &cresp);
    canceller.join();
    EXPECT_TRUE(s.ok() || s.error_code() == grpc::StatusCode::CANCELLED) << s.error_message();
  }
  // (Calls cancelled before gRPC hands them to the service never reach a
  // model, so the cancelled counter cannot be checked exactly here; the
  // pool test covers a queued request answered CANCELLED.)
  ExpectStillServing();
}

TEST_F(ServerTest, RepositoryIndexLoadAndUnloadUnderTraffic) {
  auto stub = Stub();
  {
    grpc::ClientContext ctx;
    RepositoryIndexResponse r;
    ASSERT_TRUE(stub->RepositoryIndex(&ctx, {}, &r).ok());
    std::set<std::string> names;
    for (const auto& m : r.models()) {
      names.insert(m.name());
      EXPECT_EQ(m.state(), "READY") << m.name() << ": " << m.reason();
    }
    EXPECT_THAT(names, ::testing::ElementsAre("addone", "churn", "gpuout", "queue1", "tinynet"));
  }
  std::atomic<bool> stop{false};
  std::atomic<int> ok{0}, refused{0}, wrong{0};
  std::vector<std::thread> traffic;
  for (int t = 0; t < 4; ++t) {
    traffic.emplace_back([&] {
      while (!stop.load()) {
        ModelInferResponse resp;
        grpc::Status s = Infer(RawRequest("churn", "x", {1, 4}, {1, 2, 3, 4}), &resp);
        if (s.ok()) {
          if (BytesToFloats(resp.raw_output_contents(0)) == std::vector<float>{2, 3, 4, 5})
            ++ok;
          else
            ++wrong;
        } else if (s.error_code() == grpc::StatusCode::NOT_FOUND ||
                   s.error_code() == grpc::StatusCode::UNAVAILABLE) {
          ++refused;
        } else {
          ++wrong;
        }
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  {
    grpc::ClientContext ctx;
    RepositoryModelUnloadRequest req;
    req.set_model_name("churn");
    RepositoryModelUnloadResponse r;
    grpc::Status s = stub->RepositoryModelUnload(&ctx, req, &r);
    ASSERT_TRUE(s.ok()) << s.error_message();
  }
  {
    grpc::ClientContext ctx;
    ModelReadyRequest req;
    req.set_name("churn");
    ModelReadyResponse r;
    ASSERT_TRUE(stub->ModelReady(&ctx, req, &r).ok());
    EXPECT_FALSE(r.ready());
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  {
    grpc::ClientContext ctx;
    RepositoryModelLoadRequest req;
    req.set_model_name("churn");
    RepositoryModelLoadResponse r;
    grpc::Status s = stub->RepositoryModelLoad(&ctx, req, &r);
    ASSERT_TRUE(s.ok()) << s.error_message();
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  stop = true;
  for (auto& t : traffic) t.join();
  EXPECT_GT(ok.load(), 0);
  EXPECT_EQ(wrong.load(), 0);
  {
    grpc::ClientContext ctx;
    RepositoryModelLoadRequest req;
    req.set_model_name("nosuch");
    RepositoryModelLoadResponse r;
    EXPECT_EQ(stub->RepositoryModelLoad(&ctx, req, &r).error_code(), grpc::StatusCode::NOT_FOUND);
  }
  {
    grpc::ClientContext ctx;
    RepositoryModelUnloadRequest req;
    req.set_model_name("nosuch");
    RepositoryModelUnloadResponse r;
    EXPECT_EQ(stub->RepositoryModelUnload(&ctx, req, &r).error_code(), grpc::StatusCode::NOT_FOUND);
  }
  ExpectStillServing();
}

}  // namespace
}  // namespace vkserve
