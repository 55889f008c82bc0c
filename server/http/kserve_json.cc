// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/http/kserve_json.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/quote.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/reflection.h"
#include "nlohmann/json.hpp"

namespace vkserve {
namespace {

using inference::InferParameter;
using inference::ModelInferRequest;
using inference::ModelInferResponse;
using json = nlohmann::json;

absl::Status Invalid(absl::string_view where, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat(where, ": ", problem));
}

// Nesting deeper than kMaxJsonDepth, found before parsing (the parser would
// build it first).
bool TooDeep(absl::string_view text) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

absl::StatusOr<json> Parse(absl::string_view text, absl::string_view what) {
  if (TooDeep(text)) {
    return Invalid(what, absl::StrCat("JSON nested deeper than ", kMaxJsonDepth, " levels"));
  }
  json parsed = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return Invalid(what, "malformed JSON");
  return parsed;
}

// A "parameters" object into `out`. HTTP-only keys (`skip`) are left out.
absl::Status Parameters(const json& params, absl::string_view where,
                        google::protobuf::Map<std::string, InferParameter>* out,
                        std::initializer_list<absl::string_view> skip = {}) {
  if (!params.is_object()) return Invalid(where, "'parameters' must be an object");
  for (const auto& [key, value] : params.items()) {
    if (std::find(skip.begin(), skip.end(), key) != skip.end()) continue;
    InferParameter& p = (*out)[key];
    if (value.is_boolean()) {
      p.set_bool_param(value.get<bool>());
    } else if (value.is_number_unsigned() &&
               value.get<uint64_t>() > uint64_t{std::numeric_limits<int64_t>::max()}) {
      p.set_uint64_param(value.get<uint64_t>());
    } else if (value.is_number_integer()) {
      p.set_int64_param(value.get<int64_t>());
    } else if (value.is_number_float()) {
      p.set_double_param(value.get<double>());
    } else if (value.is_string()) {
      p.set_string_param(value.get<std::string>());
    } else {
      return Invalid(
          where, absl::StrCat("parameter ", Quoted(key), " must be a boolean, number or string"));
    }
  }
  return absl::OkStatus();
}

// The element size of a KServe datatype; 0 for BYTES, -1 when unknown.
int ElementSize(absl::string_view dt) {
  if (dt == "BOOL" || dt == "UINT8" || dt == "INT8") return 1;
  if (dt == "UINT16" || dt == "INT16" || dt == "FP16" || dt == "BF16") return 2;
  if (dt == "UINT32" || dt == "INT32" || dt == "FP32") return 4;
  if (dt == "UINT64" || dt == "INT64" || dt == "FP64") return 8;
  if (dt == "BYTES") return 0;
  return -1;
}

template <typename T>
void Append(T value, std::string* out) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out->append(bytes, sizeof(T));
}

// One JSON element of datatype `dt` appended to `out` as raw bytes.
absl::Status AppendElement(const json& v, absl::string_view dt, std::string* out) {
  auto integer = [&](auto type_tag) -> absl::Status {
    using T = decltype(type_tag);
    if (!v.is_number_integer()) return absl::InvalidArgumentError("is not an integer");
    if constexpr (std::is_unsigned_v<T>) {
      if (v.is_number_unsigned() ? v.get<uint64_t>() > std::numeric_limits<T>::max() : true) {
        return absl::InvalidArgumentError("is out of range");
      }
      Append(static_cast<T>(v.get<uint64_t>()), out);
    } else {
      if (v.is_number_unsigned() &&
          v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<T>::max())) {
        return absl::InvalidArgumentError("is out of range");
      }
      const int64_t x = v.get<int64_t>();
      if (x < std::numeric_limits<T>::min() || x > std::numeric_limits<T>::max()) {
        return absl::InvalidArgumentError("is out of range");
      }
      Append(static_cast<T>(x), out);
    }
    return absl::OkStatus();
  };
  if (dt == "BOOL") {
    if (!v.is_boolean()) return absl::InvalidArgumentError("is not a boolean");
    Append(static_cast<uint8_t>(v.get<bool>() ? 1 : 0), out);
    return absl::OkStatus();
  }
  if (dt == "UINT8") return integer(uint8_t{});
  if (dt == "UINT16") return integer(uint16_t{});
  if (dt == "UINT32") return integer(uint32_t{});
  if (dt == "UINT64") return integer(uint64_t{});
  if (dt == "INT8") return integer(int8_t{});
  if (dt == "INT16") return integer(int16_t{});
  if (dt == "INT32") return integer(int32_t{});
  if (dt == "INT64") return integer(int64_t{});
  if (dt == "FP32" || dt == "FP64") {
    if (!v.is_number()) return absl::InvalidArgumentError("is not a number");
    if (dt == "FP32") {
      Append(v.get<float>(), out);
    } else {
      Append(v.get<double>(), out);
    }
    return absl::OkStatus();
  }
  if (dt == "BYTES") {
    if (!v.is_string()) return absl::InvalidArgumentError("is not a string");
    const std::string& s = v.get_ref<const std::string&>();
    Append(static_cast<uint32_t>(s.size()), out);
    out->append(s);
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("cannot be sent as JSON for datatype ", dt, "; send it as binary data"));
}

