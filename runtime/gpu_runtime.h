// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// GpuRuntime: owns the GPU objects models run with — the Vulkan instance, the
// selected device, its allocator and the pipeline cache (optionally persisted
// to a file) — and hands them out as a GpuContext. One per process (or per
// device); the CLI and the server create it at start-up. Thread-safe.
#ifndef VKSERVE_RUNTIME_GPU_RUNTIME_H_
#define VKSERVE_RUNTIME_GPU_RUNTIME_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "gpu/allocator.h"
#include "gpu/device.h"
#include "gpu/fault_injector.h"
#include "gpu/instance.h"
#include "gpu/matrix_extension.h"
#include "gpu/parallel_copy.h"
#include "gpu/pipeline.h"
#include "runtime/model.h"

namespace vkserve {

struct GpuRuntimeOptions {
  std::string device;               // selector: index or name; empty = best
  std::string pipeline_cache_path;  // empty: in memory only
  gpu::AllocatorOptions allocator;
  // Threads that copy one large output back to host memory, or a large
  // input (a batch's pieces together) into mapped memory; 0: half the
  // cores, at most 8 (gpu::ParallelCopy::DefaultThreads).
  int copy_threads = 0;
  // Log each pipeline's compile statistics (gpu::DeviceOptions).
  bool pipeline_statistics = false;
  // The extension the tensor-core kernels run through (gpu::DeviceOptions).
  gpu::MatrixExtension matrix_extension = gpu::MatrixExtension::kAuto;
  // Test seam: injected GPU faults (gpu/fault_injector.h); null in production.
  std::shared_ptr<gpu::FaultInjector> faults;
};

class GpuRuntime {
 public:
  static absl::StatusOr<std::unique_ptr<GpuRuntime>> Create(const GpuRuntimeOptions& options);
  ~GpuRuntime();  // saves the pipeline cache when it has a path

  GpuContext context() const {
    return {device_.get(), allocator_.get(), pipelines_.get(), nullptr, copier_.get()};
  }
  const gpu::Instance& instance() const { return *instance_; }
  gpu::Device& device() const { return *device_; }
  gpu::Allocator& allocator() const { return *allocator_; }
  gpu::PipelineCache& pipelines() const { return *pipelines_; }

 private:
  GpuRuntime() = default;
  std::unique_ptr<gpu::Instance> instance_;
  std::unique_ptr<gpu::Device> device_;
  std::unique_ptr<gpu::Allocator> allocator_;
  std::unique_ptr<gpu::PipelineCache> pipelines_;
  std::unique_ptr<gpu::ParallelCopy> copier_;
};

// The default pipeline cache file: $XDG_CACHE_HOME/vkserve/pipelines.bin, or
// ~/.cache/vkserve/pipelines.bin (directories created); empty when neither
// variable is set.
std::string DefaultPipelineCachePath();

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_GPU_RUNTIME_H_
