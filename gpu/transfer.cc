// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "gpu/transfer.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "gpu/command_buffer.h"
#include "gpu/queue.h"

namespace vkserve::gpu {
namespace {

absl::Status CheckRange(const Buffer& buffer, uint64_t offset, uint64_t size) {
  if (offset > buffer.size() || size > buffer.size() - offset) {
    return absl::OutOfRangeError(absl::StrCat("transfer of ", size, " bytes at offset ", offset,
                                              " exceeds a buffer of ", buffer.size()));
  }
  return absl::OkStatus();
}

// Records and runs one copy, waiting for it.
absl::Status RunCopy(const Device& device, const BufferRange& src, const BufferRange& dst) {
  ASSIGN_OR_RETURN(auto cb, CommandBuffer::Create(device));
  RETURN_IF_ERROR(cb->Begin());
  RETURN_IF_ERROR(cb->Copy(src, dst, "transfer"));
  RETURN_IF_ERROR(cb->End());
  ASSIGN_OR_RETURN(uint64_t value, device.queue().Submit(*cb));
  return device.queue().Wait(value);
}

}  // namespace

absl::Status Upload(Allocator& allocator, const Buffer& dst, uint64_t offset,
                    std::span<const uint8_t> data, TransferPath path) {
  RETURN_IF_ERROR(CheckRange(dst, offset, data.size()));
  if (data.empty()) return absl::OkStatus();
  if (dst.mapped() != nullptr && path == TransferPath::kAuto) {
    std::memcpy(dst.mapped() + offset, data.data(), data.size());
    dst.FlushHostWrites(offset, data.size());
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(Buffer staging,
                   allocator.Allocate(data.size(), MemoryUsage::kHostUpload, MemoryKind::kStaging));
  if (staging.mapped() == nullptr) return absl::InternalError("staging memory is not mapped");
  std::memcpy(staging.mapped(), data.data(), data.size());
  staging.FlushHostWrites(0, data.size());
  return RunCopy(allocator.device(), staging.range(0, data.size()), dst.range(offset, data.size()));
}

absl::Status CopyOnGpu(const Device& device, std::span<const RangeCopy> copies) {
  if (copies.empty()) return absl::OkStatus();
  ASSIGN_OR_RETURN(auto cb, CommandBuffer::Create(device));
  RETURN_IF_ERROR(cb->Begin());
  for (const RangeCopy& c : copies) {
    if (c.src.size != c.dst.size) {
      return absl::InvalidArgumentError(
          absl::StrCat("copy of ", c.src.size, " bytes into a range of ", c.dst.size));
    }
    if (c.src.size > 0) RETURN_IF_ERROR(cb->Copy(c.src, c.dst, "gather"));
  }
  RETURN_IF_ERROR(cb->End());
  ASSIGN_OR_RETURN(uint64_t value, device.queue().Submit(*cb));
  return device.queue().Wait(value);
}

absl::Status Download(Allocator& allocator, const Buffer& src, uint64_t offset,
                      std::span<uint8_t> out, TransferPath path) {
  RETURN_IF_ERROR(CheckRange(src, offset, out.size()));
  if (out.empty()) return absl::OkStatus();
  if (src.mapped() != nullptr && path == TransferPath::kAuto) {
    src.InvalidateForHostRead(offset, out.size());
    std::memcpy(out.data(), src.mapped() + offset, out.size());
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(Buffer staging, allocator.Allocate(out.size(), MemoryUsage::kHostReadback,
                                                      MemoryKind::kStaging));
  if (staging.mapped() == nullptr) return absl::InternalError("staging memory is not mapped");
  RETURN_IF_ERROR(
      RunCopy(allocator.device(), src.range(offset, out.size()), staging.range(0, out.size())));
  staging.InvalidateForHostRead(0, out.size());
  std::memcpy(out.data(), staging.mapped(), out.size());
  return absl::OkStatus();
}

}  // namespace vkserve::gpu
