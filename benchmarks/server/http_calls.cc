// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "benchmarks/server/http_calls.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "boost/asio/connect.hpp"
#include "boost/asio/ip/tcp.hpp"
#include "boost/beast/core.hpp"
#include "boost/beast/http.hpp"
#include "nlohmann/json.hpp"

namespace vkserve_bench {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

HttpInferBody EncodeHttpInfer(const inference::ModelInferRequest& request) {
  nlohmann::json header;
  header["inputs"] = nlohmann::json::array();
  for (int i = 0; i < request.inputs_size(); ++i) {
    const auto& in = request.inputs(i);
    nlohmann::json tensor = {
        {"name", in.name()}, {"datatype", in.datatype()}, {"shape", nlohmann::json::array()}};
    for (int64_t d : in.shape()) tensor["shape"].push_back(d);
    tensor["parameters"] = {{"binary_data_size", request.raw_input_contents(i).size()}};
    header["inputs"].push_back(std::move(tensor));
  }
  header["parameters"] = {{"binary_data_output", true}};
  HttpInferBody out;
  out.target = absl::StrCat("/v2/models/", request.model_name(), "/infer");
  out.body = header.dump();
  out.json_length = out.body.size();
  for (const std::string& raw : request.raw_input_contents()) out.body += raw;
  return out;
}

struct HttpInferClient::Connection {
  asio::io_context io;
  beast::tcp_stream stream{io};
  beast::flat_buffer buffer;
};

HttpInferClient::HttpInferClient(std::string host_port) {
  const size_t colon = host_port.rfind(':');
  host_ = host_port.substr(0, colon);
  port_ = colon == std::string::npos ? "8000" : host_port.substr(colon + 1);
}

HttpInferClient::~HttpInferClient() = default;

bool HttpInferClient::Infer(const HttpInferBody& infer, std::string* error) {
  beast::error_code ec;
  if (connection_ == nullptr) {
    auto c = std::make_unique<Connection>();
    asio::ip::tcp::resolver resolver(c->io);
    auto endpoints = resolver.resolve(host_, port_, ec);
    if (!ec) c->stream.connect(endpoints, ec);
    if (ec) {
      *error = absl::StrCat("connect ", host_, ":", port_, ": ", ec.message());
      return false;
    }
    c->stream.socket().set_option(asio::ip::tcp::no_delay(true));
    // Beast reads no more than the buffer's free capacity per call (512
    // bytes at first): room for a whole classifier's answer in one read.
    c->buffer.reserve(size_t{64} << 10);
    connection_ = std::move(c);
  }
  // The body is sent from the caller's bytes, not copied per call.
  http::request<http::span_body<const char>> req{http::verb::post, infer.target, 11};
  req.set(http::field::host, host_);
  req.set(http::field::content_type, "application/octet-stream");
  req.set("Inference-Header-Content-Length", std::to_string(infer.json_length));
  req.keep_alive(true);
  req.body() = {infer.body.data(), infer.body.size()};
  req.prepare_payload();
  http::response<http::string_body> res;
  http::write(connection_->stream, req, ec);
  if (!ec) http::read(connection_->stream, connection_->buffer, res, ec);
  if (ec) {
    *error = absl::StrCat("HTTP infer: ", ec.message());
    connection_.reset();  // connect again next time
    return false;
  }
  if (!res.keep_alive()) connection_.reset();
  if (res.result() != http::status::ok) {
    *error = absl::StrCat("HTTP ", res.result_int(), ": ", res.body().substr(0, 300));
    return false;
  }
  return true;
}

}  // namespace vkserve_bench
