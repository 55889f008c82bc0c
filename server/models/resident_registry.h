// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ResidentRegistry: the server's table of GPU-resident outputs. An output whose
// preferred location is GPU stays in its Vulkan buffer; the client gets an
// opaque, unguessable handle it can name as a later request's input (no copy),
// read (optionally releasing it), or release. Limits on count and bytes, and
// an idle expiry, reclaim handles that clients leak.
//
// Thread-safe.
#ifndef VKSERVE_SERVER_MODELS_RESIDENT_REGISTRY_H_
#define VKSERVE_SERVER_MODELS_RESIDENT_REGISTRY_H_

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "base/mutex.h"
#include "runtime/device_tensor.h"

namespace vkserve {

struct ResidentLimits {
  uint64_t max_count = 1024;
  uint64_t max_bytes = uint64_t{4} << 30;
  absl::Duration idle_expiry = absl::Minutes(5);
};

struct ResidentStats {
  uint64_t count = 0;
  uint64_t bytes = 0;
  uint64_t expired_total = 0;
};

class ResidentRegistry {
 public:
  explicit ResidentRegistry(const ResidentLimits& limits);

  // Registers `tensor` and returns its handle. Idle handles past their expiry
  // are reclaimed first; RESOURCE_EXHAUSTED if the limits still do not allow
  // it (the tensor is then released).
  // `model` and `version` name the model version that produced it (for
  // StatsByModel).
  absl::StatusOr<std::string> Add(std::shared_ptr<DeviceTensor> tensor, const std::string& model,
                                  int64_t version = 0);

  // The tensor behind `handle`; refreshes its idle timer. NOT_FOUND for an
  // unknown, released or expired handle.
  absl::StatusOr<std::shared_ptr<DeviceTensor>> Get(const std::string& handle);

  // Releases the tensor and forgets the handle. NOT_FOUND when unknown.
  absl::Status Release(const std::string& handle);

  // Releases handles idle longer than the expiry; returns how many.
  size_t ExpireIdle(absl::Time now);

  ResidentStats stats() const;
  // Count and bytes held per producing (model, version); expired_total is 0.
  std::map<std::pair<std::string, int64_t>, ResidentStats> StatsByModel() const;

 private:
  struct Entry {
    std::shared_ptr<DeviceTensor> tensor;
    std::string model;
    int64_t version = 0;
    absl::Time last_used;
  };
  std::string NewHandle() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  size_t ExpireLocked(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  const ResidentLimits limits_;
  mutable Mutex mutex_;
  std::map<std::string, Entry> entries_ ABSL_GUARDED_BY(mutex_);
  uint64_t bytes_ ABSL_GUARDED_BY(mutex_) = 0;
  uint64_t expired_total_ ABSL_GUARDED_BY(mutex_) = 0;
  std::mt19937_64 rng_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace vkserve

#endif  // VKSERVE_SERVER_MODELS_RESIDENT_REGISTRY_H_
