// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// SharedMemoryManager: client-registered system shared-memory regions (the
// KServe/Triton "system_shared_memory" extension). Register() does shm_open +
// mmap of [offset, offset + byte_size) of the object, read-write when the
// object allows it, else read-only (an output can then not be written there).
// Inputs are read from, and outputs written to, a sub-range named by the
// tensor parameters shared_memory_region / shared_memory_byte_size /
// shared_memory_offset; every access is bounds-checked against the region.
//
// Off unless the server config enables it (limits.allow_shared_memory):
// Register then answers FAILED_PRECONDITION saying how to enable it.
//
// Thread-safe. A Range keeps its region mapped until the Range goes, so an
// Unregister during a request does not unmap memory the request uses.
#ifndef VKSERVE_SERVER_SHARED_MEMORY_H_
#define VKSERVE_SERVER_SHARED_MEMORY_H_

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace vkserve {

struct SharedMemoryRegionInfo {
  std::string name;
  std::string key;
  uint64_t offset = 0;
  uint64_t byte_size = 0;
};

class SharedMemoryManager {
 public:
  struct Region;  // one mapping; defined in the .cc

  // A checked sub-range of a registered region.
  struct Range {
    std::shared_ptr<const Region> region;  // keeps the mapping alive
    std::span<uint8_t> bytes;
    bool writable = false;
  };

  explicit SharedMemoryManager(bool enabled) : enabled_(enabled) {}
  ~SharedMemoryManager();

  bool enabled() const { return enabled_; }

  // ALREADY_EXISTS for a name in use; NOT_FOUND when `key` cannot be opened;
  // INVALID_ARGUMENT when [offset, offset + byte_size) exceeds the object.
  absl::Status Register(const std::string& name, const std::string& key, uint64_t offset,
                        uint64_t byte_size);
  // `name` "" unregisters every region. NOT_FOUND for an unknown name.
  absl::Status Unregister(const std::string& name);
  // `name` "" lists every region. NOT_FOUND for an unknown name.
  absl::StatusOr<std::vector<SharedMemoryRegionInfo>> Status(const std::string& name) const;

  // [offset, offset + byte_size) of region `name`, overflow-safe;
  // NOT_FOUND (unregistered) or INVALID_ARGUMENT (out of range), both naming
  // the region.
  absl::StatusOr<Range> Resolve(const std::string& name, uint64_t offset, uint64_t byte_size) const;

 private:
  const bool enabled_;
  mutable absl::Mutex mutex_;
  std::map<std::string, std::shared_ptr<const Region>> regions_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace vkserve

#endif  // VKSERVE_SERVER_SHARED_MEMORY_H_
