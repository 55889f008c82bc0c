// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/exec/chunked_readback.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>
#include <utility>

#include "base/status_macros.h"
#include "gpu/parallel_copy.h"

namespace vkserve {

absl::StatusOr<ReadbackChunks> PlanReadbackChunks(const gpu::Device& device, uint64_t size,
                                                  uint64_t min_bytes, uint64_t chunk_bytes) {
  ReadbackChunks chunks;
  if (min_bytes == 0 || size < min_bytes) return chunks;
  constexpr uint64_t kMaxChunks = 64;
  const uint64_t chunk = std::max({chunk_bytes, (size + kMaxChunks - 1) / kMaxChunks, uint64_t{4}});
  chunks.chunk_bytes = (chunk + 3) / 4 * 4;  // copies of whole words
  const uint64_t count = (size + chunks.chunk_bytes - 1) / chunks.chunk_bytes;
  for (uint64_t k = 0; k < count; ++k) {
    ASSIGN_OR_RETURN(gpu::Event event, gpu::Event::Create(device));
    chunks.staged.push_back(std::move(event));
  }
  return chunks;
}

absl::StatusOr<size_t> RecordReadback(gpu::CommandBuffer& cb, const gpu::Buffer& output,
                                      const gpu::Buffer& staging, const ReadbackChunks& chunks,
                                      const std::string& label) {
  if (chunks.staged.empty()) {
    RETURN_IF_ERROR(cb.Copy(output.range(), staging.range(), label));
    return 1;
  }
  const uint64_t size = staging.size();
  for (size_t k = 0; k < chunks.staged.size(); ++k) {
    const uint64_t offset = k * chunks.chunk_bytes;
    const uint64_t bytes = std::min(chunks.chunk_bytes, size - offset);
    RETURN_IF_ERROR(cb.Copy(output.range(offset, bytes), staging.range(offset, bytes), label));
    RETURN_IF_ERROR(cb.SignalHost(chunks.staged[k]));
  }
  return chunks.staged.size();
}

absl::Status ResetReadbackChunks(std::vector<ReadbackChunks>& chunks) {
  for (ReadbackChunks& output : chunks) {
    for (gpu::Event& event : output.staged) RETURN_IF_ERROR(event.Reset());
  }
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> CopyChunksAsStaged(const GpuContext& gpu, const gpu::Buffer& staging,
                                            const ReadbackChunks& chunks, uint8_t* sink) {
  using Clock = std::chrono::steady_clock;
  const uint64_t size = staging.size();
  const auto* bytes = static_cast<const uint8_t*>(staging.mapped());
  Clock::duration copying{};
  for (size_t k = 0; k < chunks.staged.size(); ++k) {
    // Each chunk takes the GPU about a millisecond: sleeping between polls
    // frees the core and costs little of that.
    for (;;) {
      ASSIGN_OR_RETURN(const bool set, chunks.staged[k].IsSet());
      if (set) break;
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
    const Clock::time_point t = Clock::now();
    const uint64_t offset = k * chunks.chunk_bytes;
    const uint64_t n = std::min(chunks.chunk_bytes, size - offset);
    staging.InvalidateForHostRead(offset, n);
    CopyToHost(gpu, sink + offset, bytes + offset, n);
    copying += Clock::now() - t;
  }
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(copying).count());
}

void CopyToHost(const GpuContext& gpu, void* to, const void* from, uint64_t size) {
  const gpu::ParallelCopy::Region region{to, from, size};
  CopyRegionsToHost(gpu, std::span<const gpu::ParallelCopy::Region>(&region, 1));
}

void CopyRegionsToHost(const GpuContext& gpu, std::span<const gpu::ParallelCopy::Region> regions) {
  if (gpu.copier != nullptr) {
    gpu.copier->CopyRegions(regions);
    return;
  }
  for (const gpu::ParallelCopy::Region& r : regions) {
    if (r.size != 0) std::memcpy(r.dst, r.src, r.size);
  }
}

}  // namespace vkserve
