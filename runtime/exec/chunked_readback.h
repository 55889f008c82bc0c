// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Chunked readback: a large host output that the GPU stages (copies into
// host-cached memory) is staged in chunks, each followed by a gpu::Event the
// GPU sets, so the run copies chunk k into the caller's memory while the GPU
// stages chunk k + 1, instead of both copies running one after the other
// (SessionOptions::overlapped_readback_bytes; GPT-2 b8's 206 MB of logits
// took 3.9 ms to stage and 6.5 ms to copy on the H200). Session's helpers:
// the recording part runs when a state is recorded, the copying part during
// a run's wait, both on the session's thread.
#ifndef VKSERVE_RUNTIME_EXEC_CHUNKED_READBACK_H_
#define VKSERVE_RUNTIME_EXEC_CHUNKED_READBACK_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gpu/buffer.h"
#include "gpu/command_buffer.h"
#include "gpu/device.h"
#include "gpu/event.h"
#include "gpu/gpu_context.h"
#include "gpu/parallel_copy.h"

namespace vkserve {

// One staged output's chunks: `staged[k]` is set once bytes
// [k * chunk_bytes, (k + 1) * chunk_bytes) are staged. Empty: staged whole.
struct ReadbackChunks {
  uint64_t chunk_bytes = 0;
  std::vector<gpu::Event> staged;
};

// The chunks of a staged output of `size` bytes: none below `min_bytes` (or
// when it is 0), else chunks of `chunk_bytes` (whole words, at most 64).
absl::StatusOr<ReadbackChunks> PlanReadbackChunks(const gpu::Device& device, uint64_t size,
                                                  uint64_t min_bytes, uint64_t chunk_bytes);

// Records the copy of `output` into `staging` (the same size): whole, or
// chunk by chunk with each chunk's event set after it. Returns the timed
// copies recorded.
absl::StatusOr<size_t> RecordReadback(gpu::CommandBuffer& cb, const gpu::Buffer& output,
                                      const gpu::Buffer& staging, const ReadbackChunks& chunks,
                                      const std::string& label);

// Unsets every event before a submission that sets them.
absl::Status ResetReadbackChunks(std::vector<ReadbackChunks>& chunks);

// Copies `staging`'s bytes into `sink` chunk by chunk, each as soon as the GPU
// has set its event; returns the nanoseconds spent copying (the rest of the
// time it polls). REQUIRES: the submission recorded by RecordReadback is
// pending or done, and `sink` holds staging.size() bytes.
absl::StatusOr<uint64_t> CopyChunksAsStaged(const GpuContext& gpu, const gpu::Buffer& staging,
                                            const ReadbackChunks& chunks, uint8_t* sink);

// memcpy, with the context's threads for large sizes (GpuContext::copier).
void CopyToHost(const GpuContext& gpu, void* to, const void* from, uint64_t size);
// Every region's memcpy, split over the context's threads when they add up
// to a large size: a batch's pieces, copied as one.
void CopyRegionsToHost(const GpuContext& gpu, std::span<const gpu::ParallelCopy::Region> regions);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_EXEC_CHUNKED_READBACK_H_
