// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ConfigSource: strict protobuf text-format parsing for vkserve's config
// files, and error messages that point at the file, line, column and field.
//
//   model.pbtxt:12:3: instance_group[0].count: must be >= 0, got -2
//
// Syntax errors, unknown fields, wrong value types and repeated singular
// fields are INVALID_ARGUMENT from ParseTextProto; later validation reports
// through ConfigSource::Error(), which finds where the field was written.
// A ConfigSource is immutable after parsing and safe to share across threads.
#ifndef VKSERVE_CONFIG_CONFIG_SOURCE_H_
#define VKSERVE_CONFIG_CONFIG_SOURCE_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "google/protobuf/message.h"
#include "google/protobuf/text_format.h"

namespace vkserve {

// One step of a path to a field: `instance_group[1]` is {"instance_group", 1};
// index -1 names a singular field (or a whole repeated one).
struct FieldStep {
  std::string name;
  int index = -1;
};
using FieldPath = std::vector<FieldStep>;

// "instance_group[1].count".
std::string FieldPathString(const FieldPath& path);

class ConfigSource {
 public:
  // A source without a parse tree (e.g. a config derived from a model file):
  // errors carry `name` but no line.
  explicit ConfigSource(std::string name);
  ConfigSource(std::string name, const google::protobuf::Descriptor* root,
               std::unique_ptr<google::protobuf::TextFormat::ParseInfoTree> tree);
  ~ConfigSource();
  ConfigSource(const ConfigSource&) = delete;
  ConfigSource& operator=(const ConfigSource&) = delete;

  const std::string& name() const { return name_; }

  // INVALID_ARGUMENT "<name>:<line>:<column>: <path>: <message>". The line
  // is that of the deepest step of `path` that was written in the text (the
  // field itself, else its closest written parent); without one it is left
  // out. An empty path leaves out "<path>: ".
  absl::Status Error(const FieldPath& path, std::string_view message) const;

  // 1-based line of `path` as written, or 0 when it was not written.
  int LineOf(const FieldPath& path) const;

 private:
  // 0-based line/column of the deepest written step; line -1 when none.
  void Locate(const FieldPath& path, int* line, int* column) const;

  std::string name_;
  const google::protobuf::Descriptor* root_ = nullptr;
  std::unique_ptr<google::protobuf::TextFormat::ParseInfoTree> tree_;
};

// Parses text-format `text` into `message` (cleared first). `source_name`
// (usually the file path) prefixes every error. Unknown fields are errors;
// one naming a Triton setting vkserve does not implement says so.
absl::StatusOr<std::shared_ptr<const ConfigSource>> ParseTextProto(
    std::string_view text, const std::string& source_name, google::protobuf::Message* message);

// Reads a whole (config-sized, at most 16 MiB) file. NOT_FOUND when it does
// not exist; other failures name the path and errno's text.
absl::StatusOr<std::string> ReadConfigFile(const std::string& path);

}  // namespace vkserve

#endif  // VKSERVE_CONFIG_CONFIG_SOURCE_H_
