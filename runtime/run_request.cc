// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/run_request.h"

#include <cstdlib>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/quote.h"
#include "base/status_macros.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

// KServe's name where the type has one ("FP32"), else ONNX's: the names
// clients send.
std::string TypeName(DataType dtype) {
  const std::string_view kserve = DataTypeKServeName(dtype);
  return std::string(kserve.empty() ? DataTypeName(dtype) : kserve);
}

absl::Status Invalid(const std::string& input, const std::string& message) {
  return absl::InvalidArgumentError(absl::StrCat("input ", Quoted(input), ": ", message));
}

uint64_t PiecesBytes(const HostPieces& pieces) {
  uint64_t total = 0;
  for (std::span<const uint8_t> piece : pieces) total += piece.size();
  return total;
}

}  // namespace

InputBinding InputBinding::Host(std::string name, DataType dtype, std::vector<int64_t> shape,
                                HostBytes bytes) {
  return {std::move(name), dtype, std::move(shape), bytes};
}

InputBinding InputBinding::Host(std::string name, const HostTensor& tensor) {
  return {std::move(name), tensor.dtype, tensor.shape, HostBytes(tensor.data)};
}

InputBinding InputBinding::Pieces(std::string name, DataType dtype, std::vector<int64_t> shape,
                                  HostPieces pieces) {
  return {std::move(name), dtype, std::move(shape), std::move(pieces)};
}

InputBinding InputBinding::Read(std::string name, DataType dtype, std::vector<int64_t> shape,
                                HostInputReader reader) {
  return {std::move(name), dtype, std::move(shape), std::move(reader)};
}

InputBinding InputBinding::Device(std::string name, DeviceInput tensor) {
  const DataType dtype = tensor->dtype();
  std::vector<int64_t> shape = tensor->shape();
  return {std::move(name), dtype, std::move(shape), std::move(tensor)};
}

DeviceTensor* InputBinding::device() const {
  const DeviceInput* tensor = std::get_if<DeviceInput>(&source);
  return tensor != nullptr ? tensor->get() : nullptr;
}

absl::Status CopyHostInput(const InputBinding& binding, std::span<uint8_t> to) {
  if (const auto* reader = std::get_if<HostInputReader>(&binding.source)) return (*reader)(to);
  HostPieces one;
  const HostPieces* pieces = std::get_if<HostPieces>(&binding.source);
  if (const auto* bytes = std::get_if<HostBytes>(&binding.source)) {
    one.push_back(*bytes);
    pieces = &one;
  }
  if (pieces == nullptr) std::abort();  // a resident input has no host bytes
  if (PiecesBytes(*pieces) != to.size()) {
    return absl::InternalError(absl::StrCat("input ", Quoted(binding.name), ": ",
                                            PiecesBytes(*pieces), " bytes for ", to.size()));
  }
  for (std::span<const uint8_t> piece : *pieces) {
    if (!piece.empty()) std::memcpy(to.data(), piece.data(), piece.size());
    to = to.subspan(piece.size());
  }
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> CheckInputShape(const ValueInfo& declared, DataType dtype,
                                         const std::vector<int64_t>& shape) {
  const std::string& name = declared.name;
  if (dtype != declared.type.dtype) {
    return Invalid(name, absl::StrCat("datatype ", TypeName(dtype), " but the model expects ",
                                      TypeName(declared.type.dtype)));
  }
  uint64_t count = 1;
  for (int64_t d : shape) {
    if (d < 0) {
      return Invalid(name, absl::StrCat("shape ", ShapeString(shape), " has a negative dimension"));
    }
    if (static_cast<uint64_t>(d) > kMaxInputElements ||
        (d > 0 && count > kMaxInputElements / static_cast<uint64_t>(d))) {
      return Invalid(name, absl::StrCat("shape ", ShapeString(shape), " is too large"));
    }
    count *= static_cast<uint64_t>(d);
  }
  const TensorType& type = declared.type;
  if (type.has_shape) {
    if (shape.size() != type.shape.size()) {
      return Invalid(name, absl::StrCat("shape ", ShapeString(shape), " has rank ", shape.size(),
                                        " but the model expects rank ", type.shape.size()));
    }
    for (size_t i = 0; i < shape.size(); ++i) {
      if (type.shape[i].is_fixed() && type.shape[i].value != shape[i]) {
        return Invalid(
            name, absl::StrCat("shape ", ShapeString(shape), ": dimension ", i, " is ", shape[i],
                               " but the model fixes it at ", type.shape[i].value));
      }
    }
  }
  // count <= 2^40 and an element <= 16 bytes: no overflow.
  return count * DataTypeSize(dtype);
}

absl::StatusOr<uint64_t> CheckInput(const ValueInfo& declared, const InputBinding& binding) {
  if (const auto* resident = std::get_if<DeviceInput>(&binding.source)) {
    const DeviceTensor* tensor = resident->get();
    if (tensor == nullptr) return Invalid(binding.name, "has no GPU tensor");
    if (tensor->dtype() != binding.dtype || tensor->shape() != binding.shape) {
      return Invalid(binding.name,
                     absl::StrCat("bound as ", TypeName(binding.dtype), ShapeString(binding.shape),
                                  " but its GPU tensor is ", TypeName(tensor->dtype()),
                                  ShapeString(tensor->shape())));
    }
  }
  ASSIGN_OR_RETURN(const uint64_t bytes, CheckInputShape(declared, binding.dtype, binding.shape));
  uint64_t given = bytes;
  if (const auto* host = std::get_if<HostBytes>(&binding.source)) given = host->size();
  if (const auto* pieces = std::get_if<HostPieces>(&binding.source)) given = PiecesBytes(*pieces);
  if (given != bytes) {
    return Invalid(binding.name,
                   absl::StrCat("holds ", given, " bytes but shape ", ShapeString(binding.shape),
                                " of ", TypeName(binding.dtype), " needs ", bytes));
  }
  return bytes;
}

const InputBinding* RunRequest::FindInput(const std::string& name) const {
  for (const InputBinding& b : inputs) {
    if (b.name == name) return &b;
  }
  return nullptr;
}

const OutputBinding* RunRequest::FindOutput(const std::string& name) const {
  for (const OutputBinding& o : outputs) {
    if (o.name == name) return &o;
  }
  return nullptr;
}

OutputBinding& RunRequest::Output(const std::string& name) {
  for (OutputBinding& o : outputs) {
    if (o.name == name) return o;
  }
  return outputs.emplace_back(OutputBinding{name, OutputLocation::kHost, nullptr});
}

}  // namespace vkserve
