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
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/quote.h"
#include "gpu/status_macros.h"
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

int ClientError(const absl::Status& status, int code) {
  std::fprintf(stderr, "vkserve client: %s\n", std::string(status.message()).c_str());
  return code;
}

struct ClientOptions {
  std::string url = "127.0.0.1:8001";
  std::string model;
  std::string version;
  std::string output_dir;
  std::vector<std::pair<std::string, std::string>> inputs;  // name, .npy path
};

// The flags; INVALID_ARGUMENT for anything else (the caller prints usage).
absl::StatusOr<ClientOptions> ParseClientArgs(const std::vector<std::string>& args) {
  ClientOptions o;
  for (size_t i = 0; i < args.size(); i += 2) {
    if (i + 1 >= args.size()) return absl::InvalidArgumentError("a flag without a value");
    const std::string& flag = args[i];
    const std::string& value = args[i + 1];
    if (flag == "--url") {
      o.url = value;
    } else if (flag == "--model") {
      o.model = value;
    } else if (flag == "--version") {
      o.version = value;
    } else if (flag == "--output-dir") {
      o.output_dir = value;
    } else if (flag == "--input") {
      ASSIGN_OR_RETURN(auto name_and_path, SplitAssignment(value));
      o.inputs.push_back(std::move(name_and_path));
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag ", Quoted(flag)));
    }
  }
  if (o.model.empty()) return absl::InvalidArgumentError("--model is required");
  return o;
}

// The request: each input's .npy file as raw contents.
absl::StatusOr<inference::ModelInferRequest> BuildRequest(const ClientOptions& o) {
  inference::ModelInferRequest request;
  request.set_model_name(o.model);
  request.set_model_version(o.version);
  request.set_id("vkserve-client");
  for (const auto& [name, path] : o.inputs) {
    ASSIGN_OR_RETURN(HostTensor tensor, ReadNpy(path));
    auto* in = request.add_inputs();
    in->set_name(name);
    in->set_datatype(std::string(DataTypeKServeName(tensor.dtype)));
    for (int64_t d : tensor.shape) in->add_shape(d);
    request.add_raw_input_contents()->assign(reinterpret_cast<const char*>(tensor.data.data()),
                                             tensor.data.size());
  }
  return request;
}

// Writes output `i` of `response` to DIR/<name>.npy and returns that path.
// The name comes from the server: one that is not a plain file name (a
// path, ".", "..") is refused rather than written outside DIR.
absl::StatusOr<std::string> SaveOutput(const inference::ModelInferResponse& response, int i,
                                       const std::string& dir) {
  const auto& out = response.outputs(i);
  const std::string& name = out.name();
  if (name.empty() || name == "." || name == ".." ||
      name.find_first_of("/\\") != std::string::npos || name.find('\0') != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("output name ", Quoted(name), " is not a file name; not written"));
  }
  HostTensor t;
  t.dtype = ParseKServeDataType(out.datatype());
  t.shape.assign(out.shape().begin(), out.shape().end());
  const std::string& raw = response.raw_output_contents(i);
  t.data.assign(raw.begin(), raw.end());
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    return absl::InternalError(absl::StrCat("cannot create ", Quoted(dir), ": ", error.message()));
  }
  std::string path = (std::filesystem::path(dir) / (name + ".npy")).string();
  RETURN_IF_ERROR(WriteNpy(t, path));
  return path;
}

}  // namespace

int RunClientCommand(const std::vector<std::string>& args) {
  absl::StatusOr<ClientOptions> options = ParseClientArgs(args);
  if (!options.ok()) {
    ClientError(options.status(), 2);
    return ClientUsage();
  }
  absl::StatusOr<inference::ModelInferRequest> request = BuildRequest(*options);
  if (!request.ok()) return ClientError(request.status(), 1);

  grpc::ChannelArguments channel_args;
  channel_args.SetMaxReceiveMessageSize(-1);
  channel_args.SetMaxSendMessageSize(-1);
  auto stub = inference::GRPCInferenceService::NewStub(
      grpc::CreateCustomChannel(options->url, grpc::InsecureChannelCredentials(), channel_args));
  grpc::ClientContext context;
  inference::ModelInferResponse response;
  grpc::Status status = stub->ModelInfer(&context, *request, &response);
  if (!status.ok()) {
    std::fprintf(stderr, "vkserve client: %s\n", status.error_message().c_str());
    return 1;
  }
  for (int i = 0; i < response.outputs_size(); ++i) {
    const auto& out = response.outputs(i);
    std::printf("%s: %s[%s]\n", Escaped(out.name()).c_str(), Escaped(out.datatype()).c_str(),
                absl::StrJoin(out.shape(), ",").c_str());
    if (auto it = out.parameters().find(kGpuHandleParam); it != out.parameters().end()) {
      std::printf("  GPU handle %s\n", Escaped(it->second.string_param()).c_str());
      continue;
    }
    if (options->output_dir.empty() || i >= response.raw_output_contents_size()) continue;
    absl::StatusOr<std::string> path = SaveOutput(response, i, options->output_dir);
    if (!path.ok()) return ClientError(path.status(), 1);
    std::printf("  wrote %s\n", path->c_str());
  }
  return 0;
}

}  // namespace vkserve
