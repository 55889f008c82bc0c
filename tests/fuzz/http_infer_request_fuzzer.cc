// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// libFuzzer target: arbitrary bytes as what a KServe v2 HTTP client sends,
// taken the way the HTTP front end takes them (server/http/): Boost.Beast's
// request parser under HttpServer's default head and a small body limit,
// then, for a request that parses, its Inference-Header-Content-Length and
// body through DecodeInferRequest (the JSON tensor decoder and Triton's
// binary-data extension), and a decoded request back through ProtoToJson.
// Every input parses or is refused: a Beast error, or INVALID_ARGUMENT from
// the decoder; what decodes satisfies the documented shape.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/string_view.h"
#include "boost/asio/buffer.hpp"
#include "boost/beast/http.hpp"
#include "nlohmann/json.hpp"
#include "server/http/http_server.h"
#include "server/http/kserve_json.h"

namespace http = boost::beast::http;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const vkserve::HttpServerOptions defaults;
  http::request_parser<http::string_body> parser;
  parser.eager(true);
  parser.header_limit(defaults.max_header_bytes);
  parser.body_limit(uint64_t{1} << 20);
  boost::beast::error_code ec;
  size_t used = 0;
  while (used < size && !parser.is_done()) {
    const size_t n = parser.put(boost::asio::buffer(data + used, size - used), ec);
    if (ec == http::error::need_more) break;
    if (ec) return 0;
    if (n == 0) break;
    used += n;
  }
  if (!parser.is_done()) {
    parser.put_eof(ec);
    if (ec || !parser.is_done()) return 0;
  }
  const auto& message = parser.get();
  if (message.body().size() > (uint64_t{1} << 20)) std::abort();
  int64_t json_length = -1;
  if (auto it = message.find("Inference-Header-Content-Length"); it != message.end()) {
    if (!absl::SimpleAtoi(absl::string_view(it->value().data(), it->value().size()),
                          &json_length) ||
        json_length < 0) {
      return 0;
    }
  }
  absl::StatusOr<vkserve::HttpInferRequest> decoded =
      vkserve::DecodeInferRequest(message.body(), json_length, "m", "");
  if (!decoded.ok()) {
    if (decoded.status().code() != absl::StatusCode::kInvalidArgument) std::abort();
    return 0;
  }
  const inference::ModelInferRequest& request = decoded->request;
  if (request.model_name() != "m") std::abort();
  // Binary data comes from the body: never more bytes than it holds.
  size_t raw = 0;
  for (const std::string& bytes : request.raw_input_contents()) raw += bytes.size();
  if (raw > message.body().size()) std::abort();
  const nlohmann::json back = vkserve::ProtoToJson(request);
  if (!back.is_object() || back.value("model_name", std::string()) != "m") std::abort();
  return 0;
}
