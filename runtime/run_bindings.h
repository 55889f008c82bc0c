// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// RunBindings: a RunRequest checked against its model before anything runs.
// Each input binding is matched to the model input it names (once each, none
// missing) and checked against it (CheckInput: dtype, rank, dimensions,
// element count without overflow, byte size); device buffers are looked up;
// each output binding is matched to the model output it names (once each)
// and its location and sink resolved. Requests are untrusted: every mismatch
// is INVALID_ARGUMENT naming the input or output.
//
// Holds pointers into the request: valid while the request lives. A value
// type; not thread-safe.
#ifndef VKSERVE_RUNTIME_RUN_BINDINGS_H_
#define VKSERVE_RUNTIME_RUN_BINDINGS_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "gpu/buffer.h"
#include "runtime/model.h"
#include "runtime/plan/plan.h"
#include "runtime/run_request.h"

namespace vkserve {

struct RunBindings {
  // Per model input, in the model's order.
  std::vector<const InputBinding*> bound;
  std::vector<std::vector<int64_t>> shapes;
  std::vector<uint64_t> host_bytes;                               // 0 for device inputs
  std::vector<std::shared_ptr<const gpu::Buffer>> device_inputs;  // nullptr: host input
  // Per model output, in the model's order.
  std::vector<OutputLocation> locations;
  std::vector<const OutputSink*> sinks;  // nullptr: none
  // Whether it goes to host bytes (else stays on the GPU).
  std::vector<bool> host_outputs;

  static absl::StatusOr<RunBindings> Bind(const Model& model, const RunRequest& request);

  // The values of the inputs that set shapes or bounds
  // (Model::is_value_input), read on the host to choose the plan; empty when
  // the model has none. Such an input must come in host memory.
  absl::StatusOr<InputValues> ReadValueInputs(const Model& model) const;
};

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_RUN_BINDINGS_H_
