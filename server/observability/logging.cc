// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/observability/logging.h"

#include <cstdio>
#include <memory>

#include "spdlog/pattern_formatter.h"
#include "spdlog/sinks/stdout_sinks.h"
#include "spdlog/spdlog.h"

namespace vkserve {
namespace {

thread_local std::string current_request_id;

void Append(spdlog::memory_buf_t& dest, std::string_view s) {
  dest.append(s.data(), s.data() + s.size());
}

// %*: the message as a JSON string.
class JsonMessageFlag final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    Append(dest, JsonQuote(std::string_view(msg.payload.data(), msg.payload.size())));
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<JsonMessageFlag>();
  }
};

// %q: `,"request_id":"<id>"` when the thread has one.
class JsonRequestIdFlag final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg&, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    if (current_request_id.empty()) return;
    Append(dest, ",\"request_id\":");
    Append(dest, JsonQuote(current_request_id));
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<JsonRequestIdFlag>();
  }
};

// %j: `[req <id>] ` when the thread has one.
class TextRequestIdFlag final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg&, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    if (current_request_id.empty()) return;
    Append(dest, "[req ");
    Append(dest, current_request_id);
    Append(dest, "] ");
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<TextRequestIdFlag>();
  }
};

spdlog::level::level_enum ToSpdlog(LogLevel level) {
  switch (level) {
    case LogLevel::kTrace:
      return spdlog::level::trace;
    case LogLevel::kDebug:
      return spdlog::level::debug;
    case LogLevel::kInfo:
      return spdlog::level::info;
    case LogLevel::kWarning:
      return spdlog::level::warn;
    case LogLevel::kError:
      return spdlog::level::err;
    case LogLevel::kOff:
      return spdlog::level::off;
  }
  return spdlog::level::info;
}

// Length of the valid UTF-8 sequence at s[i], 0 when it is not one.
size_t Utf8SequenceLength(std::string_view s, size_t i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  size_t n = 0;
  unsigned int min = 0;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2, min = 0x80;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3, min = 0x800;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4, min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  unsigned int cp = c & (0x7F >> n);
  for (size_t k = 1; k < n; ++k) {
    const unsigned char d = static_cast<unsigned char>(s[i + k]);
    if ((d & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (d & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

}  // namespace

std::string JsonQuote(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '"';
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      // Request ids and model names are untrusted bytes: keep valid UTF-8,
      // replace the rest so every line stays parseable JSON.
      const size_t n = Utf8SequenceLength(text, i);
      if (n == 0) {
        out += "\\ufffd";
      } else {
        out.append(text.substr(i, n));
        i += n - 1;
      }
      continue;
    }
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
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
  return out;
}

namespace {

std::unique_ptr<spdlog::formatter> MakeFormatter(LogFormat format) {
  std::unique_ptr<spdlog::pattern_formatter> formatter;
  if (format == LogFormat::kJson) {
    formatter = std::make_unique<spdlog::pattern_formatter>(spdlog::pattern_time_type::utc);
    // UTC with an explicit offset, so collectors need no local time zone.
    formatter->add_flag<JsonMessageFlag>('*').add_flag<JsonRequestIdFlag>('q').set_pattern(
        "{\"time\":\"%Y-%m-%dT%H:%M:%S.%f%z\",\"level\":\"%l\",\"thread\":%t%q,\"msg\":%*}");
  } else {
    formatter = std::make_unique<spdlog::pattern_formatter>();
    formatter->add_flag<TextRequestIdFlag>('j').set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%l] %j%v");
  }
  return formatter;
}

}  // namespace

void ConfigureLogging(LogLevel level, LogFormat format) {
  auto logger = std::make_shared<spdlog::logger>("vkserve",
                                                 std::make_shared<spdlog::sinks::stderr_sink_mt>());
  logger->set_formatter(MakeFormatter(format));
  logger->set_level(ToSpdlog(level));
  logger->flush_on(spdlog::level::warn);
  spdlog::set_default_logger(std::move(logger));
}

ScopedRequestId::ScopedRequestId(std::string id) : previous_(std::move(current_request_id)) {
  current_request_id = std::move(id);
}

ScopedRequestId::~ScopedRequestId() { current_request_id = std::move(previous_); }

const std::string& CurrentRequestId() { return current_request_id; }

LogControl::LogControl(LogLevel level, LogFormat format) : level_(level), format_(format) {}

LogLevel LogControl::level() const {
  MutexLock lock(&mutex_);
  return level_;
}

LogFormat LogControl::format() const {
  MutexLock lock(&mutex_);
  return format_;
}

void LogControl::Set(LogLevel level, LogFormat format) {
  MutexLock lock(&mutex_);
  // Both calls are safe while other threads log: the level is atomic and
  // the sinks swap formatters under their own mutex.
  spdlog::logger& logger = *spdlog::default_logger();
  logger.set_level(ToSpdlog(level));
  if (format != format_) logger.set_formatter(MakeFormatter(format));
  level_ = level;
  format_ = format;
}

}  // namespace vkserve
