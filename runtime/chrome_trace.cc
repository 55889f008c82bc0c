// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Chrome trace ("Trace Event Format") output for run profiles: a JSON array of
// complete ("X") events in microseconds, host phases on thread 1 and GPU
// dispatches on thread 2, so Perfetto shows them as two tracks.
#include <cstdio>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "runtime/session.h"

namespace vkserve {
namespace {

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          out += absl::StrFormat("\\u%04x", c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

}  // namespace

absl::Status WriteChromeTrace(const std::vector<TraceEvent>& events, const std::string& path) {
  std::string json = "[\n";
  for (size_t i = 0; i < events.size(); ++i) {
    const TraceEvent& e = events[i];
    const bool gpu = e.category == "gpu";
    absl::StrAppend(
        &json, "  {\"name\": ", JsonString(e.name), ", \"cat\": ", JsonString(e.category),
        ", \"ph\": \"X\", \"pid\": 1, \"tid\": ", gpu ? 2 : 1,
        absl::StrFormat(", \"ts\": %.3f, \"dur\": %.3f", e.start_ns / 1e3, e.duration_ns / 1e3),
        ", \"args\": {\"op_type\": ", JsonString(e.op_type), ", \"shapes\": ", JsonString(e.shapes),
        "}}", i + 1 < events.size() ? ",\n" : "\n");
  }
  json += "]\n";
  std::ofstream out(path, std::ios::trunc);
  if (!out) return absl::PermissionDeniedError(absl::StrCat("cannot write profile ", path));
  out << json;
  if (!out) return absl::InternalError(absl::StrCat("writing profile ", path, " failed"));
  return absl::OkStatus();
}

}  // namespace vkserve
