// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ParseHttpRequestHead on the heads real clients send (Prometheus, curl,
// Python's http.client) and on malformed ones (RFC 9112's request-line and
// field-line grammar).
#include "server/daemon/http_request_head.h"

#include <string>

#include "gtest/gtest.h"

namespace vkserve {
namespace {

TEST(HttpRequestHeadTest, ParsesWhatScrapersSend) {
  // As Prometheus 2.42 sends a scrape.
  auto head = ParseHttpRequestHead(
      "GET /metrics HTTP/1.1\r\nHost: 10.0.0.5:8002\r\nUser-Agent: Prometheus/2.42.0\r\n"
      "Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5\r\n"
      "Accept-Encoding: gzip\r\nX-Prometheus-Scrape-Timeout-Seconds: 10\r\n\r\n");
  ASSERT_TRUE(head.ok()) << head.status();
  EXPECT_EQ(head->method, "GET");
  EXPECT_EQ(head->target, "/metrics");
  EXPECT_EQ(head->path, "/metrics");

  head = ParseHttpRequestHead("GET /metrics?name[]=x HTTP/1.0\r\n\r\n");
  ASSERT_TRUE(head.ok()) << head.status();
  EXPECT_EQ(head->target, "/metrics?name[]=x");
  EXPECT_EQ(head->path, "/metrics");

  head = ParseHttpRequestHead("POST /other HTTP/1.1\r\nContent-Length: 0\r\n\r\n");
  ASSERT_TRUE(head.ok()) << head.status();
  EXPECT_EQ(head->method, "POST");
  EXPECT_EQ(head->path, "/other");
}

TEST(HttpRequestHeadTest, RefusesMalformedHeads) {
  for (const std::string& bad : {
           std::string("GET /metrics HTTP/1.1\r\n"),           // no blank line
           std::string("\r\n\r\n"),                            // no request line
           std::string("GET /metrics\r\n\r\n"),                // HTTP/0.9
           std::string("GET /metrics HTTP/2\r\n\r\n"),         // not 1.x
           std::string("GET  /metrics HTTP/1.1\r\n\r\n"),      // two spaces
           std::string("GET /metrics HTTP/1.1 \r\n\r\n"),      // trailing space
           std::string("G(T /metrics HTTP/1.1\r\n\r\n"),       // not a token
           std::string("G\0T /metrics HTTP/1.1\r\n\r\n", 25),  // NUL in the method
           std::string("GET /a\tb HTTP/1.1\r\n\r\n"),          // control in the target
           std::string("GET /m\x80 HTTP/1.1\r\n\r\n"),         // non-ASCII target
           std::string("GET /metrics HTTP/1.1\r\nno colon\r\n\r\n"),
           std::string("GET /metrics HTTP/1.1\r\n: empty name\r\n\r\n"),
           std::string("GET /metrics HTTP/1.1\r\nA: b\r\n folded\r\n\r\n"),  // obs-fold
           std::string("GET /metrics HTTP/1.1\r\nBad Name: x\r\n\r\n"),
       }) {
    const auto head = ParseHttpRequestHead(bad);
    EXPECT_EQ(head.status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
}

}  // namespace
}  // namespace vkserve
