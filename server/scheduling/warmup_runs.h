// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// WarmupRuns: a model's warm-up samples (config/model_warmup.h) with their
// input bytes made once at load — zeros, random values, or a file from
// <model directory>/warmup/ repeated for each row — ready to run on each
// session before the model serves (Triton's model_warmup). The schedulers
// run them as they create their sessions; a failing sample fails the load.
// Zeros makes runs of zeros at given shapes the same way (the dynamic
// batcher's padding targets, a reloaded model's best-effort warm-up).
//
// Immutable after Build; RunOn may be called from several threads at once
// (on different sessions).
#ifndef VKSERVE_SERVER_SCHEDULING_WARMUP_RUNS_H_
#define VKSERVE_SERVER_SCHEDULING_WARMUP_RUNS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "config/model_config.h"
#include "runtime/session.h"

namespace vkserve {

class WarmupRuns {
 public:
  // The samples of `settings` (validated against `model`), their files read
  // from `model_directory`/warmup/. INVALID_ARGUMENT names the sample and
  // input for a missing file, one of the wrong size or one that leaves the
  // warmup directory.
  static absl::StatusOr<std::shared_ptr<const WarmupRuns>> Build(
      const ModelSettings& settings, const Model& model, const std::string& model_directory);

  // One run of zeros per entry of `shapes` (each the model's input shapes,
  // in its input order), labelled by the matching entry of `labels` in
  // RunOn's errors. Precondition: shapes and labels have the same size and
  // each entry one shape per model input. INVALID_ARGUMENT when a run would
  // exceed 1 GiB of input bytes.
  static absl::StatusOr<std::shared_ptr<const WarmupRuns>> Zeros(
      const Model& model, const std::vector<std::vector<std::vector<int64_t>>>& shapes,
      const std::vector<std::string>& labels);

  bool empty() const { return samples_.empty(); }
  size_t size() const { return samples_.size(); }
  // Sample i (< size()) as one run's request. Its inputs view this object's
  // bytes: it must outlive the run.
  RunRequest Request(size_t i) const;

  // Runs every sample its count of times on `session`, in config order; the
  // first failure, prefixed with the sample's label.
  absl::Status RunOn(Session& session) const;

  // Builds the plan of every distinct sample shape in parallel (ParallelFor),
  // before a session runs them: planning compiles pipelines (seconds a plan
  // at FP16 on some drivers), and each shape's plan is independent of the
  // others, so a batcher's preferred sizes plan side by side instead of one
  // after another in the first session's RunOn. A
  // no-op for models whose plans need more than shapes (value inputs, a sync
  // split): their runs plan as they go. The first failure in sample order,
  // prefixed with the sample's label.
  absl::Status Plan(const Model& model) const;

  // Each sample's input shapes in the model's input order.
  std::vector<std::vector<std::vector<int64_t>>> Shapes() const;

 private:
  struct Input {
    std::string name;
    DataType dtype = DataType::kUndefined;
    std::vector<int64_t> shape;
    std::vector<uint8_t> bytes;
  };
  struct Sample {
    std::string label;  // what an error names: `model_warmup "name"`
    int count = 1;
    std::vector<Input> inputs;  // the model's input order
  };

  std::vector<Sample> samples_;
  std::map<std::string, OutputLocation> output_locations_;
};

}  // namespace vkserve

#endif  // VKSERVE_SERVER_SCHEDULING_WARMUP_RUNS_H_
