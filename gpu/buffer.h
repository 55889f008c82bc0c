// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Buffer: one sub-allocation of an Allocator block — a (VkBuffer, offset,
// size) triple, host-mapped when its memory is host-visible. Move-only; the
// range returns to the allocator when the Buffer is destroyed. Every Buffer
// fits in one binding (size <= maxStorageBufferRange). Not thread-safe per
// object; distinct Buffers may be used from different threads.
//
// BufferRange: a non-owning view of part of a Buffer, as bound to a shader or
// named by a copy.
#ifndef VKSERVE_GPU_BUFFER_H_
#define VKSERVE_GPU_BUFFER_H_

#include <vulkan/vulkan.h>

#include <cstdint>
#include <string_view>

namespace vkserve::gpu {

class Allocator;

// What a buffer holds, for per-kind byte accounting.
enum class MemoryKind : uint8_t { kWeights, kActivations, kIo, kResident, kStaging, kOther };
inline constexpr int kMemoryKindCount = 6;
std::string_view MemoryKindName(MemoryKind kind);

// Where a buffer should live.
enum class MemoryUsage : uint8_t {
  kDeviceLocal,   // GPU access only; the fastest memory.
  kHostUpload,    // Host writes, GPU reads: device-local host-visible memory
                  // when the device has it (no staging), else host memory.
  kHostReadback,  // GPU writes, host reads: host-visible, cached if possible.
};

struct BufferRange {
  VkBuffer buffer = VK_NULL_HANDLE;
  uint64_t offset = 0;
  uint64_t size = 0;
};

class Buffer {
 public:
  Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& other) noexcept;
  Buffer& operator=(Buffer&& other) noexcept;
  ~Buffer();

  explicit operator bool() const { return allocator_ != nullptr; }
  VkBuffer handle() const { return buffer_; }
  uint64_t offset() const { return offset_; }  // within handle()
  uint64_t size() const { return size_; }      // bytes requested
  MemoryKind kind() const { return kind_; }
  bool device_local() const { return device_local_; }
  // Host pointer to byte 0 of this buffer, or null when not host-visible.
  uint8_t* mapped() const { return mapped_; }

  // The bytes [offset, offset + size) of this buffer; size 0 means to the end.
  // REQUIRES: offset + size <= this->size().
  BufferRange range(uint64_t offset = 0, uint64_t size = 0) const;

  // For host-visible, non-coherent memory: make host writes visible to the
  // device / device writes visible to the host. No-ops on coherent memory.
  // REQUIRES: mapped() != nullptr.
  void FlushHostWrites(uint64_t offset, uint64_t size) const;
  void InvalidateForHostRead(uint64_t offset, uint64_t size) const;

 private:
  friend class Allocator;
  void Release();

  Allocator* allocator_ = nullptr;
  uint32_t block_ = 0;  // index into the allocator's block table
  VkBuffer buffer_ = VK_NULL_HANDLE;
  uint64_t offset_ = 0;
  uint64_t size_ = 0;
  uint64_t reserved_ = 0;  // aligned size taken from the block
  uint8_t* mapped_ = nullptr;
  bool device_local_ = false;
  bool coherent_ = true;
  MemoryKind kind_ = MemoryKind::kOther;
};

}  // namespace vkserve::gpu

#endif  // VKSERVE_GPU_BUFFER_H_
