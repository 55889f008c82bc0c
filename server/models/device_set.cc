// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/models/device_set.h"

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "spdlog/spdlog.h"

namespace vkserve {

absl::StatusOr<std::unique_ptr<DeviceSet>> DeviceSet::Create(const DeviceSetOptions& options) {
  auto set = std::unique_ptr<DeviceSet>(new DeviceSet(options));
  Slot slot;
  slot.options = options.runtime;
  RETURN_IF_ERROR(set->Open(slot));
  MutexLock lock(&set->mutex_);
  set->slots_.push_back(std::move(slot));
  return set;
}

absl::Status DeviceSet::Open(Slot& slot) const {
  ASSIGN_OR_RETURN(std::unique_ptr<GpuRuntime> runtime, GpuRuntime::Create(slot.options));
  CacheLimits limits = CacheLimits::ForDevice(runtime->device());
  if (options_.cache_device_bytes) limits.device_bytes = *options_.cache_device_bytes;
  if (options_.cache_host_bytes) limits.host_bytes = *options_.cache_host_bytes;
  slot.budget = std::make_shared<CacheBudget>(limits);
  slot.runtime = std::move(runtime);
  return absl::OkStatus();
}

GpuContext DeviceSet::ContextOf(const Slot& slot) {
  GpuContext context = slot.runtime->context();
  context.owner = slot.runtime;
  return context;
}

GpuContext DeviceSet::Default() const {
  MutexLock lock(&mutex_);
  return ContextOf(slots_.front());
}

absl::StatusOr<GpuContext> DeviceSet::For(const std::string& selector) {
  MutexLock lock(&mutex_);
  const Slot& server = slots_.front();
  if (selector.empty()) return ContextOf(server);
  ASSIGN_OR_RETURN(const gpu::DeviceInfo* info,
                   gpu::SelectDevice(server.runtime->instance().devices(), selector));
  // Selectors naming one device (an index, a name, a UUID) share its slot;
  // with the test seam, each selector has its own.
  for (const Slot& slot : slots_) {
    const bool same = options_.device_per_selector
                          ? slot.selector == selector
                          : slot.runtime->device().info().index == info->index;
    if (same) return ContextOf(slot);
  }
  Slot slot;
  slot.selector = selector;
  slot.options = options_.runtime;
  slot.options.device = selector;
  const std::string& cache = options_.runtime.pipeline_cache_path;
  slot.options.pipeline_cache_path =
      cache.empty() || options_.device_per_selector ? "" : absl::StrCat(cache, ".", info->index);
  RETURN_IF_ERROR(Open(slot));
  spdlog::info("device '{}' opened for models selecting '{}'", info->name, selector);
  slots_.push_back(std::move(slot));
  return ContextOf(slots_.back());
}

std::shared_ptr<CacheBudget> DeviceSet::BudgetFor(const GpuContext& gpu) {
  MutexLock lock(&mutex_);
  for (const Slot& slot : slots_) {
    if (&slot.runtime->device() == gpu.device) return slot.budget;
  }
  // A device already replaced: its models keep their budget; a late caller
  // gets one of its own rather than sharing the new device's.
  return std::make_shared<CacheBudget>(CacheLimits::ForDevice(*gpu.device));
}

absl::StatusOr<GpuContext> DeviceSet::Replace(const gpu::Device* device) {
  MutexLock lock(&mutex_);
  for (Slot& slot : slots_) {
    if (&slot.runtime->device() != device) continue;
    Slot fresh;
    fresh.selector = slot.selector;
    fresh.options = slot.options;
    // The pipeline cache file is the lost device's to save; the new runtime
    // starts from what is on disk.
    RETURN_IF_ERROR(Open(fresh));
    spdlog::warn("device '{}' reopened after it was lost", fresh.runtime->device().info().name);
    slot = std::move(fresh);
    return ContextOf(slot);
  }
  return absl::NotFoundError("the lost device has already been replaced");
}

std::vector<DeviceGaugeSample> DeviceSet::Memory() const {
  std::vector<DeviceGaugeSample> out;
  MutexLock lock(&mutex_);
  for (const Slot& slot : slots_) {
    DeviceGaugeSample d;
    d.device = slot.runtime->device().info().name;
    d.gpu = slot.runtime->device().info().uuid();
    d.bytes_by_kind = slot.runtime->allocator().stats().bytes_by_kind;
    d.cache = slot.budget->stats();
    // Two GPUs of one model share a name; the label must still be unique.
    int same = 0;
    for (const DeviceGaugeSample& earlier : out) same += earlier.device.rfind(d.device, 0) == 0;
    if (same > 0) d.device += absl::StrCat(" #", same + 1);
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<gpu::Queue::Progress> DeviceSet::QueueProgress() const {
  std::vector<gpu::Queue::Progress> out;
  MutexLock lock(&mutex_);
  for (const Slot& slot : slots_) out.push_back(slot.runtime->device().queue().progress());
  return out;
}

}  // namespace vkserve
