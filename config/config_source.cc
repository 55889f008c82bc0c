// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "config/config_source.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"

namespace vkserve {
namespace {

namespace pb = google::protobuf;

constexpr size_t kMaxConfigBytes = size_t{16} << 20;

// Triton ModelConfig fields (any message) that vkserve leaves out of its
// schema on purpose; an "unknown field" error naming one says so.
const std::set<std::string>& TritonOnlyFields() {
  static const auto* fields = new std::set<std::string>{"allow_ragged_batch",
                                                        "batch_input",
                                                        "batch_output",
                                                        "cc_model_filenames",
                                                        "default_priority_level",
                                                        "ensemble_scheduling",
                                                        "host_policy",
                                                        "is_non_linear_format_io",
                                                        "is_shape_tensor",
                                                        "label_filename",
                                                        "metric_tags",
                                                        "model_metrics",
                                                        "model_operations",
                                                        "model_repository_agents",
                                                        "model_transaction_policy",
                                                        "optimization",
                                                        "optional",
                                                        "passive",
                                                        "preserve_ordering",
                                                        "priority_levels",
                                                        "priority_queue_policy",
                                                        "profile",
                                                        "rate_limiter",
                                                        "reshape",
                                                        "response_cache",
                                                        "runtime",
                                                        "secondary_devices",
                                                        "sequence_batching"};
  return *fields;
}

// Keeps the first error the text-format parser or tokenizer reports.
class FirstErrorCollector : public pb::io::ErrorCollector {
 public:
  void AddError(int line, pb::io::ColumnNumber column, const std::string& message) override {
    if (has_error_) return;
    has_error_ = true;
    line_ = line;
    column_ = column;
    message_ = message;
  }
  bool has_error() const { return has_error_; }
  int line() const { return line_; }
  int column() const { return column_; }
  const std::string& message() const { return message_; }