// Flattens `data` (nested arrays) into `out`, counting elements; depth is
// bounded by kMaxJsonDepth.
absl::Status AppendData(const json& data, absl::string_view dt, uint64_t* count, std::string* out) {
  if (!data.is_array()) {
    absl::Status s = AppendElement(data, dt, out);
    if (!s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("element ", *count, " ", s.message(), " (datatype ", dt, ")"));
    }
    ++*count;
    return absl::OkStatus();
  }
  for (const json& e : data) {
    if (absl::Status s = AppendData(e, dt, count, out); !s.ok()) return s;
  }
  return absl::OkStatus();
}

// One entry of "inputs" into `request`; `binary` is the data after the JSON
// part, `offset` how much of it earlier inputs took.
absl::Status DecodeInput(const json& in, size_t index, absl::string_view binary, size_t* offset,
                         ModelInferRequest* request) {
  std::string where = absl::StrCat("inputs[", index, "]");
  if (!in.is_object()) return Invalid(where, "must be an object");
  auto name = in.find("name");
  if (name == in.end() || !name->is_string()) return Invalid(where, "needs a string 'name'");
  where = absl::StrCat("input ", Quoted(name->get<std::string>()));
  auto dt = in.find("datatype");
  if (dt == in.end() || !dt->is_string()) return Invalid(where, "needs a string 'datatype'");
  const std::string datatype = dt->get<std::string>();
  const int element_size = ElementSize(datatype);
  if (element_size < 0) return Invalid(where, absl::StrCat("unknown datatype ", Quoted(datatype)));
  auto shape = in.find("shape");
  if (shape == in.end() || !shape->is_array()) return Invalid(where, "needs an array 'shape'");
  auto* tensor = request->add_inputs();
  tensor->set_name(name->get<std::string>());
  tensor->set_datatype(datatype);
  uint64_t elements = 1;
  bool overflow = false;
  for (const json& d : *shape) {
    if (!d.is_number_integer() || d.get<int64_t>() < 0 ||
        (d.is_number_unsigned() && d.get<uint64_t>() > (uint64_t{1} << 40))) {
      return Invalid(where, "shape dimensions must be integers >= 0");
    }
    const uint64_t dim = d.get<uint64_t>();
    tensor->add_shape(static_cast<int64_t>(dim));
    if (dim != 0 && elements > (uint64_t{1} << 40) / dim) overflow = true;
    elements *= dim;
  }
  if (overflow) return Invalid(where, "shape has more than 2^40 elements");
  bool shm = false;
  int64_t binary_size = -1;
  if (auto params = in.find("parameters"); params != in.end()) {
    if (absl::Status s =
            Parameters(*params, where, tensor->mutable_parameters(), {"binary_data_size"});
        !s.ok()) {
      return s;
    }
    shm = tensor->parameters().contains("shared_memory_region");
    if (auto b = params->find("binary_data_size"); b != params->end()) {
      if (!b->is_number_integer() || b->get<int64_t>() < 0) {
        return Invalid(where, "binary_data_size must be an integer >= 0");
      }
      binary_size = b->get<int64_t>();
    }
  }
  auto data = in.find("data");
  if (shm) {
    if (data != in.end() || binary_size >= 0) {
      return Invalid(where, "has both shared memory and data");
    }
    return absl::OkStatus();
  }
  std::string* raw = request->add_raw_input_contents();
  if (binary_size >= 0) {
    if (data != in.end()) return Invalid(where, "has both 'data' and binary_data_size");
    if (static_cast<uint64_t>(binary_size) > binary.size() - *offset) {
      return Invalid(where, absl::StrCat("binary_data_size ", binary_size, " is more than the ",
                                         binary.size() - *offset, " binary bytes left"));
    }
    if (element_size > 0 && static_cast<uint64_t>(binary_size) != elements * element_size) {
      return Invalid(
          where, absl::StrCat("binary_data_size is ", binary_size, " but shape of ", elements, " ",
                              datatype, " elements needs ", elements * element_size));
    }
    raw->assign(binary.data() + *offset, static_cast<size_t>(binary_size));
    *offset += static_cast<size_t>(binary_size);
    return absl::OkStatus();
  }
  if (data == in.end()) return Invalid(where, "has no 'data', binary_data_size or shared memory");
  if (element_size > 0)
    raw->reserve(std::min<uint64_t>(elements, kMaxInferJsonBytes) * element_size);
  uint64_t count = 0;
  if (absl::Status s = AppendData(*data, datatype, &count, raw); !s.ok()) {
    return Invalid(where, s.message());
  }
  if (count != elements) {
    return Invalid(where,
                   absl::StrCat("'data' has ", count, " elements but shape needs ", elements));
  }
  return absl::OkStatus();
}

