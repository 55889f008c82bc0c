// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/loaders/npy.h"

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>
#include <optional>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "base/status_macros.h"

namespace vkserve {
namespace {

constexpr std::string_view kMagic("\x93NUMPY", 6);
// Largest element count accepted; keeps byte counts far from overflow.
constexpr uint64_t kMaxElements = uint64_t{1} << 40;

struct Descr {
  std::string_view text;
  DataType dtype;
};
// The first entry for a dtype is the one written.
constexpr Descr kDescrs[] = {
    {"<f4", DataType::kFloat},
    {"<f8", DataType::kDouble},
    {"<f2", DataType::kFloat16},
    {"<i8", DataType::kInt64},
    {"<i4", DataType::kInt32},
    {"<i2", DataType::kInt16},
    {"|i1", DataType::kInt8},
    {"|u1", DataType::kUint8},
    {"<u2", DataType::kUint16},
    {"<u4", DataType::kUint32},
    {"<u8", DataType::kUint64},
    {"|b1", DataType::kBool},
    {"<c8", DataType::kComplex64},
    {"<c16", DataType::kComplex128},
    // NumPy has no bfloat16: raw 16-bit words as a 2-byte void, which is how
    // numpy.save writes ml_dtypes' bfloat16 ('<V2') and plain void ('|V2').
    {"<V2", DataType::kBFloat16},
    // Aliases accepted on read.
    {"|V2", DataType::kBFloat16},
    {"=V2", DataType::kBFloat16},
    {"<i1", DataType::kInt8},
    {"<u1", DataType::kUint8},
    {"<b1", DataType::kBool},
    {"=i1", DataType::kInt8},
    {"=u1", DataType::kUint8},
    {"=b1", DataType::kBool},
};

// The header is a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// This parses exactly that grammar: string keys; string, True/False or
// tuple-of-integers values.
struct NpyHeader {
  std::optional<std::string> descr;
  std::optional<bool> fortran_order;
  std::optional<std::vector<int64_t>> shape;
};

class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& name) : text_(text), name_(name) {}

  absl::StatusOr<NpyHeader> Parse() {
    NpyHeader h;
    SkipSpace();
    RETURN_IF_ERROR(Expect('{'));
    while (true) {
      SkipSpace();
      if (Peek() == '}') break;
      ASSIGN_OR_RETURN(std::string key, ParseString());
      SkipSpace();
      RETURN_IF_ERROR(Expect(':'));
      SkipSpace();
      if (key == "descr") {
        if (h.descr) return Error("'descr' appears twice");
        if (Peek() != '\'' && Peek() != '"') {
          return absl::UnimplementedError(
              absl::StrCat(name_, ": structured npy dtypes are not supported"));
        }
        ASSIGN_OR_RETURN(h.descr, ParseString());
      } else if (key == "fortran_order") {
        if (h.fortran_order) return Error("'fortran_order' appears twice");
        ASSIGN_OR_RETURN(h.fortran_order, ParseBool());
      } else if (key == "shape") {
        if (h.shape) return Error("'shape' appears twice");
        ASSIGN_OR_RETURN(h.shape, ParseTuple());
      } else {
        return Error(absl::StrCat("unexpected key '", key, "'"));
      }
      SkipSpace();
      if (Peek() == ',') {
        ++pos_;
        continue;
      }
      if (Peek() != '}') return Error("expected ',' or '}'");
    }
    ++pos_;  // '}'
    SkipSpace();
    if (pos_ != text_.size()) return Error("trailing characters after the dict");
    if (!h.descr) return Error("no 'descr'");
    if (!h.fortran_order) return Error("no 'fortran_order'");
    if (!h.shape) return Error("no 'shape'");
    return h;
  }

