// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// HttpServer (server/http/http_server.h): a HEAD answer carries no body;
// and at shutdown, answers that come after Stop, or after the server is
// gone, are dropped without touching the connection's event loop (ASan and
// TSan run this test), and answers racing with Stop from other threads.
#include "server/http/http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace vkserve {
namespace {

namespace http = boost::beast::http;

// Holds the responders of the requests the server hands over.
class Held {
 public:
  HttpHandler Handler() {
    return [this](HttpRequest&&, HttpResponder respond) {
      std::lock_guard<std::mutex> lock(mutex_);
      responders_.push_back(std::move(respond));
      cv_.notify_all();
    };
  }
  bool WaitFor(size_t n) {
    std::unique_lock<std::mutex> lock(mutex_);
    return cv_.wait_for(lock, std::chrono::seconds(30), [&] { return responders_.size() >= n; });
  }
  std::vector<HttpResponder> Take() {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::move(responders_);
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<HttpResponder> responders_;
};

// A client socket that sent one request; -1 when it could not connect.
int SendRequest(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    close(fd);
    return -1;
  }
  const std::string request = "GET /v2 HTTP/1.1\r\nHost: x\r\n\r\n";
  if (send(fd, request.data(), request.size(), MSG_NOSIGNAL) !=
      static_cast<ssize_t>(request.size())) {
    close(fd);
    return -1;
  }
  return fd;
}

HttpResponse Ok() {
  HttpResponse response{http::status::ok, 11};
  response.body() = "{}";
  return response;
}

TEST(HttpServerTest, HeadIsAnsweredWithoutTheBody) {
  HttpServerOptions options;
  options.port = 0;
  auto server = HttpServer::Start(options, nullptr, [](HttpRequest&&, HttpResponder respond) {
    HttpResponse response{http::status::ok, 11};
    response.body() = "0123456789";
    respond(std::move(response));
  });
  ASSERT_TRUE(server.ok()) << server.status();
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>((*server)->port()));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  // HEAD, then GET on the same connection: the second answer must follow
  // the first one's headers directly.
  const std::string requests =
      "HEAD /x HTTP/1.1\r\nHost: x\r\n\r\nGET /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  ASSERT_EQ(send(fd, requests.data(), requests.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(requests.size()));
  std::string answer;
  char buf[4096];
  for (ssize_t n; (n = recv(fd, buf, sizeof(buf), 0)) > 0;)
    answer.append(buf, static_cast<size_t>(n));
  close(fd);
  const size_t first_end = answer.find("\r\n\r\n");
  ASSERT_NE(first_end, std::string::npos) << answer;
  const std::string first = answer.substr(0, first_end);
  EXPECT_EQ(first.substr(0, first.find("\r\n")), "HTTP/1.1 200 OK");
  EXPECT_NE(first.find("\r\nContent-Length: 10"), std::string::npos) << first;
  const std::string rest = answer.substr(first_end + 4);
  EXPECT_EQ(rest.substr(0, rest.find("\r\n")), "HTTP/1.1 200 OK") << answer;
  EXPECT_EQ(rest.substr(rest.size() - 10), "0123456789") << answer;
}

TEST(HttpServerTest, AnswerAfterTheServerIsGoneIsDropped) {
  Held held;
  HttpServerOptions options;
  options.port = 0;
  auto server = HttpServer::Start(options, nullptr, held.Handler());
  ASSERT_TRUE(server.ok()) << server.status();
  const int fd = SendRequest((*server)->port());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(held.WaitFor(1));
  std::vector<HttpResponder> responders = held.Take();
  server->reset();  // Stop, then the io_context goes
  // The late answer and the last reference to its connection: neither may
  // reach the event loop that is gone.
  responders[0](Ok());
  responders.clear();
  char byte;
  EXPECT_LE(recv(fd, &byte, 1, 0), 0);  // closed unanswered
  close(fd);
}

TEST(HttpServerTest, UnansweredRequestsAtStop) {
  Held held;
  HttpServerOptions options;
  options.port = 0;
  auto server = HttpServer::Start(options, nullptr, held.Handler());
  ASSERT_TRUE(server.ok()) << server.status();
  const int fd = SendRequest((*server)->port());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(held.WaitFor(1));
  server->reset();
  // The responder is dropped unanswered, after the server.
  held.Take().clear();
  close(fd);
}

TEST(HttpServerTest, AnswersRacingWithStop) {
  for (int round = 0; round < 5; ++round) {
    Held held;
    HttpServerOptions options;
    options.port = 0;
    options.threads = 2;
    auto server = HttpServer::Start(options, nullptr, held.Handler());
    ASSERT_TRUE(server.ok()) << server.status();
    constexpr int kClients = 8;
    std::vector<int> fds;
    for (int i = 0; i < kClients; ++i) {
      fds.push_back(SendRequest((*server)->port()));
      ASSERT_GE(fds.back(), 0);
    }
    ASSERT_TRUE(held.WaitFor(kClients));
    std::vector<HttpResponder> responders = held.Take();
    std::atomic<bool> go{false};
    std::thread answering([&] {
      while (!go.load()) std::this_thread::yield();
      for (HttpResponder& respond : responders) respond(Ok());
      responders.clear();
    });
    go.store(true);
    (*server)->Stop();
    answering.join();
    server->reset();
    for (int fd : fds) close(fd);
  }
}

}  // namespace
}  // namespace vkserve
