// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Pipeline: a compute pipeline whose shader reads and writes `num_bindings`
// storage buffers (set 0, bindings 0..n-1) and takes up to
// `push_constant_bytes` of push constants. Sizes reach the shader as
// specialization constants: by convention ids 0, 1, 2 are the workgroup size
// (local_size_x_id = 0, ...) and ids 3.. the shader's own.
//
// PipelineCache: creates Pipelines once per (shader, constants) key and keeps
// up to a budget of them, backed by a VkPipelineCache that can be saved to
// and loaded from a file. Constants follow tensor shapes, so clients sending
// ever new shapes would otherwise grow it without end: past the budget, the
// least recently used pipelines that nothing else holds are dropped (the
// driver's VkPipelineCache keeps their compiled code, so getting one again
// is cheap on drivers that cache). A file whose header does not match this device and driver
// (vendor, device id, pipelineCacheUUID) is ignored, never passed to the driver.
//
// Pipelines are immutable and shared (std::shared_ptr) by everything that
// records them. PipelineCache is thread-safe.
#ifndef VKSERVE_GPU_PIPELINE_H_
#define VKSERVE_GPU_PIPELINE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "base/mutex.h"
#include "gpu/device.h"
#include "gpu/handle.h"

namespace vkserve::gpu {

struct PipelineDesc {
  std::string name;                 // for errors and traces, e.g. "ops/conv2d"
  std::span<const uint32_t> spirv;  // must stay valid during creation only
  uint32_t num_bindings = 0;
  uint32_t push_constant_bytes = 0;             // multiple of 4, <= device limit
  std::array<uint32_t, 3> local_size{1, 1, 1};  // spec constants 0..2
  std::vector<uint32_t> spec_constants;         // ids 3, 4, ... (32-bit values)
  // The subgroup size the shader is written for, 0 for any: a pipeline
  // asks the device for it where it is not the default (subgroup size
  // control, DeviceInfo::RunsSubgroupsOf), and is refused where it cannot be.
  uint32_t required_subgroup_size = 0;
};

class Pipeline {
 public:
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  const std::string& name() const { return name_; }
  VkPipeline handle() const { return pipeline_.get(); }
  VkPipelineLayout layout() const { return layout_.get(); }
  VkDescriptorSetLayout set_layout() const { return set_layout_.get(); }
  uint32_t num_bindings() const { return num_bindings_; }
  uint32_t push_constant_bytes() const { return push_constant_bytes_; }
  const std::array<uint32_t, 3>& local_size() const { return local_size_; }
  // The driver's compile statistics, one "name value" string each (e.g.
  // "Register Count 128"); empty unless the device captures them
  // (Device::captures_pipeline_statistics).
  const std::vector<std::string>& statistics() const { return statistics_; }

 private:
  friend class PipelineCache;
  Pipeline() = default;

  std::string name_;
  uint32_t num_bindings_ = 0;
  uint32_t push_constant_bytes_ = 0;
  std::array<uint32_t, 3> local_size_{};
  std::vector<std::string> statistics_;
  DescriptorSetLayoutHandle set_layout_;
  PipelineLayoutHandle layout_;
  PipelineHandle pipeline_;
};

class PipelineCache {
 public:
  // Loads `path` if it exists and matches the device; an empty path keeps the
  // cache in memory only. REQUIRES: `device` outlives the cache.
  // `max_pipelines` bounds the pipelines kept; pipelines in use stay even
  // past it.
  static constexpr size_t kDefaultMaxPipelines = 4096;
  static absl::StatusOr<std::unique_ptr<PipelineCache>> Create(
      const Device& device, std::string path = "", size_t max_pipelines = kDefaultMaxPipelines);
  PipelineCache(const PipelineCache&) = delete;
  PipelineCache& operator=(const PipelineCache&) = delete;

  // Returns the pipeline for `desc`, creating it on first use. Fails with
  // INVALID_ARGUMENT for a malformed desc (empty SPIR-V, oversized push
  // constants or workgroup) and with the Vulkan error otherwise.
  absl::StatusOr<std::shared_ptr<const Pipeline>> Get(const PipelineDesc& desc);

  // Writes the VkPipelineCache data to the path given at creation (atomically,
  // via a temporary file). No-op without a path.
  absl::Status Save() const;

  // Whether creation found a matching file and handed it to the driver; when
  // a file existed but did not match, `ignored_reason()` says why.
  bool loaded_from_disk() const { return loaded_from_disk_; }
  const std::string& ignored_reason() const { return ignored_reason_; }
  size_t size() const;         // pipelines kept
  uint64_t evictions() const;  // pipelines dropped for the budget so far
  uint64_t compiles() const;   // pipelines created so far (failures too)
  VkPipelineCache handle() const { return cache_.get(); }

 private:
  struct Entry {
    std::shared_ptr<const Pipeline> pipeline;
    uint64_t last_use = 0;
  };
  // A pipeline being compiled; its waiters read `result` once `done`.
  struct Compile {
    bool done = false;
    absl::StatusOr<std::shared_ptr<const Pipeline>> result;
  };

  explicit PipelineCache(const Device& device) : device_(&device) {}
  absl::StatusOr<std::shared_ptr<const Pipeline>> Create(const PipelineDesc& desc) const;
  // Drops least recently used entries nothing else holds until the budget
  // holds or none is left to drop.
  void EvictOverBudget() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  const Device* device_;
  std::string path_;
  PipelineCacheHandle cache_;
  bool loaded_from_disk_ = false;
  std::string ignored_reason_;
  mutable Mutex mutex_;
  size_t max_pipelines_ = kDefaultMaxPipelines;
  std::map<std::string, Entry> pipelines_ ABSL_GUARDED_BY(mutex_);
  std::map<std::string, std::shared_ptr<Compile>> compiling_ ABSL_GUARDED_BY(mutex_);
  uint64_t use_clock_ ABSL_GUARDED_BY(mutex_) = 0;
  uint64_t evictions_ ABSL_GUARDED_BY(mutex_) = 0;
  uint64_t compiles_ ABSL_GUARDED_BY(mutex_) = 0;
};

}  // namespace vkserve::gpu

#endif  // VKSERVE_GPU_PIPELINE_H_