 private:
  absl::Status Error(absl::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat(name_, ": bad npy header (", what, ") at offset ", pos_));
  }
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  absl::Status Expect(char c) {
    if (Peek() != c) return Error(absl::StrCat("expected '", std::string(1, c), "'"));
    ++pos_;
    return absl::OkStatus();
  }
  absl::StatusOr<std::string> ParseString() {
    const char quote = Peek();
    if (quote != '\'' && quote != '"') return Error("expected a quoted string");
    const size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) return Error("unterminated string");
    std::string s(text_.substr(pos_ + 1, end - pos_ - 1));
    if (s.find('\\') != std::string::npos) return Error("escapes in strings are not supported");
    pos_ = end + 1;
    return s;
  }
  absl::StatusOr<bool> ParseBool() {
    if (text_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (text_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    return Error("expected True or False");
  }
  absl::StatusOr<std::vector<int64_t>> ParseTuple() {
    RETURN_IF_ERROR(Expect('('));
    std::vector<int64_t> dims;
    while (true) {
      SkipSpace();
      if (Peek() == ')') break;
      const size_t start = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
      int64_t d = 0;
      if (pos_ == start ||
          !absl::SimpleAtoi(absl::string_view(text_.data() + start, pos_ - start), &d)) {
        return Error("expected a non-negative integer dimension");
      }
      if (Peek() == 'L') ++pos_;  // Python 2 long suffix
      dims.push_back(d);
      if (dims.size() > 64) return Error("more than 64 dimensions");
      SkipSpace();
      if (Peek() == ',') {
        ++pos_;
        continue;
      }
      if (Peek() != ')') return Error("expected ',' or ')' in shape");
    }
    ++pos_;  // ')'
    return dims;
  }

  std::string_view text_;
  const std::string& name_;
  size_t pos_ = 0;
};

absl::StatusOr<HostTensor> ParseNpyImpl(std::string_view bytes, const std::string& name) {
  if (bytes.size() < 10 || bytes.substr(0, 6) != kMagic) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": not a .npy file (bad magic)"));
  }
  const uint8_t major = static_cast<uint8_t>(bytes[6]);
  size_t header_len = 0;
  size_t header_start = 0;
  if (major == 1) {
    header_len =
        static_cast<uint8_t>(bytes[8]) | (static_cast<size_t>(static_cast<uint8_t>(bytes[9])) << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return absl::InvalidArgumentError(absl::StrCat(name, ": truncated npy header"));
    for (int i = 3; i >= 0; --i)
      header_len = (header_len << 8) | static_cast<uint8_t>(bytes[8 + i]);
    header_start = 12;
  } else {
    return absl::UnimplementedError(absl::StrCat(name, ": unsupported .npy format version ", major,
                                                 ".",
                                                 static_cast<int>(static_cast<uint8_t>(bytes[7]))));
  }
  if (header_len > bytes.size() - header_start) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": truncated npy header (", header_len,
                                                   " bytes declared, ", bytes.size() - header_start,
                                                   " present)"));
  }
  HeaderParser parser(bytes.substr(header_start, header_len), name);
  ASSIGN_OR_RETURN(NpyHeader header, parser.Parse());
  if (*header.fortran_order) {
    return absl::UnimplementedError(
        absl::StrCat(name, ": Fortran-order arrays are not supported (save C order)"));
  }
  HostTensor t;
  const Descr* descr = nullptr;
  for (const Descr& d : kDescrs) {
    if (*header.descr == d.text) {
      descr = &d;
      break;
    }
  }
  if (descr == nullptr) {
    const bool big = !header.descr->empty() && header.descr->front() == '>';
    return absl::UnimplementedError(absl::StrCat(name, ": unsupported npy dtype '", *header.descr,
                                                 "'", big ? " (big-endian)" : ""));
  }
  t.dtype = descr->dtype;
  uint64_t n = 1;
  bool zero = false;
  for (int64_t d : *header.shape) {
    t.shape.push_back(d);
    if (d == 0) zero = true;
    if (zero) continue;
    if (static_cast<uint64_t>(d) > kMaxElements / n) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, ": npy shape (", absl::StrJoin(t.shape, ", "), ") is too large"));
    }
    n *= static_cast<uint64_t>(d);
  }
  if (zero) n = 0;
  const uint64_t size = n * DataTypeSize(t.dtype);
  const size_t data_start = header_start + header_len;
  if (bytes.size() - data_start != size) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": ", bytes.size() - data_start,
                                                   " data bytes, but ", *header.descr, " shape (",
                                                   absl::StrJoin(t.shape, ", "), ") needs ", size));
  }
  t.data.assign(bytes.begin() + static_cast<ptrdiff_t>(data_start), bytes.end());
  return t;
}

}  // namespace

