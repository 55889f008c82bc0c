// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// model_warmup (Triton's): each session runs the configured samples before
// the model serves, so their shapes are planned at load — for the dynamic
// batcher, its padding targets at the samples' shapes too — and a sample
// that cannot be made (a missing or mis-sized file) fails the load with a
// message naming it, while the server keeps serving the rest.
#include <filesystem>

#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "proto/grpc_service.grpc.pb.h"
#include "server/daemon/server.h"
#include "tests/server/server_test_util.h"
#include "tests/testing/temp_dir.h"

namespace vkserve {
namespace {

namespace fs = std::filesystem;
using testing::BytesToFloats;
using testing::FloatBytes;
using ::testing::HasSubstr;
using testing::RawRequest;

// x float[N,S] -> x + 1 with `config`.
void WriteSeqModel(const fs::path& dir, const std::string& config) {
  testing::WriteFile(dir / "1/model.onnx", testing::AddOneModelBytes(-1));
  testing::WriteFile(dir / "config.pbtxt", config);
}

// Batched up to 8, one sample "w" of x with `data`.
std::string Sample(const std::string& data) {
  return std::string("max_batch_size: 8\nmodel_warmup { name: \"w\" batch_size: 1 ") +
         "inputs { key: \"x\" value { data_type: TYPE_FP32 " + data + " } } }\n";
}

class WarmupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    repo_ = testing::MakeTempDir("warmup_test");
    // Batched: a batch of 4 rows of 16 from a file; padding targets (8)
    // then planned at 16 wide.
    WriteSeqModel(repo_ / "batched",
                  "max_batch_size: 8\ndynamic_batching { preferred_batch_size: [8] }\n"
                  "model_warmup { name: \"s16\" batch_size: 4 "
                  "inputs { key: \"x\" value { data_type: TYPE_FP32 dims: [16] "
                  "input_data_file: \"x16.bin\" } } }\n");
    testing::WriteFile(repo_ / "batched/warmup/x16.bin", FloatBytes(std::vector<float>(16, 0.5f)));
    // The session pool, two sessions, random data run twice.
    WriteSeqModel(
        repo_ / "pooled",
        "max_batch_size: 8\ninstance_group { count: 2 kind: KIND_GPU }\n"
        "model_warmup { name: \"s5\" batch_size: 1 count: 2 "
        "inputs { key: \"x\" value { data_type: TYPE_FP32 dims: [5] random_data: true } } }\n");
    WriteSeqModel(repo_ / "nofile", Sample("dims: [16] input_data_file: \"missing.bin\""));
    WriteSeqModel(repo_ / "badsize", Sample("dims: [16] input_data_file: \"x.bin\""));
    testing::WriteFile(repo_ / "badsize/warmup/x.bin", FloatBytes({1, 2, 3}));
    // A link out of the warmup directory.
    WriteSeqModel(repo_ / "escape", Sample("dims: [16] input_data_file: \"link.bin\""));
    testing::WriteFile(repo_ / "outside.bin", FloatBytes(std::vector<float>(16, 1.0f)));
    fs::create_directories(repo_ / "escape/warmup");
    fs::create_symlink(repo_ / "outside.bin", repo_ / "escape/warmup/link.bin");

    ServerSettings settings = testing::TestServerSettings(repo_.string());
    settings.startup_models = {"batched"};  // the others load in the tests
    auto server = Server::Start(settings);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
  }
  void TearDown() override {
    server_.reset();
    fs::remove_all(repo_);
  }

  bool HasPlan(const std::string& model, std::vector<int64_t> shape) {
    auto served = server_->models().Get(model, "");
    EXPECT_TRUE(served.ok()) << served.status();
    return served.ok() && (*served)->model().HasPlan({shape});
  }

  // x + 1 over gRPC for a [rows, width] request.
  void ExpectServes(const std::string& model, int64_t rows, int64_t width) {
    auto stub = inference::GRPCInferenceService::NewStub(
        grpc::CreateChannel(server_->address(), grpc::InsecureChannelCredentials()));
    std::vector<float> x(static_cast<size_t>(rows * width));
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    inference::ModelInferResponse resp;
    grpc::Status s = stub->ModelInfer(&ctx, RawRequest(model, "x", {rows, width}, x), &resp);
    ASSERT_TRUE(s.ok()) << s.error_message();
    std::vector<float> want = x;
    for (float& v : want) v += 1;
    EXPECT_EQ(BytesToFloats(resp.raw_output_contents(0)), want);
  }

  fs::path repo_;
  std::unique_ptr<Server> server_;
};

TEST_F(WarmupTest, BatcherPlansTheSampleAndItsPaddingTargetsAtTheSampleShape) {
  EXPECT_TRUE(HasPlan("batched", {4, 16}));
  EXPECT_TRUE(HasPlan("batched", {8, 16}));  // the preferred size, at the sample's width
  EXPECT_FALSE(HasPlan("batched", {8, 17}));
  ExpectServes("batched", 3, 16);
}

TEST_F(WarmupTest, PoolRunsTheSampleBeforeServing) {
  ASSERT_TRUE(server_->models().Load("pooled").ok());
  EXPECT_TRUE(HasPlan("pooled", {1, 5}));
  EXPECT_FALSE(HasPlan("pooled", {1, 6}));
  ExpectServes("pooled", 2, 5);
}

TEST_F(WarmupTest, ASampleThatCannotBeMadeFailsTheLoadAndNamesIt) {
  absl::Status missing = server_->models().Load("nofile");
  EXPECT_EQ(missing.code(), absl::StatusCode::kInvalidArgument) << missing;
  EXPECT_THAT(missing.message(),
              HasSubstr("model_warmup 'w', input 'x': cannot read 'missing.bin'"));
  absl::Status size = server_->models().Load("badsize");
  EXPECT_EQ(size.code(), absl::StatusCode::kInvalidArgument) << size;
  EXPECT_THAT(size.message(),
              HasSubstr("'x.bin' has 12 bytes; one batch element of that shape and type takes 64"));
  absl::Status escape = server_->models().Load("escape");
  EXPECT_EQ(escape.code(), absl::StatusCode::kInvalidArgument) << escape;
  EXPECT_THAT(escape.message(), HasSubstr("'link.bin' leaves the warmup directory"));
  // The server goes on serving what loaded.
  ExpectServes("batched", 1, 16);
}

}  // namespace
}  // namespace vkserve
