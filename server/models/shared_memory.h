// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// SharedMemoryManager: client-registered system shared-memory regions (the
// KServe/Triton "system_shared_memory" extension). Register() opens the POSIX
// shared-memory object (shm_open), read-write when the object allows it, else
// read-only (an output can then not be written there), and keeps the file
// descriptor. Inputs are read from, and outputs written to, a sub-range named
// by the tensor parameters shared_memory_region / shared_memory_byte_size /
// shared_memory_offset; every access is bounds-checked against the region.
//
// Why a descriptor and pread/pwrite, not a mapping: the object belongs to the
// client, which can shrink it (ftruncate) at any moment. A load or store
// through a mapping of the lost pages raises SIGBUS and kills the server,
// and no check before the copy can close that race. pread/pwrite on the
// object's descriptor cannot fault: a read past the object's end is short
// (answered OUT_OF_RANGE naming the region) and a write checks the size
// first (fstat) and, should the object shrink between the check and the
// write, merely grows it back within the registered range. The price is
// that the bytes are copied by the kernel instead of read in place, which
// costs about what the copy out of a mapping cost.
//
// Off unless the server config enables it (limits.allow_shared_memory):
// Register then answers FAILED_PRECONDITION saying how to enable it.
//
// Thread-safe. A Range keeps its region's descriptor open until the Range
// goes, so an Unregister during a request does not close what it uses.
#ifndef VKSERVE_SERVER_MODELS_SHARED_MEMORY_H_
#define VKSERVE_SERVER_MODELS_SHARED_MEMORY_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/mutex.h"

namespace vkserve {

struct SharedMemoryRegionInfo {
  std::string name;
  std::string key;
  uint64_t offset = 0;
  uint64_t byte_size = 0;
};

// Each region holds a file descriptor; the cap keeps clients from taking
// every descriptor the process may open (and with them accept()).
inline constexpr size_t kDefaultMaxSharedMemoryRegions = 1024;
// Region names are map keys and appear in messages; a client cannot make
// them megabytes long.
inline constexpr size_t kMaxSharedMemoryNameBytes = 256;

class SharedMemoryManager {
 public:
  struct Region;  // one registered object; defined in the .cc

  // A checked sub-range of a registered region. Copyable; every copy keeps
  // the region's descriptor open.
  class Range {
   public:
    uint64_t size() const { return size_; }
    bool writable() const;
    const std::string& region_name() const;

    // Copies the range's bytes into `dst` (dst.size() == size()).
    // OUT_OF_RANGE naming the region when the object has shrunk below the
    // range; INTERNAL for any other read error.
    absl::Status Read(std::span<uint8_t> dst) const;
    // Copies `src` (src.size() <= size()) to the range's start.
    // FAILED_PRECONDITION for a read-only region, OUT_OF_RANGE when the
    // object has shrunk below the range; INTERNAL for other write errors.
    absl::Status Write(std::span<const uint8_t> src) const;

   private:
    friend class SharedMemoryManager;
    std::shared_ptr<const Region> region_;
    uint64_t object_offset_ = 0;  // of the range's first byte in the object
    uint64_t size_ = 0;
  };

  explicit SharedMemoryManager(bool enabled, size_t max_regions = kDefaultMaxSharedMemoryRegions)
      : enabled_(enabled), max_regions_(max_regions) {}
  ~SharedMemoryManager();

  bool enabled() const { return enabled_; }

  // ALREADY_EXISTS for a name in use; NOT_FOUND when `key` cannot be opened;
  // INVALID_ARGUMENT when it is not a regular object or [offset, offset +
  // byte_size) exceeds it; RESOURCE_EXHAUSTED beyond max_regions.
  absl::Status Register(const std::string& name, const std::string& key, uint64_t offset,
                        uint64_t byte_size);
  // `name` "" unregisters every region. NOT_FOUND for an unknown name.
  absl::Status Unregister(const std::string& name);
  // `name` "" lists every region. NOT_FOUND for an unknown name.
  absl::StatusOr<std::vector<SharedMemoryRegionInfo>> Status(const std::string& name) const;

  // [offset, offset + byte_size) of region `name`, overflow-safe;
  // NOT_FOUND (unregistered) or INVALID_ARGUMENT (out of range), both naming
  // the region. The object's current size is checked at each access.
  absl::StatusOr<Range> Resolve(const std::string& name, uint64_t offset, uint64_t byte_size) const;

 private:
  const bool enabled_;
  const size_t max_regions_;
  mutable Mutex mutex_;
  std::map<std::string, std::shared_ptr<const Region>> regions_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace vkserve

#endif  // VKSERVE_SERVER_MODELS_SHARED_MEMORY_H_