std::string_view NpyDescr(DataType type) {
  for (const Descr& d : kDescrs) {
    if (d.dtype == type) return d.text;
  }
  return "";
}

absl::StatusOr<HostTensor> ParseNpy(std::string_view bytes, const std::string& name) {
  try {
    return ParseNpyImpl(bytes, name);
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(absl::StrCat(name, ": out of memory"));
  }
}

absl::StatusOr<HostTensor> ReadNpy(const std::string& path) {
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(st))
    return absl::NotFoundError(absl::StrCat(path, ": no such file"));
  if (!std::filesystem::is_regular_file(st)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a regular file"));
  }
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) return absl::NotFoundError(absl::StrCat(path, ": cannot stat: ", ec.message()));
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  std::string bytes;
  try {
    bytes.resize(static_cast<size_t>(size));
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(absl::StrCat(path, ": out of memory"));
  }
  in.read(bytes.data(), static_cast<std::streamsize>(size));
  if (static_cast<uintmax_t>(in.gcount()) != size)
    return absl::DataLossError(absl::StrCat(path, ": short read"));
  return ParseNpy(bytes, path);
}

absl::StatusOr<std::string> SerializeNpy(const HostTensor& t) {
  const std::string_view descr = NpyDescr(t.dtype);
  if (descr.empty()) {
    return absl::UnimplementedError(
        absl::StrCat("cannot write a ", std::string(DataTypeName(t.dtype)), " tensor as .npy"));
  }
  uint64_t n = 1;
  bool zero = false;
  for (int64_t d : t.shape) {
    if (d < 0)
      return absl::InvalidArgumentError(absl::StrCat("cannot write npy: negative dimension ", d));
    if (d == 0) zero = true;
    if (zero) continue;
    if (static_cast<uint64_t>(d) > kMaxElements / n) {
      return absl::InvalidArgumentError("cannot write npy: shape too large");
    }
    n *= static_cast<uint64_t>(d);
  }
  if (zero) n = 0;
  if (t.data.size() != n * DataTypeSize(t.dtype)) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot write npy: ", t.data.size(), " data bytes, but ",
                     std::string(DataTypeName(t.dtype)), " shape (", absl::StrJoin(t.shape, ", "),
                     ") needs ", n * DataTypeSize(t.dtype)));
  }
  std::string shape = absl::StrJoin(t.shape, ", ");
  if (t.shape.size() == 1) shape += ",";
  std::string header = absl::StrCat("{'descr': '", std::string(descr),
                                    "', 'fortran_order': False, 'shape': (", shape, "), }");
  // numpy.save: pad with spaces and end with '\n' so the data starts on a
  // 64-byte boundary; version 2.0 only when the length needs 4 bytes.
  const bool v2 = header.size() + 1 + 63 + 10 > 0xffff;
  const size_t prefix = v2 ? 12 : 10;
  const size_t total = prefix + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out(kMagic);
  out += static_cast<char>(v2 ? 2 : 1);
  out += '\0';
  for (size_t i = 0; i < (v2 ? 4u : 2u); ++i)
    out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  out += header;
  out.append(reinterpret_cast<const char*>(t.data.data()), t.data.size());
  return out;
}

absl::Status WriteNpy(const HostTensor& tensor, const std::string& path) {
  ASSIGN_OR_RETURN(std::string bytes, SerializeNpy(tensor));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return absl::PermissionDeniedError(absl::StrCat("cannot write ", path));
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) return absl::DataLossError(absl::StrCat("writing ", path, " failed"));
  return absl::OkStatus();
}

}  // namespace vkserve
