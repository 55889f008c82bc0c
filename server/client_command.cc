// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// `vkserve client --url HOST:PORT --model NAME [--version V]
//   [--input NAME=FILE.npy]... [--output-dir DIR]`
// Sends the .npy tensors to a running server with ModelInfer (raw contents)
// and prints each output's name, datatype and shape; with --output-dir it
// also writes DIR/<output>.npy.
#include <cstdio>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "grpcpp/grpcpp.h"
#include "proto/grpc_service.grpc.pb.h"
#include "runtime/npy.h"
#include "server/command.h"
#include "server/infer_request.h"
#include "server/model_flags.h"

namespace vkserve {
namespace {

int ClientUsage() {
  std::fprintf(stderr,
               "usage: vkserve client --url HOST:PORT --model NAME [--version V] "
               "[--input NAME=FILE.npy]... [--output-dir DIR]\n");
  return 2;
}

}  // namespace

int RunClientCommand(const std::vector<std::string>& args) {
  std::string url = "127.0.0.1:8001", model, version, output_dir;
  inference::ModelInferRequest request;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (i + 1 >= args.size()) return ClientUsage();
    const std::string& v = args[++i];
    if (a == "--url") {
      url = v;
    } else if (a == "--model") {
      model = v;
    } else if (a == "--version") {
      version = v;
    } else if (a == "--output-dir") {
      output_dir = v;
    } else if (a == "--input") {
      auto kv = SplitAssignment(v);
      if (!kv.ok()) {
        std::fprintf(stderr, "vkserve client: %s\n", std::string(kv.status().message()).c_str());
        return 2;
      }
      auto tensor = ReadNpy(kv->second);
      if (!tensor.ok()) {
        std::fprintf(stderr, "vkserve client: %s\n", std::string(tensor.status().message()).c_str());
        return 1;
      }
      auto* in = request.add_inputs();
      in->set_name(kv->first);
      in->set_datatype(std::string(DataTypeKServeName(tensor->dtype)));
      for (int64_t d : tensor->shape) in->add_shape(d);
      request.add_raw_input_contents()->assign(reinterpret_cast<const char*>(tensor->data.data()),
                                               tensor->data.size());
    } else {
      return ClientUsage();
    }
  }
  if (model.empty()) return ClientUsage();
  request.set_model_name(model);
  request.set_model_version(version);
  request.set_id("vkserve-client");

  grpc::ChannelArguments channel_args;
  channel_args.SetMaxReceiveMessageSize(-1);
  channel_args.SetMaxSendMessageSize(-1);
  auto stub = inference::GRPCInferenceService::NewStub(
      grpc::CreateCustomChannel(url, grpc::InsecureChannelCredentials(), channel_args));
  grpc::ClientContext context;
  inference::ModelInferResponse response;
  grpc::Status status = stub->ModelInfer(&context, request, &response);
  if (!status.ok()) {
    std::fprintf(stderr, "vkserve client: %s\n", status.error_message().c_str());
    return 1;
  }
  for (int i = 0; i < response.outputs_size(); ++i) {
    const auto& out = response.outputs(i);
    std::vector<int64_t> shape(out.shape().begin(), out.shape().end());
    std::printf("%s: %s[%s]\n", out.name().c_str(), out.datatype().c_str(), absl::StrJoin(shape, ",").c_str());
    if (auto it = out.parameters().find(kGpuHandleParam); it != out.parameters().end()) {
      std::printf("  GPU handle %s\n", it->second.string_param().c_str());
      continue;
    }
    if (output_dir.empty() || i >= response.raw_output_contents_size()) continue;
    HostTensor t;
    t.dtype = ParseKServeDataType(out.datatype());
    t.shape = shape;
    const std::string& raw = response.raw_output_contents(i);
    t.data.assign(raw.begin(), raw.end());
    std::filesystem::create_directories(output_dir);
    std::string path = (std::filesystem::path(output_dir) / (out.name() + ".npy")).string();
    absl::Status s = WriteNpy(t, path);
    if (!s.ok()) {
      std::fprintf(stderr, "vkserve client: %s\n", std::string(s.message()).c_str());
      return 1;
    }
    std::printf("  wrote %s\n", path.c_str());
  }
  return 0;
}

}  // namespace vkserve
