// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// DeviceSet: every GPU the server runs models on — the server's own device,
// opened at start-up, and those that model configs select (by index, name
// or UUID; instance_group.gpus lists several), opened on first use, one per
// physical device whatever selector names it — each a GpuRuntime with the cache budget its models
// share. Contexts handed out own their runtime (GpuContext::owner), so a
// device that is replaced after VK_ERROR_DEVICE_LOST lives on until the last
// model, session or resident output made from it is gone; new loads get the
// new device.
//
// Thread-safe.
#ifndef VKSERVE_SERVER_MODELS_DEVICE_SET_H_
#define VKSERVE_SERVER_MODELS_DEVICE_SET_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/mutex.h"
#include "gpu/cache_budget.h"
#include "gpu/queue.h"
#include "runtime/gpu_runtime.h"
#include "server/observability/metrics.h"

namespace vkserve {

struct DeviceSetOptions {
  // The server's device and the GPU objects' options (selector, pipeline
  // cache file, fault injection) for every device.
  GpuRuntimeOptions runtime;
  // Cache limits per device; unset: sized from the device.
  std::optional<uint64_t> cache_device_bytes;
  std::optional<uint64_t> cache_host_bytes;
  // Test seam: every distinct non-empty selector opens a device of its own,
  // even one naming a device already open, so one physical device serves as
  // several logical GPUs (lavapipe offers only one). Off in the server.
  bool device_per_selector = false;
};

class DeviceSet {
 public:
  // Opens the server's device.
  static absl::StatusOr<std::unique_ptr<DeviceSet>> Create(const DeviceSetOptions& options);
  DeviceSet(const DeviceSet&) = delete;
  DeviceSet& operator=(const DeviceSet&) = delete;

  // The server's device.
  GpuContext Default() const;
  // The device for a model's selector: the server's own when `selector` is
  // empty or names it, else one opened for it on first use. NOT_FOUND when no
  // device matches.
  absl::StatusOr<GpuContext> For(const std::string& selector);
  // The cache budget every model on `gpu`'s device shares.
  std::shared_ptr<CacheBudget> BudgetFor(const GpuContext& gpu);

  // Replaces the runtime of the lost `device` with a freshly opened one (same
  // options; a new cache budget). The old one is freed when its last user
  // goes. NOT_FOUND when `device` is not current (already replaced: OK to
  // ignore); the open error otherwise, the lost device staying in place.
  absl::StatusOr<GpuContext> Replace(const gpu::Device* device);

  // Live memory and cache figures of every device, the server's first;
  // device names made unique.
  std::vector<DeviceGaugeSample> Memory() const;

  // The compute queue's progress of every device (the server's first), for
  // the watchdog (gpu::Queue::progress(); never blocks on a queue).
  std::vector<gpu::Queue::Progress> QueueProgress() const;

 private:
  struct Slot {
    std::string selector;  // "" for the server's device
    GpuRuntimeOptions options;
    std::shared_ptr<GpuRuntime> runtime;
    std::shared_ptr<CacheBudget> budget;
  };
  explicit DeviceSet(const DeviceSetOptions& options) : options_(options) {}
  absl::Status Open(Slot& slot) const;
  static GpuContext ContextOf(const Slot& slot);

  const DeviceSetOptions options_;
  mutable Mutex mutex_;
  std::vector<Slot> slots_ ABSL_GUARDED_BY(mutex_);  // [0]: the server's device
};

}  // namespace vkserve

#endif  // VKSERVE_SERVER_MODELS_DEVICE_SET_H_
