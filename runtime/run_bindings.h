// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// RunBindings: a RunRequest checked against its model before anything runs.
// Each input binding is matched to the model input it names (once each, none
// missing); its type and rank are checked, its element count computed
// without overflow, and its host bytes compared with its shape; readers and
// device buffers are looked up; the requested output locations resolved.
// Requests are untrusted: every mismatch is INVALID_ARGUMENT naming the input
// or output.
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
#include "runtime/session.h"

namespace vkserve {

struct RunBindings {
  // Per model input, in the model's order.
  std::vector<const InputBinding*> bound;
  std::vector<std::vector<int64_t>> shapes;
  std::vector<uint64_t> host_bytes;                               // 0 for device inputs
  std::vector<const HostInputReader*> readers;                    // nullptr: bytes from the view
  std::vector<std::shared_ptr<const gpu::Buffer>> device_inputs;  // nullptr: host input
  // Per model output: whether it goes to host bytes (else stays on the GPU).
  std::vector<bool> host_outputs;

  static absl::StatusOr<RunBindings> Bind(const Model& model, const RunRequest& request);

  // The values of the inputs that set shapes or bounds
  // (Model::is_value_input), read on the host to choose the plan; empty when
  // the model has none. Such an input must come in host memory.
  absl::StatusOr<InputValues> ReadValueInputs(const Model& model) const;
};

// A host view's size: its data, or its parts together.
uint64_t HostViewBytes(const HostTensorView& view);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_RUN_BINDINGS_H_
