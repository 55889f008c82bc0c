// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The JSON side of KServe v2 over HTTP: an infer request body (JSON tensors
// and Triton's binary-data extension) into the inference::ModelInferRequest
// the gRPC front end runs, the ModelInferResponse back into JSON (and
// binary data), and protobuf messages into JSON as Triton's HTTP API writes
// them (64-bit integers as numbers, field names as in the .proto). The
// request body is untrusted: every problem is an INVALID_ARGUMENT naming
// it; nothing is allocated beyond what the body's size bounds (tensor data
// sizes are checked against the bytes present before copying).
//
// JSON is parsed by nlohmann-json (Debian's nlohmann-json3-dev).
//
// Stateless; thread-safe.
#ifndef VKSERVE_SERVER_HTTP_KSERVE_JSON_H_
#define VKSERVE_SERVER_HTTP_KSERVE_JSON_H_

#include <cstdint>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"
#include "nlohmann/json_fwd.hpp"
#include "proto/grpc_service.pb.h"

namespace vkserve {

// The largest JSON part of a request this front end parses (a parsed JSON
// document takes several times its text in memory); larger tensors travel
// as binary data.
inline constexpr size_t kMaxInferJsonBytes = size_t{16} << 20;
// The deepest nesting of arrays and objects accepted.
inline constexpr int kMaxJsonDepth = 32;

// A decoded HTTP infer request, and how its outputs are to be returned.
struct HttpInferRequest {
  inference::ModelInferRequest request;
  bool binary_output_default = false;    // the request's binary_data_output
  std::set<std::string> binary_outputs;  // outputs asking binary_data: true
  std::set<std::string> json_outputs;    // outputs asking binary_data: false
};

// Decodes `body` of POST /v2/models/{model}[/versions/{version}]/infer.
// `json_length`: the Inference-Header-Content-Length header's value (the
// JSON part's size; the rest is binary data), or -1 when absent (all JSON).
absl::StatusOr<HttpInferRequest> DecodeInferRequest(absl::string_view body, int64_t json_length,
                                                    const std::string& model,
                                                    const std::string& version);

// The response body: JSON, then the binary outputs in order. `json_length`
// is the JSON part's size (the Inference-Header-Content-Length header when
// `binary` is true).
struct EncodedInferResponse {
  std::string body;
  size_t json_length = 0;
  bool binary = false;
};
absl::StatusOr<EncodedInferResponse> EncodeInferResponse(
    const inference::ModelInferResponse& response, const HttpInferRequest& request);

// `message` as Triton's HTTP API writes it: every scalar and repeated field
// (defaults included), set sub-messages, maps as objects, enums by name,
// 64-bit integers as numbers.
nlohmann::json ProtoToJson(const google::protobuf::Message& message);

// Parses a small JSON request body (repository, shared memory): an object,
// or {} when empty. INVALID_ARGUMENT naming the problem.
absl::StatusOr<nlohmann::json> ParseJsonObject(absl::string_view body);

}  // namespace vkserve

#endif  // VKSERVE_SERVER_HTTP_KSERVE_JSON_H_
