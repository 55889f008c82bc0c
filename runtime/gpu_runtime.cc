// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/gpu_runtime.h"

#include <cstdlib>
#include <filesystem>

#include "base/status_macros.h"
#include "gpu/queue.h"
#include "runtime/kernels/tensor_core_layout.h"
#include "runtime/kernels/tensor_cores.h"
#include "spdlog/spdlog.h"

namespace vkserve {

absl::StatusOr<std::unique_ptr<GpuRuntime>> GpuRuntime::Create(const GpuRuntimeOptions& options) {
  auto rt = std::unique_ptr<GpuRuntime>(new GpuRuntime());
  ASSIGN_OR_RETURN(rt->instance_, gpu::Instance::Create());
  gpu::DeviceOptions device_options;
  device_options.selector = options.device;
  device_options.faults = options.faults;
  device_options.pipeline_statistics = options.pipeline_statistics;
  device_options.matrix_extension = options.matrix_extension;
  ASSIGN_OR_RETURN(rt->device_, gpu::Device::Create(*rt->instance_, device_options));
  ASSIGN_OR_RETURN(rt->allocator_, gpu::Allocator::Create(*rt->device_, options.allocator));
  ASSIGN_OR_RETURN(rt->pipelines_,
                   gpu::PipelineCache::Create(*rt->device_, options.pipeline_cache_path));
  if (!rt->pipelines_->ignored_reason().empty()) {
    spdlog::info("pipeline cache {} ignored: {}", options.pipeline_cache_path,
                 rt->pipelines_->ignored_reason());
  }
  rt->copier_ = std::make_unique<gpu::ParallelCopy>(
      options.copy_threads > 0 ? options.copy_threads : gpu::ParallelCopy::DefaultThreads());
  // Kernels that touch fragment elements run only where the layout is measured.
  const gpu::DeviceInfo& info = rt->device_->info();
  if (info.cooperative_matrix_enabled && RunsTensorCoreSubgroups(info)) {
    absl::StatusOr<bool> mma = ProbeMmaFragments(rt->context());
    if (mma.ok()) {
      rt->device_->set_coopmat_mma_fragments(*mma);
      spdlog::debug("cooperative-matrix fragments {} the mma.sync layout",
                    *mma ? "have" : "do not have");
    } else {
      spdlog::warn(
          "fragment layout probe failed ({}): kernels that need the mma.sync layout stay off",
          mma.status().ToString());
    }
  }
  return rt;
}

GpuRuntime::~GpuRuntime() {
  if (device_) (void)device_->queue().WaitIdle();
  if (pipelines_) {
    absl::Status saved = pipelines_->Save();
    if (!saved.ok()) spdlog::warn("pipeline cache not saved: {}", saved.ToString());
  }
}

std::string DefaultPipelineCachePath() {
  std::filesystem::path dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
    dir = std::filesystem::path(xdg) / "vkserve";
  } else if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    dir = std::filesystem::path(home) / ".cache" / "vkserve";
  } else {
    return "";
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return "";
  return (dir / "pipelines.bin").string();
}

}  // namespace vkserve
