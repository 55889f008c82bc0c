// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ModelTensor: a model input or output as the configuration layer sees it —
// name, protocol data type and declared shape. It is config/'s own picture
// of a model file's tensors, so that config/ checks and derives configs
// without depending on runtime/ (which owns the model loaders). server/
// builds these from the loaded model (server/scheduling/model_tensors.h); tests build
// them by hand.
//
// Plain data and stateless functions; thread-safe.
#ifndef VKSERVE_CONFIG_MODEL_TENSOR_H_
#define VKSERVE_CONFIG_MODEL_TENSOR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "proto/model_config.pb.h"

namespace vkserve {

// One declared dimension. A symbolic dimension keeps its name and
// denotation because free dimension overrides refer to them.
struct ModelDim {
  int64_t size = -1;       // >= 0: fixed by the model file; -1: symbolic
  std::string symbol;      // the symbolic name ("N"); may be empty
  std::string denotation;  // e.g. "DATA_BATCH"; may be empty
  bool is_fixed() const { return size >= 0; }
};

struct ModelTensor {
  std::string name;
  // TYPE_INVALID when the protocol cannot carry the model's type (complex
  // numbers); such a tensor cannot be served.
  inference::DataType data_type = inference::TYPE_INVALID;
  // The model file's own name for the type ("float", "complex64"): errors
  // about types the protocol has no name for still say what the file holds.
  std::string type_name;
  bool has_shape = false;  // false: rank unknown, `dims` empty
  std::vector<ModelDim> dims;
};

// The declared shape for messages: "[N,3,16,16]", "?" for an unnamed
// symbolic dimension, "[unknown rank]" without a shape.
std::string ShapeString(const ModelTensor& tensor);

}  // namespace vkserve

#endif  // VKSERVE_CONFIG_MODEL_TENSOR_H_
