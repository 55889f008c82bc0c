// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/scheduling/model_tensors.h"

#include <string>

namespace vkserve {

inference::DataType ToConfigDataType(DataType type) {
  switch (type) {
    case DataType::kFloat:
      return inference::TYPE_FP32;
    case DataType::kUint8:
      return inference::TYPE_UINT8;
    case DataType::kInt8:
      return inference::TYPE_INT8;
    case DataType::kUint16:
      return inference::TYPE_UINT16;
    case DataType::kInt16:
      return inference::TYPE_INT16;
    case DataType::kInt32:
      return inference::TYPE_INT32;
    case DataType::kInt64:
      return inference::TYPE_INT64;
    case DataType::kString:
      return inference::TYPE_STRING;
    case DataType::kBool:
      return inference::TYPE_BOOL;
    case DataType::kFloat16:
      return inference::TYPE_FP16;
    case DataType::kDouble:
      return inference::TYPE_FP64;
    case DataType::kUint32:
      return inference::TYPE_UINT32;
    case DataType::kUint64:
      return inference::TYPE_UINT64;
    case DataType::kBFloat16:
      return inference::TYPE_BF16;
    default:
      return inference::TYPE_INVALID;
  }
}

DataType FromConfigDataType(inference::DataType type) {
  switch (type) {
    case inference::TYPE_BOOL:
      return DataType::kBool;
    case inference::TYPE_UINT8:
      return DataType::kUint8;
    case inference::TYPE_UINT16:
      return DataType::kUint16;
    case inference::TYPE_UINT32:
      return DataType::kUint32;
    case inference::TYPE_UINT64:
      return DataType::kUint64;
    case inference::TYPE_INT8:
      return DataType::kInt8;
    case inference::TYPE_INT16:
      return DataType::kInt16;
    case inference::TYPE_INT32:
      return DataType::kInt32;
    case inference::TYPE_INT64:
      return DataType::kInt64;
    case inference::TYPE_FP16:
      return DataType::kFloat16;
    case inference::TYPE_FP32:
      return DataType::kFloat;
    case inference::TYPE_FP64:
      return DataType::kDouble;
    case inference::TYPE_STRING:
      return DataType::kString;
    case inference::TYPE_BF16:
      return DataType::kBFloat16;
    default:
      return DataType::kUndefined;
  }
}

ModelTensor ToModelTensor(const ValueInfo& info) {
  ModelTensor tensor;
  tensor.name = info.name;
  tensor.data_type = ToConfigDataType(info.type.dtype);
  tensor.type_name = std::string(DataTypeName(info.type.dtype));
  tensor.has_shape = info.type.has_shape;
  for (const Dim& d : info.type.shape) {
    tensor.dims.push_back(ModelDim{d.is_fixed() ? d.value : -1, d.param, d.denotation});
  }
  return tensor;
}

std::vector<ModelTensor> ToModelTensors(const std::vector<ValueInfo>& infos) {
  std::vector<ModelTensor> tensors;
  tensors.reserve(infos.size());
  for (const ValueInfo& info : infos) tensors.push_back(ToModelTensor(info));
  return tensors;
}

}  // namespace vkserve
