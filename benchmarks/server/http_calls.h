// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// HttpInferClient: one keep-alive HTTP/1.1 connection sending KServe v2 REST
// infer requests with Triton's binary-data extension (a JSON header of
// Inference-Header-Content-Length bytes, then the raw input tensors; outputs
// asked back as binary). vkserve_load's clients use one each, so that HTTP
// and gRPC are timed by the same closed loop. Thread-compatible.
#ifndef VKSERVE_BENCHMARKS_SERVER_HTTP_CALLS_H_
#define VKSERVE_BENCHMARKS_SERVER_HTTP_CALLS_H_

#include <memory>
#include <string>

#include "proto/grpc_service.pb.h"

namespace vkserve_bench {

// The body of POST /v2/models/{model}/infer for `request` (raw inputs), and
// its JSON header's length.
struct HttpInferBody {
  std::string target;  // /v2/models/<name>/infer
  std::string body;
  size_t json_length = 0;
};
HttpInferBody EncodeHttpInfer(const inference::ModelInferRequest& request);

class HttpInferClient {
 public:
  // `host_port`: "HOST:PORT". Connects lazily, and again after the server
  // closed the connection.
  explicit HttpInferClient(std::string host_port);
  ~HttpInferClient();
  HttpInferClient(const HttpInferClient&) = delete;
  HttpInferClient& operator=(const HttpInferClient&) = delete;

  // Sends `infer` and reads the whole response; false (with `error` set)
  // unless the server answered 200.
  bool Infer(const HttpInferBody& infer, std::string* error);

 private:
  struct Connection;
  std::string host_, port_;
  std::unique_ptr<Connection> connection_;
};

}  // namespace vkserve_bench

#endif  // VKSERVE_BENCHMARKS_SERVER_HTTP_CALLS_H_
