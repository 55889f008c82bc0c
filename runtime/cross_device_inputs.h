// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Cross-device inputs: a GPU-resident output (DeviceTensor) stays on the GPU
// that produced it; a model served on several GPUs may run the request that
// feeds it back on another GPU, whose device cannot bind that buffer. Such
// an input is read back into host memory and bound as a host input, which
// the run uploads to its own device: one copy through the host, counted so
// that metrics show it (vkserve_cross_device_copies_total, _bytes_total).
// Inputs on the run's own device are bound as they are, without a copy.
//
// Thread-compatible: one call per run, on the thread that runs it.
#ifndef VKSERVE_RUNTIME_CROSS_DEVICE_INPUTS_H_
#define VKSERVE_RUNTIME_CROSS_DEVICE_INPUTS_H_

#include <cstdint>
#include <deque>

#include "absl/status/status.h"
#include "runtime/ir/graph.h"
#include "runtime/run_request.h"

namespace vkserve {

namespace gpu {
class Device;
}  // namespace gpu

struct CrossDeviceCopies {
  uint64_t copies = 0;  // inputs copied
  uint64_t bytes = 0;   // their bytes
  // The copied bytes, which the rebound inputs view: keep until the run ends.
  std::deque<HostTensor> held;
};

// Rebinds every GPU-resident input of `run` held by a device other than
// `device` as a host input viewing a copy in `copies->held`. `copies` must
// outlive the run. The tensor's error (FAILED_PRECONDITION once released,
// or the read-back's) when one cannot be read.
absl::Status LocalizeInputs(const gpu::Device* device, RunRequest* run, CrossDeviceCopies* copies);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_CROSS_DEVICE_INPUTS_H_
