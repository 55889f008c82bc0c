// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Host <-> GPU copies for data that moves outside a recorded run: weights at
// load time, test data, reading a resident output. A host-visible buffer is
// written or read directly through its mapping (the H100 exposes all VRAM this
// way); otherwise the bytes go through a staging buffer and a copy command,
// submitted and waited for here. Hot paths record their copies into their own
// command buffers instead.
//
// Thread-safe as far as the buffers are: REQUIRES no GPU work uses the
// destination range during Upload, or writes the source range during Download.
#ifndef VKSERVE_GPU_TRANSFER_H_
#define VKSERVE_GPU_TRANSFER_H_

#include <cstdint>
#include <span>

#include "absl/status/status.h"
#include "gpu/allocator.h"
#include "gpu/buffer.h"
#include "gpu/device.h"

namespace vkserve::gpu {

enum class TransferPath { kAuto, kStaging };

// Copies `data` into `dst` at `offset`. OUT_OF_RANGE if it does not fit.
absl::Status Upload(Allocator& allocator, const Buffer& dst, uint64_t offset,
                    std::span<const uint8_t> data, TransferPath path = TransferPath::kAuto);

// Copies `out.size()` bytes of `src` starting at `offset` into `out`.
absl::Status Download(Allocator& allocator, const Buffer& src, uint64_t offset,
                      std::span<uint8_t> out, TransferPath path = TransferPath::kAuto);

// One buffer-to-buffer copy on the GPU.
struct RangeCopy {
  BufferRange src;
  BufferRange dst;  // same size as src
};

// Runs `copies` on the GPU in one submission (barriers where a copy reads
// what an earlier one wrote) and waits for them: gathering a batch's input
// from several resident tensors, or slicing a batch's resident output into
// one tensor per request. The buffers must outlive the call.
absl::Status CopyOnGpu(const Device& device, std::span<const RangeCopy> copies);

}  // namespace vkserve::gpu

#endif  // VKSERVE_GPU_TRANSFER_H_
