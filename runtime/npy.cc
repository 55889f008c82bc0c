// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/npy.h"

#include <cstring>
#include <fstream>
#include <iterator>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gpu/status_macros.h"

namespace vkserve {
namespace {

constexpr char kMagic[] = "\x93NUMPY";

struct Descr {
  const char* text;
  DataType dtype;
};
constexpr Descr kDescrs[] = {
    {"<f4", DataType::kFloat},  {"<f8", DataType::kDouble}, {"<f2", DataType::kFloat16},
    {"<i8", DataType::kInt64},  {"<i4", DataType::kInt32},  {"<i2", DataType::kInt16},
    {"|i1", DataType::kInt8},   {"<i1", DataType::kInt8},   {"|u1", DataType::kUint8},
    {"<u1", DataType::kUint8},  {"<u2", DataType::kUint16}, {"<u4", DataType::kUint32},
    {"<u8", DataType::kUint64}, {"|b1", DataType::kBool},
};

// The value of 'key' in the header dict, as raw text up to the next
// top-level comma or closing brace.
absl::StatusOr<std::string> DictValue(const std::string& header, const std::string& key,
                                      const std::string& name) {
  const size_t k = header.find("'" + key + "'");
  if (k == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": npy header lacks '", key, "'"));
  }
  size_t p = header.find(':', k);
  if (p == std::string::npos) return absl::InvalidArgumentError(absl::StrCat(name, ": bad npy header"));
  ++p;
  int depth = 0;
  size_t end = p;
  for (; end < header.size(); ++end) {
    const char c = header[end];
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (depth == 0 && (c == ',' || c == '}')) break;
  }
  std::string value = header.substr(p, end - p);
  return std::string(absl::StripAsciiWhitespace(value));
}

}  // namespace

absl::StatusOr<HostTensor> ParseNpy(std::string_view bytes, const std::string& name) {
  if (bytes.size() < 10 || std::memcmp(bytes.data(), kMagic, 6) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": not a .npy file"));
  }
  const uint8_t major = static_cast<uint8_t>(bytes[6]);
  size_t header_len, header_start;
  if (major == 1) {
    header_len = static_cast<uint8_t>(bytes[8]) | (static_cast<uint8_t>(bytes[9]) << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return absl::InvalidArgumentError(absl::StrCat(name, ": truncated"));
    uint32_t len;
    std::memcpy(&len, bytes.data() + 8, 4);
    header_len = len;
    header_start = 12;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(name, ": unsupported .npy version ", major));
  }
  if (header_len > bytes.size() - header_start) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": truncated header"));
  }
  const std::string header(bytes.substr(header_start, header_len));
  ASSIGN_OR_RETURN(std::string descr, DictValue(header, "descr", name));
  ASSIGN_OR_RETURN(std::string fortran, DictValue(header, "fortran_order", name));
  ASSIGN_OR_RETURN(std::string shape_text, DictValue(header, "shape", name));
  if (fortran != "False") {
    return absl::UnimplementedError(absl::StrCat(name, ": Fortran-order arrays are not supported"));
  }
  descr = std::string(absl::StripSuffix(absl::StripPrefix(descr, "'"), "'"));
  HostTensor t;
  bool known = false;
  for (const Descr& d : kDescrs) {
    if (descr == d.text) {
      t.dtype = d.dtype;
      known = true;
    }
  }
  if (!known) {
    return absl::UnimplementedError(absl::StrCat(name, ": unsupported npy dtype ", descr));
  }
  if (shape_text.size() < 2 || shape_text.front() != '(' || shape_text.back() != ')') {
    return absl::InvalidArgumentError(absl::StrCat(name, ": bad shape ", shape_text));
  }
  uint64_t n = 1;
  for (absl::string_view part : absl::StrSplit(shape_text.substr(1, shape_text.size() - 2), ',')) {
    part = absl::StripAsciiWhitespace(part);
    if (part.empty()) continue;
    int64_t d;
    if (!absl::SimpleAtoi(part, &d) || d < 0 || (d > 0 && n > (uint64_t{1} << 40) / d)) {
      return absl::InvalidArgumentError(absl::StrCat(name, ": bad dimension in ", shape_text));
    }
    t.shape.push_back(d);
    n *= static_cast<uint64_t>(d);
  }
  const uint64_t size = n * DataTypeSize(t.dtype);
  const size_t data_start = header_start + header_len;
  if (bytes.size() - data_start != size) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": ", bytes.size() - data_start,
                                                   " data bytes, shape needs ", size));
  }
  t.data.assign(bytes.begin() + static_cast<long>(data_start), bytes.end());
  return t;
}

absl::StatusOr<HostTensor> ReadNpy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open ", path));
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return ParseNpy(bytes, path);
}

absl::StatusOr<std::string> SerializeNpy(const HostTensor& t) {
  const char* descr = nullptr;
  for (const Descr& d : kDescrs) {
    if (d.dtype == t.dtype && descr == nullptr) descr = d.text;
  }
  if (descr == nullptr) {
    return absl::UnimplementedError(absl::StrCat("cannot write ", std::string(DataTypeName(t.dtype)), " as npy"));
  }
  std::string shape = absl::StrJoin(t.shape, ", ");
  if (t.shape.size() == 1) shape += ",";
  std::string header = absl::StrCat("{'descr': '", descr, "', 'fortran_order': False, 'shape': (", shape, "), }");
  // Pad so the data starts on a 64-byte boundary, header ends with '\n'.
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out(kMagic, 6);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  out.append(reinterpret_cast<const char*>(t.data.data()), t.data.size());
  return out;
}

absl::Status WriteNpy(const HostTensor& tensor, const std::string& path) {
  ASSIGN_OR_RETURN(std::string bytes, SerializeNpy(tensor));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return absl::PermissionDeniedError(absl::StrCat("cannot write ", path));
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) return absl::InternalError(absl::StrCat("writing ", path, " failed"));
  return absl::OkStatus();
}

}  // namespace vkserve