// A tensor's raw bytes as a flat JSON array.
absl::StatusOr<json> RawToJson(absl::string_view dt, const std::string& raw) {
  json out = json::array();
  const char* p = raw.data();
  auto each = [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    if (raw.size() % sizeof(T) != 0)
      return absl::InternalError("output size is not whole elements");
    for (size_t i = 0; i < raw.size(); i += sizeof(T)) {
      T v;
      std::memcpy(&v, p + i, sizeof(T));
      if constexpr (std::is_floating_point_v<T>) {
        out.push_back(std::isfinite(v) ? json(v) : json(nullptr));
      } else {
        out.push_back(v);
      }
    }
    return absl::OkStatus();
  };
  absl::Status s;
  if (dt == "BOOL") {
    for (char c : raw) out.push_back(c != 0);
  } else if (dt == "UINT8") {
    s = each(uint8_t{});
  } else if (dt == "UINT16") {
    s = each(uint16_t{});
  } else if (dt == "UINT32") {
    s = each(uint32_t{});
  } else if (dt == "UINT64") {
    s = each(uint64_t{});
  } else if (dt == "INT8") {
    s = each(int8_t{});
  } else if (dt == "INT16") {
    s = each(int16_t{});
  } else if (dt == "INT32") {
    s = each(int32_t{});
  } else if (dt == "INT64") {
    s = each(int64_t{});
  } else if (dt == "FP32") {
    s = each(float{});
  } else if (dt == "FP64") {
    s = each(double{});
  } else if (dt == "BYTES") {
    size_t i = 0;
    while (i + 4 <= raw.size()) {
      uint32_t n;
      std::memcpy(&n, p + i, 4);
      i += 4;
      if (n > raw.size() - i) return absl::InternalError("malformed BYTES output");
      out.push_back(std::string(p + i, n));
      i += n;
    }
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("datatype ", dt, " has no JSON form; request the output as binary data"));
  }
  if (!s.ok()) return s;
  return out;
}

json ParameterToJson(const InferParameter& p) {
  switch (p.parameter_choice_case()) {
    case InferParameter::kBoolParam:
      return p.bool_param();
    case InferParameter::kInt64Param:
      return p.int64_param();
    case InferParameter::kStringParam:
      return p.string_param();
    case InferParameter::kDoubleParam:
      return p.double_param();
    case InferParameter::kUint64Param:
      return p.uint64_param();
    default:
      return nullptr;
  }
}

json ParametersToJson(const google::protobuf::Map<std::string, InferParameter>& params) {
  json out = json::object();
  for (const auto& [k, v] : params) out[k] = ParameterToJson(v);
  return out;
}

}  // namespace

absl::StatusOr<json> ParseJsonObject(absl::string_view body) {
  if (body.empty()) return json::object();
  absl::StatusOr<json> parsed = Parse(body, "request body");
  if (!parsed.ok()) return parsed.status();
  if (!parsed->is_object()) return Invalid("request body", "must be a JSON object");
  return parsed;
}

