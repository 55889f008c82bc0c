// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "benchmarks/server/metrics_scrape.h"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace vkserve::bench {

std::string HttpGet(const std::string& url) {
  const std::string rest = url.rfind("http://", 0) == 0 ? url.substr(7) : url;
  const size_t slash = rest.find('/');
  const std::string hostport = rest.substr(0, slash);
  const std::string path = slash == std::string::npos ? "/" : rest.substr(slash);
  const size_t colon = hostport.rfind(':');
  const std::string host = hostport.substr(0, colon);
  const std::string port = colon == std::string::npos ? "80" : hostport.substr(colon + 1);
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), port.c_str(), &hints, &found) != 0) return "";
  std::string response;
  const int fd = socket(found->ai_family, found->ai_socktype, found->ai_protocol);
  if (fd >= 0 && connect(fd, found->ai_addr, found->ai_addrlen) == 0) {
    const std::string request =
        absl::StrCat("GET ", path, " HTTP/1.0\r\nHost: ", hostport, "\r\n\r\n");
    if (write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
      char chunk[65536];
      ssize_t n = 0;
      while ((n = read(fd, chunk, sizeof(chunk))) > 0)
        response.append(chunk, static_cast<size_t>(n));
    }
  }
  if (fd >= 0) close(fd);
  freeaddrinfo(found);
  return response;
}

double SumSamples(const std::string& text, const std::string& name,
                  const std::vector<std::string>& labels) {
  double sum = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (line.empty() || line.front() == '#' || !absl::StartsWith(line, name)) continue;
    // The name must end here: "x_total" is not a sample of "x".
    if (line.size() == name.size() || (line[name.size()] != '{' && line[name.size()] != ' '))
      continue;
    bool match = true;
    for (const std::string& label : labels)
      match = match && line.find(label) != absl::string_view::npos;
    double value = 0;
    if (match && absl::SimpleAtod(line.substr(line.rfind(' ') + 1), &value)) sum += value;
  }
  return sum;
}

}  // namespace vkserve::bench
