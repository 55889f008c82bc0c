// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// A model's warm-up samples (Triton's model_warmup): requests each session
// runs before the model serves, so the shapes clients will send are planned
// and recorded at load. Checked in the two phases model_config.h describes:
// CheckWarmupText on the text alone (sizes, data choice, file names),
// CheckWarmupInputs against the model's inputs. The bytes themselves (zeros,
// random values, a file under <model directory>/warmup/) are made by the
// server (server/scheduling/warmup_runs.h).
//
// Stateless functions over plain data; thread-safe.
#ifndef VKSERVE_CONFIG_MODEL_WARMUP_H_
#define VKSERVE_CONFIG_MODEL_WARMUP_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "config/config_source.h"
#include "config/model_tensor.h"
#include "proto/model_config.pb.h"

namespace vkserve {

struct WarmupSample {
  std::string name;    // the config's, or "model_warmup[i]" when empty
  int batch_size = 1;  // rows; the leading dimension when max_batch_size > 0
  int count = 1;       // runs per session
  enum class Fill { kZero, kRandom, kFile };
  struct Input {
    inference::DataType data_type = inference::TYPE_INVALID;
    std::vector<int64_t> shape;  // full: the batch dimension included
    Fill fill = Fill::kZero;
    std::string file;  // kFile: relative to <model directory>/warmup/
    // Bytes of one batch element (the file's size for kFile).
    uint64_t element_bytes = 0;
  };
  std::map<std::string, Input> inputs;  // every model input, by name
};

// Most bytes one sample's inputs may take together: warm-up data is made in
// host memory at load, and a config is not trusted to size it.
inline constexpr uint64_t kMaxWarmupBytes = uint64_t{1} << 30;
// Most runs of one sample per session.
inline constexpr int kMaxWarmupCount = 1000;

// Phase 1: every sample of `config.model_warmup` on its own terms. Errors
// name the field: a batch size of 0 or above max_batch_size (any but 1
// without a batch dimension), no inputs, a missing or unservable data type,
// a dimension that is not a concrete size, no data choice, a file name that
// is absolute or leaves the warmup directory, too many bytes or runs.
absl::Status CheckWarmupText(const ConfigSource& src, const inference::ModelConfig& config);

// Phase 2: each sample's inputs against the model's (`config.input` already
// matched to them): the same names, data types and ranks, and the sizes the
// model file fixes. Fills `samples` in config order.
absl::Status CheckWarmupInputs(const ConfigSource& src, const inference::ModelConfig& config,
                               const std::vector<ModelTensor>& inputs,
                               std::vector<WarmupSample>* samples);

}  // namespace vkserve

#endif  // VKSERVE_CONFIG_MODEL_WARMUP_H_
