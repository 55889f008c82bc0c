// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The protocol's wire identity: package, service and method names, and the
// field numbers clients depend on (Triton's). A renumbered field breaks
// tritonclient and perf_analyzer silently; these tests make it loud. Also
// checks that the generated gRPC code links (a stub and a service).
#include <grpcpp/grpcpp.h>

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "proto/grpc_service.grpc.pb.h"
#include "proto/health.grpc.pb.h"
#include "proto/model_config.pb.h"
#include "proto/server_config.pb.h"

namespace vkserve {
namespace {

namespace pb = google::protobuf;
using ::testing::ElementsAre;

int FieldNumber(const pb::Descriptor* message, const std::string& field) {
  const pb::FieldDescriptor* f = message->FindFieldByName(field);
  return f == nullptr ? -1 : f->number();
}

std::vector<std::string> MethodNames(const pb::ServiceDescriptor* service) {
  std::vector<std::string> names;
  for (int i = 0; i < service->method_count(); ++i) names.push_back(service->method(i)->name());
  return names;
}

TEST(ProtoTest, InferenceServiceIdentity) {
  EXPECT_STREQ(inference::GRPCInferenceService::service_full_name(),
               "inference.GRPCInferenceService");
  const pb::ServiceDescriptor* service =
      pb::DescriptorPool::generated_pool()->FindServiceByName("inference.GRPCInferenceService");
  ASSERT_NE(service, nullptr);
  EXPECT_THAT(
      MethodNames(service),
      ElementsAre("ServerLive", "ServerReady", "ModelReady", "ServerMetadata", "ModelMetadata",
                  "ModelInfer", "ModelStreamInfer", "ModelConfig", "ModelStatistics",
                  "RepositoryIndex", "RepositoryModelLoad", "RepositoryModelUnload",
                  "SystemSharedMemoryStatus", "SystemSharedMemoryRegister",
                  "SystemSharedMemoryUnregister", "TraceSetting", "LogSettings"));
  const pb::MethodDescriptor* stream = service->FindMethodByName("ModelStreamInfer");
  EXPECT_TRUE(stream->client_streaming());
  EXPECT_TRUE(stream->server_streaming());
  EXPECT_EQ(stream->input_type()->full_name(), "inference.ModelInferRequest");
  EXPECT_EQ(stream->output_type()->full_name(), "inference.ModelStreamInferResponse");
}

TEST(ProtoTest, HealthServiceIdentity) {
  EXPECT_STREQ(grpc::health::v1::Health::service_full_name(), "grpc.health.v1.Health");
  EXPECT_EQ(grpc::health::v1::HealthCheckResponse::SERVING, 1);
  EXPECT_EQ(grpc::health::v1::HealthCheckResponse::NOT_SERVING, 2);
}

TEST(ProtoTest, InferFieldNumbers) {
  const pb::Descriptor* request = inference::ModelInferRequest::descriptor();
  EXPECT_EQ(FieldNumber(request, "model_name"), 1);
  EXPECT_EQ(FieldNumber(request, "model_version"), 2);
  EXPECT_EQ(FieldNumber(request, "id"), 3);
  EXPECT_EQ(FieldNumber(request, "parameters"), 4);
  EXPECT_EQ(FieldNumber(request, "inputs"), 5);
  EXPECT_EQ(FieldNumber(request, "outputs"), 6);
  EXPECT_EQ(FieldNumber(request, "raw_input_contents"), 7);
  const pb::Descriptor* input = inference::ModelInferRequest::InferInputTensor::descriptor();
  EXPECT_EQ(FieldNumber(input, "contents"), 5);
  const pb::Descriptor* response = inference::ModelInferResponse::descriptor();
  EXPECT_EQ(FieldNumber(response, "outputs"), 5);
  EXPECT_EQ(FieldNumber(response, "raw_output_contents"), 6);
  const pb::Descriptor* parameter = inference::InferParameter::descriptor();
  EXPECT_EQ(FieldNumber(parameter, "uint64_param"), 5);
  const pb::Descriptor* contents = inference::InferTensorContents::descriptor();
  EXPECT_EQ(FieldNumber(contents, "fp32_contents"), 6);
  EXPECT_EQ(FieldNumber(contents, "bytes_contents"), 8);
  EXPECT_EQ(FieldNumber(inference::ModelStreamInferResponse::descriptor(), "infer_response"), 2);
}

TEST(ProtoTest, StatisticsFieldNumbers) {
  const pb::Descriptor* stats = inference::InferStatistics::descriptor();
  EXPECT_EQ(FieldNumber(stats, "queue"), 3);
  EXPECT_EQ(FieldNumber(stats, "compute_input"), 4);
  EXPECT_EQ(FieldNumber(stats, "compute_infer"), 5);
  EXPECT_EQ(FieldNumber(stats, "compute_output"), 6);
  const pb::Descriptor* model = inference::ModelStatistics::descriptor();
  EXPECT_EQ(FieldNumber(model, "inference_count"), 4);
  EXPECT_EQ(FieldNumber(model, "execution_count"), 5);
  EXPECT_EQ(FieldNumber(model, "inference_stats"), 6);
  EXPECT_EQ(FieldNumber(inference::StatisticDuration::descriptor(), "ns"), 2);
}

TEST(ProtoTest, ModelConfigFieldNumbers) {
  const pb::Descriptor* config = inference::ModelConfig::descriptor();
  EXPECT_EQ(FieldNumber(config, "max_batch_size"), 4);
  EXPECT_EQ(FieldNumber(config, "input"), 5);
  EXPECT_EQ(FieldNumber(config, "output"), 6);
  EXPECT_EQ(FieldNumber(config, "instance_group"), 7);
  EXPECT_EQ(FieldNumber(config, "dynamic_batching"), 11);
  EXPECT_EQ(FieldNumber(config, "parameters"), 14);
  EXPECT_EQ(FieldNumber(config, "backend"), 17);
  EXPECT_EQ(FieldNumber(config, "vkserve"), 1000);
  EXPECT_EQ(FieldNumber(inference::ModelInput::descriptor(), "dims"), 4);
  EXPECT_EQ(FieldNumber(inference::ModelOutput::descriptor(), "dims"), 3);
  EXPECT_EQ(FieldNumber(inference::ModelInstanceGroup::descriptor(), "kind"), 4);
  EXPECT_EQ(FieldNumber(inference::ModelQueuePolicy::descriptor(), "max_queue_size"), 4);
  EXPECT_EQ(FieldNumber(inference::ModelDynamicBatching::descriptor(), "default_queue_policy"), 6);
  EXPECT_EQ(inference::TYPE_FP32, 11);
  EXPECT_EQ(inference::TYPE_BF16, 14);
  EXPECT_EQ(inference::ModelInstanceGroup::KIND_GPU, 1);
}

TEST(ProtoTest, SharedMemoryFieldNumbers) {
  const pb::Descriptor* reg = inference::SystemSharedMemoryRegisterRequest::descriptor();
  EXPECT_EQ(FieldNumber(reg, "name"), 1);
  EXPECT_EQ(FieldNumber(reg, "key"), 2);
  EXPECT_EQ(FieldNumber(reg, "offset"), 3);
  EXPECT_EQ(FieldNumber(reg, "byte_size"), 4);
}

// Triton's trace and logging extensions (docs/protocol/extension_trace.md,
// extension_logging.md).
TEST(ProtoTest, TraceAndLogSettingsFieldNumbers) {
  const pb::Descriptor* trace = inference::TraceSettingRequest::descriptor();
  EXPECT_EQ(FieldNumber(trace, "settings"), 1);
  EXPECT_EQ(FieldNumber(trace, "model_name"), 2);
  EXPECT_EQ(FieldNumber(inference::TraceSettingRequest::SettingValue::descriptor(), "value"), 1);
  EXPECT_EQ(FieldNumber(inference::TraceSettingResponse::descriptor(), "settings"), 1);
  EXPECT_EQ(FieldNumber(inference::TraceSettingResponse::SettingValue::descriptor(), "value"), 1);
  for (const pb::Descriptor* value : {inference::LogSettingsRequest::SettingValue::descriptor(),
                                      inference::LogSettingsResponse::SettingValue::descriptor()}) {
    EXPECT_EQ(FieldNumber(value, "bool_param"), 1);
    EXPECT_EQ(FieldNumber(value, "uint32_param"), 2);
    EXPECT_EQ(FieldNumber(value, "string_param"), 3);
  }
  EXPECT_EQ(FieldNumber(inference::LogSettingsRequest::descriptor(), "settings"), 1);
  EXPECT_EQ(FieldNumber(inference::LogSettingsResponse::descriptor(), "settings"), 1);
}

// The vkserve extension is invisible to a client that only knows Triton's
// ModelConfig: it decodes the rest and keeps field 1000 as an unknown field.
TEST(ProtoTest, ExtensionIsSkippedByTritonDecoders) {
  inference::ModelConfig config;
  ASSERT_TRUE(pb::TextFormat::ParseFromString(
      "name: \"m\" max_batch_size: 4 vkserve { device: \"0\" }", &config));
  std::string wire = config.SerializeAsString();
  inference::ModelConfigResponse response;
  *response.mutable_config() = config;
  inference::ModelConfigResponse decoded;
  ASSERT_TRUE(decoded.ParseFromString(response.SerializeAsString()));
  EXPECT_EQ(decoded.config().max_batch_size(), 4);
  // A decoder without field 1000 (an empty message standing in for it) accepts the bytes.
  inference::ServerLiveRequest no_fields;
  EXPECT_TRUE(no_fields.ParseFromString(wire));
}

TEST(ProtoTest, GeneratedGrpcCodeLinks) {
  auto channel = grpc::CreateChannel("127.0.0.1:1", grpc::InsecureChannelCredentials());
  auto stub = inference::GRPCInferenceService::NewStub(channel);
  EXPECT_NE(stub, nullptr);
  auto health = grpc::health::v1::Health::NewStub(channel);
  EXPECT_NE(health, nullptr);
  inference::GRPCInferenceService::AsyncService async_service;
  grpc::health::v1::Health::Service health_service;
  SUCCEED();
}

}  // namespace
}  // namespace vkserve
