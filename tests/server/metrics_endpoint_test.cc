// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// MetricsEndpoint (server/http/metrics_endpoint.h) on loopback without a
// GPU, through raw sockets: the scrape is the exposer_* families and then
// Metrics::Render(), HEAD gives its headers only, other paths and methods
// get 404 and 405, a malformed request gets 400 and the endpoint serves the
// next client, a busy port is a Status naming it, a peer outside
// allowed_networks is closed without an answer, and a byte-at-a-time client
// is cut off after the request timeout while scrapes go on. HTTPS and
// mutual TLS: test_metrics_tls.py.
#include "server/http/metrics_endpoint.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"

namespace vkserve {
namespace {

using Clock = std::chrono::steady_clock;

// A connected loopback socket (127.0.0.1, or ::1 with `v6`), or -1.
int Connect(int port, bool v6 = false) {
  const int fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  sockaddr_in6 addr6{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr6.sin6_family = AF_INET6;
  addr6.sin6_port = htons(static_cast<uint16_t>(port));
  addr6.sin6_addr = in6addr_loopback;
  const int connected =
      v6 ? connect(fd, reinterpret_cast<sockaddr*>(&addr6), sizeof(addr6))
         : connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  if (connected != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

bool SendAll(int fd, const std::string& bytes) {
  size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

// Everything the peer sends until it closes (or 10 s pass).
std::string ReadToClose(int fd) {
  std::string out;
  char buf[4096];
  const auto end = Clock::now() + std::chrono::seconds(10);
  while (Clock::now() < end) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    const ssize_t n = recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

// Sends `request` on a new connection; the whole answer ("" when refused).
std::string Exchange(int port, const std::string& request, bool v6 = false) {
  const int fd = Connect(port, v6);
  if (fd < 0) return "";
  std::string answer = SendAll(fd, request) ? ReadToClose(fd) : "";
  close(fd);
  return answer;
}

std::string Get(int port, const std::string& path, bool v6 = false) {
  return Exchange(port, absl::StrCat("GET ", path, " HTTP/1.1\r\nHost: localhost\r\n\r\n"), v6);
}

std::string StatusLine(const std::string& answer) { return answer.substr(0, answer.find("\r\n")); }
std::string Body(const std::string& answer) {
  const size_t end = answer.find("\r\n\r\n");
  return end == std::string::npos ? "" : answer.substr(end + 4);
}

// The text format's lines with each sample's value dropped: what two
// renderings share when gauges (the host heap) move between them.
std::string Shape(const std::string& text) {
  std::string out;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (!absl::StartsWith(line, "#")) line = line.substr(0, line.rfind(' '));
    absl::StrAppend(&out, line, "\n");
  }
  return out;
}

class MetricsEndpointTest : public ::testing::Test {
 protected:
  MetricsEndpointTest() {
    settings_.metrics_address = "127.0.0.1";
    settings_.metrics_port = 0;
    settings_.metrics_request_timeout_ms = 500;
  }

  void Start() {
    auto endpoint = MetricsEndpoint::Start(settings_, &metrics_);
    ASSERT_TRUE(endpoint.ok()) << endpoint.status();
    endpoint_ = *std::move(endpoint);
    ASSERT_GT(endpoint_->port(), 0);
  }

  ServerSettings settings_;
  Metrics metrics_{"1", "gpu", nullptr};
  std::unique_ptr<MetricsEndpoint> endpoint_;
};

TEST_F(MetricsEndpointTest, ScrapeIsTheExposerFamiliesThenTheRegistry) {
  auto model = metrics_.ForModel("net", 1);
  model->RecordFailure(RequestOutcome::kCancelled);
  Start();
  const std::string answer = Get(endpoint_->port(), "/metrics?x=1");
  EXPECT_EQ(StatusLine(answer), "HTTP/1.1 200 OK");
  EXPECT_TRUE(absl::StrContains(answer, "\r\nContent-Type: text/plain; version=0.0.4"))
      << answer.substr(0, 300);
  EXPECT_TRUE(absl::StrContains(answer, "\r\nConnection: close\r\n"));
  const std::string body = Body(answer);
  EXPECT_TRUE(absl::StartsWith(body, "# HELP exposer_transferred_bytes_total")) << body;
  EXPECT_TRUE(absl::StrContains(body, "exposer_scrapes_total 0\n")) << body;
  EXPECT_TRUE(absl::EndsWith(Shape(body), Shape(metrics_.Render()))) << body;
  EXPECT_TRUE(absl::StrContains(body, "outcome=\"cancelled\",version=\"1\"} 1"));
  // The next scrape counts this one.
  EXPECT_TRUE(absl::StrContains(Get(endpoint_->port(), "/metrics"), "exposer_scrapes_total 1\n"));
}

TEST_F(MetricsEndpointTest, HeadGivesTheHeadersOnly) {
  Start();
  const std::string answer =
      Exchange(endpoint_->port(), "HEAD /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n");
  EXPECT_EQ(StatusLine(answer), "HTTP/1.1 200 OK");
  EXPECT_TRUE(absl::StrContains(answer, "\r\nContent-Type: text/plain; version=0.0.4"));
  EXPECT_EQ(Body(answer), "");
  const size_t at = answer.find("\r\nContent-Length: ");
  ASSERT_NE(at, std::string::npos) << answer;
  const size_t start = at + sizeof("\r\nContent-Length: ") - 1;
  uint64_t length = 0;
  ASSERT_TRUE(absl::SimpleAtoi(answer.substr(start, answer.find("\r\n", start) - start), &length));
  EXPECT_GT(length, metrics_.Render().size());  // what a GET would carry: the exposer's and ours
}

TEST_F(MetricsEndpointTest, OtherPathsAndMethodsAreRefused) {
  Start();
  const int port = endpoint_->port();
  EXPECT_EQ(StatusLine(Get(port, "/")), "HTTP/1.1 404 Not Found");
  EXPECT_EQ(StatusLine(Get(port, "/metrics/x")), "HTTP/1.1 404 Not Found");
  const std::string post =
      Exchange(port, "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}");
  EXPECT_EQ(StatusLine(post), "HTTP/1.1 405 Method Not Allowed");
  EXPECT_TRUE(absl::StrContains(post, "\r\nAllow: GET\r\nAllow: HEAD\r\n")) << post;
  EXPECT_EQ(Body(post), "Method Not Allowed\n");
  EXPECT_FALSE(absl::StrContains(post, "vkserve_build_info"));
}

TEST_F(MetricsEndpointTest, KeepsServingAfterMalformedRequests) {
  Start();
  const int port = endpoint_->port();
  for (const char* bad : {"garbage\r\n\r\n", "GET /metrics HTTP/2\r\n\r\n",
                          "GET /metrics HTTP/1.1\r\nno colon here\r\n\r\n"}) {
    EXPECT_EQ(StatusLine(Exchange(port, bad)), "HTTP/1.1 400 Bad Request") << bad;
  }
  const std::string huge =
      absl::StrCat("GET /metrics HTTP/1.1\r\nX-Big: ", std::string(9000, 'a'), "\r\n\r\n");
  EXPECT_EQ(StatusLine(Exchange(port, huge)), "HTTP/1.1 431 Request Header Fields Too Large");
  const std::string answer = Get(port, "/metrics");
  EXPECT_EQ(StatusLine(answer), "HTTP/1.1 200 OK");
  EXPECT_TRUE(absl::StrContains(answer, "vkserve_build_info"));
}

TEST_F(MetricsEndpointTest, ABusyPortIsAStatusNamingIt) {
  Start();
  ServerSettings clash = settings_;
  clash.metrics_port = endpoint_->port();
  auto second = MetricsEndpoint::Start(clash, &metrics_);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(
      absl::StrContains(second.status().message(),
                        absl::StrCat("cannot serve metrics on 127.0.0.1:", clash.metrics_port)))
      << second.status();
  endpoint_->Stop();
  EXPECT_EQ(endpoint_->port(), 0);
}

TEST_F(MetricsEndpointTest, PeersOutsideTheAllowedNetworksAreClosedUnanswered) {
  settings_.metrics_allowed_networks = {"10.0.0.0/8"};
  Start();
  for (int i = 0; i < 3; ++i) EXPECT_EQ(Get(endpoint_->port(), "/metrics"), "");
}

TEST_F(MetricsEndpointTest, ServesIpv6AndMatchesIpv6Networks) {
  settings_.metrics_address = "::1";
  settings_.metrics_allowed_networks = {"10.0.0.0/8", "::1/128"};
  Start();
  EXPECT_EQ(StatusLine(Get(endpoint_->port(), "/metrics", /*v6=*/true)), "HTTP/1.1 200 OK");
  endpoint_->Stop();
  settings_.metrics_allowed_networks = {"fd00::/8", "0.0.0.0/0"};
  Start();
  EXPECT_EQ(Get(endpoint_->port(), "/metrics", /*v6=*/true), "");
}

TEST_F(MetricsEndpointTest, AnyAddressMatchesIpv4PeersAgainstIpv4Networks) {
  settings_.metrics_address = "::";
  settings_.metrics_allowed_networks = {"127.0.0.0/8"};
  Start();
  EXPECT_EQ(StatusLine(Get(endpoint_->port(), "/metrics")), "HTTP/1.1 200 OK");
  EXPECT_EQ(Get(endpoint_->port(), "/metrics", /*v6=*/true), "");
}

TEST_F(MetricsEndpointTest, AByteAtATimeClientIsCutOffWhileScrapesGoOn) {
  settings_.metrics_request_timeout_ms = 300;
  Start();
  const int port = endpoint_->port();
  const int slow = Connect(port);
  ASSERT_GE(slow, 0);
  const std::string request = "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaa";
  const auto start = Clock::now();
  bool cut_off = false;
  for (char c : request) {
    if (!SendAll(slow, std::string(1, c))) {
      cut_off = true;
      break;
    }
    pollfd p{slow, POLLIN, 0};
    if (poll(&p, 1, 0) > 0) {  // the server closed it (read gives 0)
      char byte;
      if (recv(slow, &byte, 1, 0) <= 0) {
        cut_off = true;
        break;
      }
    }
    // Meanwhile another client scrapes without waiting for it.
    EXPECT_EQ(StatusLine(Get(port, "/metrics")), "HTTP/1.1 200 OK");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  close(slow);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  EXPECT_TRUE(cut_off) << "a byte-at-a-time client kept its connection for " << seconds << " s";
  EXPECT_LT(seconds, 2.0);
}

}  // namespace
}  // namespace vkserve