 private:
  bool has_error_ = false;
  int line_ = 0;
  int column_ = 0;
  std::string message_;
};

// Some parse errors are found only after the offending token was consumed
// and point at the token after it; those are moved back to it.
bool PointsPastToken(const std::string& message) {
  return message.find("has no field named") != std::string::npos ||
         message.find("Unknown enumeration value") != std::string::npos ||
         message.find("is specified multiple times") != std::string::npos;
}

// Reconstructs which field the text was in at (line, column), for parse
// errors: protobuf's messages ("Expected integer, got: foo") name no field.
// Tokenizes up to the position, tracking `name {` nesting; an identifier is
// a field name unless it follows ':' or sits in a [...] list. With
// `step_back`, first moves (line, column) to the token before it.
std::string FieldAt(std::string_view text, bool step_back, int* line, int* column) {
  if (step_back) {
    pb::io::ArrayInputStream input(text.data(), static_cast<int>(text.size()));
    FirstErrorCollector ignored;
    pb::io::Tokenizer tokenizer(&input, &ignored);
    tokenizer.set_comment_style(pb::io::Tokenizer::SH_COMMENT_STYLE);
    int previous_line = -1, previous_column = -1;
    while (tokenizer.Next()) {
      const pb::io::Tokenizer::Token& token = tokenizer.current();
      if (token.line > *line || (token.line == *line && token.column >= *column)) break;
      previous_line = token.line;
      previous_column = token.column;
    }
    if (previous_line >= 0) {
      *line = previous_line;
      *column = previous_column;
    }
  }
  pb::io::ArrayInputStream input(text.data(), static_cast<int>(text.size()));
  FirstErrorCollector ignored;
  pb::io::Tokenizer tokenizer(&input, &ignored);
  tokenizer.set_comment_style(pb::io::Tokenizer::SH_COMMENT_STYLE);
  std::vector<std::string> open;  // fields whose message is open
  std::string current;            // latest field name at this level
  std::string previous;           // previous token's text
  int list_depth = 0;
  while (tokenizer.Next()) {
    const pb::io::Tokenizer::Token& token = tokenizer.current();
    if (token.line > *line || (token.line == *line && token.column > *column)) break;
    const std::string& t = token.text;
    if (token.type == pb::io::Tokenizer::TYPE_IDENTIFIER && previous != ":" && list_depth == 0) {
      current = t;
    } else if (t == "{" || t == "<") {
      open.push_back(current);
      current.clear();
      list_depth = 0;
    } else if ((t == "}" || t == ">") && !open.empty()) {
      current = open.back();
      open.pop_back();
    } else if (t == "[") {
      ++list_depth;
    } else if (t == "]" && list_depth > 0) {
      --list_depth;
    }
    previous = t;
  }
  std::string path;
  for (const std::string& name : open) absl::StrAppend(&path, name, ".");
  absl::StrAppend(&path, current);
  return path;
}

// Proto3 enums accept any number in text ("level: 7"); vkserve does not.
// Returns the path of the first enum field (recursively) holding a number
// its enum does not define, and that number.
bool FindUnknownEnum(const pb::Message& message, FieldPath* path, int* value) {
  const pb::Reflection* reflection = message.GetReflection();
  std::vector<const pb::FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  for (const pb::FieldDescriptor* field : fields) {
    int count = field->is_repeated() ? reflection->FieldSize(message, field) : 1;
    for (int i = 0; i < count; ++i) {
      int index = field->is_repeated() ? i : -1;
      if (field->cpp_type() == pb::FieldDescriptor::CPPTYPE_ENUM) {
        int v = field->is_repeated() ? reflection->GetRepeatedEnumValue(message, field, i)
                                     : reflection->GetEnumValue(message, field);
        if (field->enum_type()->FindValueByNumber(v) == nullptr) {
          path->push_back({field->name(), index});
          *value = v;
          return true;
        }
      } else if (field->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE) {
        const pb::Message& child = field->is_repeated()
                                       ? reflection->GetRepeatedMessage(message, field, i)
                                       : reflection->GetMessage(message, field);
        path->push_back({field->name(), index});
        if (FindUnknownEnum(child, path, value)) return true;
        path->pop_back();
      }
    }
  }
  return false;
}

std::string Explain(const std::string& message) {
  // Message type "inference.ModelConfig" has no field named "optimization".
  static constexpr std::string_view kNoField = "has no field named \"";
  size_t at = message.find(kNoField);
  if (at == std::string::npos || message.find("\"inference.") == std::string::npos) return message;
  size_t start = at + kNoField.size();
  size_t end = message.find('"', start);
  if (end == std::string::npos) return message;
  std::string field = message.substr(start, end - start);
  if (!TritonOnlyFields().count(field)) return message;
  return absl::StrCat(message, " (a Triton setting vkserve does not implement)");
}

}  // namespace

std::string FieldPathString(const FieldPath& path) {
  std::string out;
  for (const FieldStep& step : path) {
    if (!out.empty()) out += '.';
    out += step.name;
    if (step.index >= 0) absl::StrAppend(&out, "[", step.index, "]");
  }
  return out;
}

ConfigSource::ConfigSource(std::string name) : name_(std::move(name)) {}

ConfigSource::ConfigSource(std::string name, const pb::Descriptor* root,
                           std::unique_ptr<pb::TextFormat::ParseInfoTree> tree)
    : name_(std::move(name)), root_(root), tree_(std::move(tree)) {}

ConfigSource::~ConfigSource() = default;

void ConfigSource::Locate(const FieldPath& path, int* line, int* column) const {
  *line = -1;
  *column = -1;
  const pb::Descriptor* descriptor = root_;
  const pb::TextFormat::ParseInfoTree* tree = tree_.get();
  for (const FieldStep& step : path) {
    if (descriptor == nullptr || tree == nullptr) return;
    const pb::FieldDescriptor* field = descriptor->FindFieldByName(step.name);
    if (field == nullptr) return;
    int index = step.index;
    if (field->is_repeated() && index < 0) index = 0;  // the whole list: its first entry
    if (!field->is_repeated()) index = -1;
    pb::TextFormat::ParseLocation location = tree->GetLocation(field, index);
    // A list written as `dims: [1, 2, 3]` is recorded once, as entry 0:
    // point at the list.
    for (int i = index - 1; location.line < 0 && i >= 0; --i)
      location = tree->GetLocation(field, i);
    if (location.line < 0) return;
    *line = location.line;
    *column = location.column;
    if (field->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE) return;
    tree = tree->GetTreeForNested(field, index);
    descriptor = field->message_type();
  }
}

int ConfigSource::LineOf(const FieldPath& path) const {
  int line, column;
  Locate(path, &line, &column);
  return line + 1;
}

absl::Status ConfigSource::Error(const FieldPath& path, std::string_view message) const {
  int line, column;
  Locate(path, &line, &column);
  std::string where = name_;
  if (line >= 0) absl::StrAppend(&where, ":", line + 1, ":", column + 1);
  std::string field = FieldPathString(path);
  return absl::InvalidArgumentError(
      field.empty() ? absl::StrCat(where, ": ", std::string(message))
                    : absl::StrCat(where, ": ", field, ": ", std::string(message)));
}

absl::StatusOr<std::shared_ptr<const ConfigSource>> ParseTextProto(std::string_view text,
                                                                   const std::string& source_name,
                                                                   pb::Message* message) {
  message->Clear();
  if (text.size() > kMaxConfigBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(source_name, ": larger than ", kMaxConfigBytes, " bytes"));
  }
  auto tree = std::make_unique<pb::TextFormat::ParseInfoTree>();
  FirstErrorCollector errors;
  pb::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  parser.WriteLocationsTo(tree.get());
  parser.AllowUnknownField(false);
  parser.AllowPartialMessage(false);
  parser.SetRecursionLimit(32);
  pb::io::ArrayInputStream input(text.data(), static_cast<int>(text.size()));
  if (!parser.Parse(&input, message) || errors.has_error()) {
    if (!errors.has_error()) {
      return absl::InvalidArgumentError(absl::StrCat(source_name, ": not valid text format"));
    }
    int line = errors.line(), column = errors.column();
    std::string field;
    if (absl::StartsWith(errors.message(), "Expected \"{\"")) {
      // "grpc port: 1": the error is at "port", the field is "grpc".
      int field_line = line, field_column = column;
      field = FieldAt(text, /*step_back=*/true, &field_line, &field_column);
    } else {
      field = FieldAt(text, PointsPastToken(errors.message()), &line, &column);
    }
    return absl::InvalidArgumentError(
        absl::StrCat(source_name, ":", line + 1, ":", column + 1, ": ",
                     field.empty() ? "" : absl::StrCat(field, ": "), Explain(errors.message())));
  }
  auto source = std::shared_ptr<const ConfigSource>(
      new ConfigSource(source_name, message->GetDescriptor(), std::move(tree)));
  FieldPath path;
  int value = 0;
  if (FindUnknownEnum(*message, &path, &value)) {
    const pb::FieldDescriptor* field = nullptr;
    const pb::Descriptor* descriptor = message->GetDescriptor();
    for (const FieldStep& step : path) {
      field = descriptor->FindFieldByName(step.name);
      if (field->message_type() != nullptr) descriptor = field->message_type();
    }
    std::vector<std::string> names;
    for (int i = 0; i < field->enum_type()->value_count(); ++i) {
      names.push_back(field->enum_type()->value(i)->name());
    }
    return source->Error(
        path, absl::StrCat(value, " is not a value of ", field->enum_type()->name(), " (",
                           absl::StrJoin(names, ", "), ")"));
  }
  return source;
}

absl::StatusOr<std::string> ReadConfigFile(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    int err = errno;
    std::string text = absl::StrCat(path, ": ", std::strerror(err));
    if (err == ENOENT) return absl::NotFoundError(text);
    if (err == EACCES) return absl::PermissionDeniedError(text);
    return absl::InvalidArgumentError(text);
  }
  std::string contents;
  char buffer[16384];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), file)) > 0) {
    contents.append(buffer, n);
    if (contents.size() > kMaxConfigBytes) {
      std::fclose(file);
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": larger than ", kMaxConfigBytes, " bytes; not a config file"));
    }
  }
  bool failed = std::ferror(file) != 0;
  int err = errno;
  std::fclose(file);
  if (failed) {
    // A directory opens but cannot be read (EISDIR).
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", std::strerror(err)));
  }
  return contents;
}

}  // namespace vkserve
