// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// GpuContext: the GPU objects a model runs with — device, allocator and
// pipeline cache — passed by value into everything that makes GPU work.
// `owner` keeps the three alive for as long as any copy exists (the server
// replaces a lost device while models and resident outputs of the old one
// still drain); null where the caller guarantees their lifetime (the CLI,
// tests). A plain value: copying it is thread-safe.
#ifndef VKSERVE_GPU_GPU_CONTEXT_H_
#define VKSERVE_GPU_GPU_CONTEXT_H_

#include <memory>

namespace vkserve {

namespace gpu {
class Allocator;
class Device;
class ParallelCopy;
class PipelineCache;
}  // namespace gpu

struct GpuContext {
  gpu::Device* device = nullptr;
  gpu::Allocator* allocator = nullptr;
  gpu::PipelineCache* pipelines = nullptr;
  std::shared_ptr<const void> owner = nullptr;
  // Reads large outputs back with several threads; null: one memcpy.
  gpu::ParallelCopy* copier = nullptr;
};

}  // namespace vkserve

#endif  // VKSERVE_GPU_GPU_CONTEXT_H_