absl::StatusOr<HttpInferRequest> DecodeInferRequest(absl::string_view body, int64_t json_length,
                                                    const std::string& model,
                                                    const std::string& version) {
  if (json_length > static_cast<int64_t>(body.size())) {
    return Invalid("Inference-Header-Content-Length",
                   absl::StrCat(json_length, " is more than the body's ", body.size(), " bytes"));
  }
  const size_t header = json_length < 0 ? body.size() : static_cast<size_t>(json_length);
  if (header > kMaxInferJsonBytes) {
    return absl::ResourceExhaustedError(absl::StrCat("the JSON part of the request has ", header,
                                                     " bytes, more than ", kMaxInferJsonBytes,
                                                     "; send large tensors as binary data"));
  }
  absl::StatusOr<json> parsed = Parse(body.substr(0, header), "request");
  if (!parsed.ok()) return parsed.status();
  const json& root = *parsed;
  if (!root.is_object()) return Invalid("request", "must be a JSON object");
  const absl::string_view binary = body.substr(header);
  HttpInferRequest out;
  ModelInferRequest& request = out.request;
  request.set_model_name(model);
  request.set_model_version(version);
  if (auto id = root.find("id"); id != root.end()) {
    if (!id->is_string()) return Invalid("request", "'id' must be a string");
    request.set_id(id->get<std::string>());
  }
  if (auto params = root.find("parameters"); params != root.end()) {
    if (absl::Status s =
            Parameters(*params, "request", request.mutable_parameters(), {"binary_data_output"});
        !s.ok()) {
      return s;
    }
    if (auto b = params->find("binary_data_output"); b != params->end()) {
      if (!b->is_boolean()) return Invalid("request", "binary_data_output must be a boolean");
      out.binary_output_default = b->get<bool>();
    }
  }
  auto inputs = root.find("inputs");
  if (inputs == root.end() || !inputs->is_array()) {
    return Invalid("request", "needs an array 'inputs'");
  }
  size_t offset = 0;
  for (size_t i = 0; i < inputs->size(); ++i) {
    if (absl::Status s = DecodeInput((*inputs)[i], i, binary, &offset, &request); !s.ok()) return s;
  }
  if (offset != binary.size()) {
    return Invalid("request", absl::StrCat(binary.size() - offset,
                                           " bytes of binary data after the JSON part are not "
                                           "claimed by any input's binary_data_size"));
  }
  if (auto outputs = root.find("outputs"); outputs != root.end()) {
    if (!outputs->is_array()) return Invalid("request", "'outputs' must be an array");
    for (size_t i = 0; i < outputs->size(); ++i) {
      const json& o = (*outputs)[i];
      const std::string where = absl::StrCat("outputs[", i, "]");
      if (!o.is_object()) return Invalid(where, "must be an object");
      auto name = o.find("name");
      if (name == o.end() || !name->is_string()) return Invalid(where, "needs a string 'name'");
      auto* t = request.add_outputs();
      t->set_name(name->get<std::string>());
      if (auto params = o.find("parameters"); params != o.end()) {
        if (absl::Status s = Parameters(*params, where, t->mutable_parameters(), {"binary_data"});
            !s.ok()) {
          return s;
        }
        if (auto b = params->find("binary_data"); b != params->end()) {
          if (!b->is_boolean()) return Invalid(where, "binary_data must be a boolean");
          (b->get<bool>() ? out.binary_outputs : out.json_outputs).insert(t->name());
        }
      }
    }
  }
  return out;
}

