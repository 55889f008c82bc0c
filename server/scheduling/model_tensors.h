// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The translation between runtime/'s view of a model's tensors (DataType,
// ValueInfo) and config/'s (inference::DataType, ModelTensor). It lives in
// server/, the layer that joins the two, so that config/ need not know the
// runtime and the runtime need not know the protocol's config types.
//
// Stateless functions over plain data; thread-safe.
#ifndef VKSERVE_SERVER_SCHEDULING_MODEL_TENSORS_H_
#define VKSERVE_SERVER_SCHEDULING_MODEL_TENSORS_H_

#include <vector>

#include "config/model_tensor.h"
#include "proto/model_config.pb.h"
#include "runtime/ir/data_type.h"
#include "runtime/ir/graph.h"

namespace vkserve {

// TYPE_INVALID / kUndefined for types with no counterpart (complex numbers;
// strings have TYPE_STRING, which vkserve refuses to serve).
inference::DataType ToConfigDataType(DataType type);
DataType FromConfigDataType(inference::DataType type);

// A declared model tensor as config/ checks it: the type converted (its ONNX
// name kept for messages), symbolic dimensions as -1 with their names.
ModelTensor ToModelTensor(const ValueInfo& info);
std::vector<ModelTensor> ToModelTensors(const std::vector<ValueInfo>& infos);

}  // namespace vkserve

#endif  // VKSERVE_SERVER_SCHEDULING_MODEL_TENSORS_H_
