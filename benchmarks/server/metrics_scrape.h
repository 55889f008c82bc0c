// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Reading a Prometheus text endpoint from the benchmark tools: one HTTP GET
// over a plain socket, and the sum of a metric's samples. Enough for
// vkserve's /metrics (HTTP/1.1, closes after an HTTP/1.0 request); not a
// general HTTP client. Stateless; thread-safe.
#ifndef VKSERVE_BENCHMARKS_SERVER_METRICS_SCRAPE_H_
#define VKSERVE_BENCHMARKS_SERVER_METRICS_SCRAPE_H_

#include <string>
#include <vector>

namespace vkserve::bench {

// The whole response (headers included) of GET `url`
// ("http://host:port/path"); "" when it cannot connect.
std::string HttpGet(const std::string& url);

// Sum of every sample of metric `name` whose label text contains each of
// `labels` (e.g. "model=\"resnet50\"").
double SumSamples(const std::string& text, const std::string& name,
                  const std::vector<std::string>& labels = {});

}  // namespace vkserve::bench

#endif  // VKSERVE_BENCHMARKS_SERVER_METRICS_SCRAPE_H_
