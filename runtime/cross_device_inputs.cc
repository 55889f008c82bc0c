// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/cross_device_inputs.h"

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace vkserve {

absl::Status LocalizeInputs(const gpu::Device* device, RunRequest* run, CrossDeviceCopies* copies) {
  for (InputBinding& b : run->inputs) {
    DeviceTensor* tensor = b.device();
    if (tensor == nullptr || tensor->device() == device) continue;
    absl::StatusOr<HostTensor> host = tensor->Read();
    if (!host.ok()) {
      return absl::Status(
          host.status().code(),
          absl::StrCat("input '", b.name,
                       "': copying it from the GPU that holds it: ", host.status().message()));
    }
    ++copies->copies;
    copies->bytes += host->byte_size();
    const HostTensor& held = copies->held.emplace_back(*std::move(host));
    b.source = HostBytes(held.data);
  }
  return absl::OkStatus();
}

}  // namespace vkserve