absl::StatusOr<EncodedInferResponse> EncodeInferResponse(const ModelInferResponse& response,
                                                         const HttpInferRequest& request) {
  json root = json::object();
  root["model_name"] = response.model_name();
  root["model_version"] = response.model_version();
  if (!response.id().empty()) root["id"] = response.id();
  if (!response.parameters().empty()) root["parameters"] = ParametersToJson(response.parameters());
  json outputs = json::array();
  std::vector<const std::string*> binary;
  for (int i = 0; i < response.outputs_size(); ++i) {
    const auto& o = response.outputs(i);
    json t = json::object();
    t["name"] = o.name();
    t["datatype"] = o.datatype();
    t["shape"] = json(std::vector<int64_t>(o.shape().begin(), o.shape().end()));
    json params = ParametersToJson(o.parameters());
    const bool in_raw = i < response.raw_output_contents_size() &&
                        !o.parameters().contains("shared_memory_region") &&
                        !o.parameters().contains("vkserve_gpu_handle") &&
                        o.contents().ByteSizeLong() == 0;
    if (in_raw) {
      const std::string& raw = response.raw_output_contents(i);
      const bool as_binary =
          request.binary_outputs.contains(o.name()) ||
          (request.binary_output_default && !request.json_outputs.contains(o.name()));
      if (as_binary) {
        params["binary_data_size"] = raw.size();
        binary.push_back(&raw);
      } else {
        absl::StatusOr<json> data = RawToJson(o.datatype(), raw);
        if (!data.ok()) {
          return absl::Status(data.status().code(), absl::StrCat("output ", Quoted(o.name()), ": ",
                                                                 data.status().message()));
        }
        t["data"] = *std::move(data);
      }
    }
    if (!params.empty()) t["parameters"] = std::move(params);
    outputs.push_back(std::move(t));
  }
  root["outputs"] = std::move(outputs);
  EncodedInferResponse out;
  out.body = root.dump(-1, ' ', false, json::error_handler_t::replace);
  out.json_length = out.body.size();
  out.binary = !binary.empty();
  size_t total = out.body.size();
  for (const std::string* b : binary) total += b->size();
  out.body.reserve(total);
  for (const std::string* b : binary) out.body.append(*b);
  return out;
}

json ProtoToJson(const google::protobuf::Message& message) {
  using google::protobuf::FieldDescriptor;
  const google::protobuf::Descriptor* d = message.GetDescriptor();
  const google::protobuf::Reflection* r = message.GetReflection();
  auto scalar = [&](const FieldDescriptor* f, int index) -> json {
    const bool rep = index >= 0;
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32:
        return rep ? r->GetRepeatedInt32(message, f, index) : r->GetInt32(message, f);
      case FieldDescriptor::CPPTYPE_INT64:
        return rep ? r->GetRepeatedInt64(message, f, index) : r->GetInt64(message, f);
      case FieldDescriptor::CPPTYPE_UINT32:
        return rep ? r->GetRepeatedUInt32(message, f, index) : r->GetUInt32(message, f);
      case FieldDescriptor::CPPTYPE_UINT64:
        return rep ? r->GetRepeatedUInt64(message, f, index) : r->GetUInt64(message, f);
      case FieldDescriptor::CPPTYPE_DOUBLE:
        return rep ? r->GetRepeatedDouble(message, f, index) : r->GetDouble(message, f);
      case FieldDescriptor::CPPTYPE_FLOAT:
        return rep ? r->GetRepeatedFloat(message, f, index) : r->GetFloat(message, f);
      case FieldDescriptor::CPPTYPE_BOOL:
        return rep ? r->GetRepeatedBool(message, f, index) : r->GetBool(message, f);
      case FieldDescriptor::CPPTYPE_ENUM:
        return rep ? r->GetRepeatedEnum(message, f, index)->name() : r->GetEnum(message, f)->name();
      case FieldDescriptor::CPPTYPE_STRING:
        return rep ? r->GetRepeatedString(message, f, index) : r->GetString(message, f);
      case FieldDescriptor::CPPTYPE_MESSAGE:
        return ProtoToJson(rep ? r->GetRepeatedMessage(message, f, index)
                               : r->GetMessage(message, f));
    }
    return nullptr;
  };
  json out = json::object();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    if (f->is_map()) {
      json map = json::object();
      const FieldDescriptor* key = f->message_type()->map_key();
      const FieldDescriptor* value = f->message_type()->map_value();
      for (int j = 0; j < r->FieldSize(message, f); ++j) {
        const google::protobuf::Message& entry = r->GetRepeatedMessage(message, f, j);
        json k = ProtoToJson(entry)[key->name()];
        const std::string key_text = k.is_string() ? k.get<std::string>() : k.dump();
        map[key_text] = ProtoToJson(entry)[value->name()];
      }
      out[f->name()] = std::move(map);
    } else if (f->is_repeated()) {
      json list = json::array();
      for (int j = 0; j < r->FieldSize(message, f); ++j) list.push_back(scalar(f, j));
      out[f->name()] = std::move(list);
    } else if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (r->HasField(message, f)) out[f->name()] = scalar(f, -1);
    } else if (f->containing_oneof() == nullptr || r->HasField(message, f)) {
      out[f->name()] = scalar(f, -1);
    }
  }
  return out;
}

}  // namespace vkserve
