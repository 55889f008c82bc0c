// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// `vkserve client [--url HOST:PORT] --model NAME [--version V]
//   [--input NAME=FILE.npy]... [--output-dir DIR]`
// Sends the .npy tensors to a running server (default 127.0.0.1:8001, the
// default config's address) with ModelInfer (raw contents) and prints each
// output's name, datatype and shape; with --output-dir it also writes each
// output to DIR (file names: output_files.h).
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/quote.h"
#include "base/status_macros.h"
#include "cli/command.h"
#include "cli/output_files.h"
#include "grpcpp/grpcpp.h"
#include "proto/grpc_service.grpc.pb.h"
#include "runtime/loaders/npy.h"
#include "server/grpc/infer_request.h"

namespace vkserve {
namespace {

int ClientError(const absl::Status& status, int code) {
  std::fprintf(stderr, "vkserve client: %s\n", std::string(status.message()).c_str());
  return code;
}

struct ClientOptions {
  std::string url = "127.0.0.1:8001";  // the default config's address
  std::string model;
  std::string version;
  std::string output_dir;
  std::vector<std::pair<std::string, std::string>> inputs;  // name, .npy path
};

// The datatype of each input of the model, from ModelMetadata.
absl::StatusOr<std::map<std::string, std::string>> InputDatatypes(
    inference::GRPCInferenceService::Stub& stub, const ClientOptions& o) {
  inference::ModelMetadataRequest request;
  request.set_name(o.model);
  request.set_version(o.version);
  inference::ModelMetadataResponse response;
  grpc::ClientContext context;
  grpc::Status status = stub.ModelMetadata(&context, request, &response);
  if (!status.ok()) {
    return absl::UnavailableError(
        absl::StrCat(o.url, ": model metadata: ", status.error_message()));
  }
  std::map<std::string, std::string> types;
  for (const auto& in : response.inputs()) types[in.name()] = in.datatype();
  return types;
}

// The request: each input's .npy file as raw contents. NumPy has no bfloat16:
// a '<u2' file holds its raw words when the model's input is BF16 (asked of
// the server only when some file is '<u2'); '<V2' files are BF16.
absl::StatusOr<inference::ModelInferRequest> BuildRequest(
    const ClientOptions& o, inference::GRPCInferenceService::Stub& stub) {
  inference::ModelInferRequest request;
  request.set_model_name(o.model);
  request.set_model_version(o.version);
  request.set_id("vkserve-client");
  std::optional<std::map<std::string, std::string>> model_types;
  for (const auto& [name, path] : o.inputs) {
    ASSIGN_OR_RETURN(HostTensor tensor, ReadNpy(path));
    if (tensor.dtype == DataType::kUint16) {
      if (!model_types) {
        ASSIGN_OR_RETURN(model_types, InputDatatypes(stub, o));
      }
      if (auto it = model_types->find(name); it != model_types->end() && it->second == "BF16") {
        tensor.dtype = DataType::kBFloat16;
      }
    }
    auto* in = request.add_inputs();
    in->set_name(name);
    in->set_datatype(std::string(DataTypeKServeName(tensor.dtype)));
    for (int64_t d : tensor.shape) in->add_shape(d);
    request.add_raw_input_contents()->assign(reinterpret_cast<const char*>(tensor.data.data()),
                                             tensor.data.size());
  }
  return request;
}

// Writes output `i` of `response` to `dir`/`file` and returns that path.
absl::StatusOr<std::string> SaveOutput(const inference::ModelInferResponse& response, int i,
                                       const std::string& dir, const std::string& file) {
  const auto& out = response.outputs(i);
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
  std::string path = (std::filesystem::path(dir) / file).string();
  RETURN_IF_ERROR(WriteNpy(t, path));
  return path;
}

int Query(const ClientOptions& options) {
  grpc::ChannelArguments channel_args;
  channel_args.SetMaxReceiveMessageSize(-1);
  channel_args.SetMaxSendMessageSize(-1);
  auto stub = inference::GRPCInferenceService::NewStub(
      grpc::CreateCustomChannel(options.url, grpc::InsecureChannelCredentials(), channel_args));
  absl::StatusOr<inference::ModelInferRequest> request = BuildRequest(options, *stub);
  if (!request.ok()) return ClientError(request.status(), kExitFailure);
  grpc::ClientContext context;
  inference::ModelInferResponse response;
  grpc::Status status = stub->ModelInfer(&context, *request, &response);
  if (!status.ok()) {
    std::fprintf(stderr, "vkserve client: %s: %s\n", options.url.c_str(),
                 status.error_message().c_str());
    return kExitFailure;
  }
  // Every file name first (output_files.h): a refused one writes nothing.
  std::vector<std::string> files;
  if (!options.output_dir.empty()) {
    std::vector<std::string> names;
    for (const auto& out : response.outputs()) names.push_back(out.name());
    absl::StatusOr<std::vector<std::string>> checked = OutputFileNames(names);
    if (!checked.ok()) return ClientError(checked.status(), kExitFailure);
    files = *std::move(checked);
  }
  for (int i = 0; i < response.outputs_size(); ++i) {
    const auto& out = response.outputs(i);
    std::printf("%s: %s[%s]\n", Escaped(out.name()).c_str(), Escaped(out.datatype()).c_str(),
                absl::StrJoin(out.shape(), ",").c_str());
    if (auto it = out.parameters().find(kGpuHandleParam); it != out.parameters().end()) {
      std::printf("  GPU handle %s\n", Escaped(it->second.string_param()).c_str());
      continue;
    }
    if (options.output_dir.empty() || i >= response.raw_output_contents_size()) continue;
    absl::StatusOr<std::string> path = SaveOutput(response, i, options.output_dir, files[i]);
    if (!path.ok()) return ClientError(path.status(), kExitFailure);
    std::printf("  wrote %s\n", path->c_str());
  }
  return 0;
}

}  // namespace

CommandRunner AddClientCommand(CLI::App& command) {
  auto options = std::make_shared<ClientOptions>();
  command.add_option("--url", options->url, "the server's gRPC address")
      ->type_name("HOST:PORT")
      ->capture_default_str();
  command.add_option("--model", options->model, "the model to run")->type_name("NAME")->required();
  command
      .add_option("--version", options->version,
                  "the model version (default: the server's "
                  "choice, the latest)")
      ->type_name("V");
  command.add_option("--input", "send this .npy file as the named input; repeatable")
      ->type_name("NAME=FILE.npy")
      ->check(NameEqualsValue())
      ->each([inputs = &options->inputs](const std::string& text) {
        const size_t eq = text.find('=');
        inputs->emplace_back(text.substr(0, eq), text.substr(eq + 1));
      })
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false);
  command
      .add_option("--output-dir", options->output_dir,
                  "also write each output to DIR/<name>.npy (names as docs/cli.md says)")
      ->type_name("DIR");
  command.footer(
      "example: vkserve client --model resnet50 --input data=image.npy --output-dir out");
  return [options] { return Query(*options); };
}

}  // namespace vkserve
