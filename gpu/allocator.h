// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Allocator: sub-allocates Buffers from large VkDeviceMemory blocks, one
// VkBuffer spanning each block. Blocks are at most maxMemoryAllocationSize;
// single buffers at most maxStorageBufferRange, so any Buffer can be bound
// whole. Ranges are aligned for storage-buffer binding and non-coherent
// flushes. Free ranges coalesce; an empty block beyond the first of its memory
// type is returned to the driver.
//
// Out-of-memory (driver, heap size or configured budget) is a
// RESOURCE_EXHAUSTED Status, never a crash.
//
// Thread-safe. REQUIRES: outlives every Buffer it returned, and is outlived by
// its Device.
#ifndef VKSERVE_GPU_ALLOCATOR_H_
#define VKSERVE_GPU_ALLOCATOR_H_

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/mutex.h"
#include "gpu/buffer.h"
#include "gpu/device.h"
#include "gpu/handle.h"

namespace vkserve::gpu {

struct AllocatorOptions {
  // Size of a regular block; larger requests get a block of their own.
  // Clamped to the device's maxMemoryAllocationSize.
  uint64_t block_size = uint64_t{64} << 20;
  // Upper bound on all block bytes together; 0: only heap sizes limit.
  uint64_t budget_bytes = 0;
  // When false, kHostUpload ignores device-local host-visible memory and uses
  // host memory, so uploads take the staging path (tests cover both).
  bool allow_host_visible_device_local = true;
};

struct AllocatorStats {
  std::array<uint64_t, kMemoryKindCount> bytes_by_kind{};  // live, as requested
  uint64_t block_bytes = 0;                                // device memory held from the driver
  uint32_t block_count = 0;
  uint64_t allocation_count = 0;  // live Buffers
};

class Allocator {
 public:
  // REQUIRES: `device` outlives the allocator.
  static absl::StatusOr<std::unique_ptr<Allocator>> Create(const Device& device,
                                                           const AllocatorOptions& options = {});
  Allocator(const Allocator&) = delete;
  Allocator& operator=(const Allocator&) = delete;
  ~Allocator();  // aborts if Buffers are still alive: a broken invariant

  // Returns a Buffer of at least `size` bytes (size > 0). INVALID_ARGUMENT if
  // size is 0 or exceeds maxStorageBufferRange; RESOURCE_EXHAUSTED when
  // memory, the heap or the budget runs out.
  absl::StatusOr<Buffer> Allocate(uint64_t size, MemoryUsage usage, MemoryKind kind);

  AllocatorStats stats() const;
  const Device& device() const { return *device_; }
  // True when kHostUpload buffers are device-local (no staging needed).
  bool uploads_are_device_local() const { return upload_type_device_local_; }
  // True when device-local buffers are host-visible and cached (unified
  // memory, lavapipe): the host may read GPU results from them directly.
  bool device_local_is_host_readable() const { return type_for_usage_[0] == type_for_usage_[2]; }

  // Like Allocate, for a buffer that is only ever bound in sub-ranges (an
  // activation arena): its size may exceed maxStorageBufferRange, up to
  // maxMemoryAllocationSize. Callers keep every binding within the range.
  absl::StatusOr<Buffer> AllocateUnbound(uint64_t size, MemoryUsage usage, MemoryKind kind);

 private:
  struct Block {
    MemoryHandle memory;
    BufferHandle buffer;
    uint32_t memory_type = 0;
    uint64_t size = 0;
    uint8_t* mapped = nullptr;
    bool coherent = true;
    bool device_local = false;
    bool dedicated = false;
    uint64_t used = 0;
    std::map<uint64_t, uint64_t> free;  // offset -> size, coalesced
  };
  friend class Buffer;

  explicit Allocator(const Device& device, const AllocatorOptions& options);
  absl::Status ChooseMemoryTypes();
  absl::StatusOr<Buffer> AllocateImpl(uint64_t size, MemoryUsage usage, MemoryKind kind);
  absl::StatusOr<uint32_t> CreateBlock(uint32_t memory_type, uint64_t size, bool dedicated)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  void Free(const Buffer& buffer);
  void FlushOrInvalidate(const Buffer& buffer, uint64_t offset, uint64_t size, bool flush) const;

  const Device* device_;
  AllocatorOptions options_;
  uint64_t alignment_ = 256;
  std::array<uint32_t, 3> type_for_usage_{};  // indexed by MemoryUsage
  bool upload_type_device_local_ = false;

  mutable Mutex mutex_;
  std::vector<std::unique_ptr<Block>> blocks_ ABSL_GUARDED_BY(mutex_);  // null: released slot
  std::vector<uint64_t> heap_used_ ABSL_GUARDED_BY(mutex_);
  AllocatorStats stats_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace vkserve::gpu

#endif  // VKSERVE_GPU_ALLOCATOR_H_
