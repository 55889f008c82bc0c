// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// JsonWriter: a small streaming JSON builder for the CLI's machine-readable
// output (commas and string escaping handled). Not thread-safe.
#ifndef VKSERVE_CLI_JSON_WRITER_H_
#define VKSERVE_CLI_JSON_WRITER_H_

#include <cstdint>
#include <string>
#include <vector>

namespace vkserve {

class JsonWriter {
 public:
  JsonWriter& BeginObject() { return Open('{'); }
  JsonWriter& EndObject() { return Close('}'); }
  JsonWriter& BeginArray() { return Open('['); }
  JsonWriter& EndArray() { return Close(']'); }
  JsonWriter& Key(const std::string& key);
  JsonWriter& String(const std::string& value);
  JsonWriter& Int(int64_t value);
  JsonWriter& Double(double value);
  JsonWriter& Bool(bool value);
  const std::string& str() const { return out_; }

 private:
  JsonWriter& Open(char c);
  JsonWriter& Close(char c);
  void Separate();
  std::string out_;
  std::vector<bool> first_;  // per open container: no element written yet
  bool after_key_ = false;
};

}  // namespace vkserve

#endif  // VKSERVE_CLI_JSON_WRITER_H_
