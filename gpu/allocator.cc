// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "gpu/allocator.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <utility>

#include "absl/strings/str_cat.h"
#include "gpu/fault_injector.h"
#include "gpu/vk_status.h"

namespace vkserve::gpu {
namespace {

uint64_t AlignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

constexpr VkBufferUsageFlags kBlockUsage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                           VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                           VK_BUFFER_USAGE_TRANSFER_DST_BIT;

}  // namespace

std::string_view MemoryKindName(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::kWeights:
      return "weights";
    case MemoryKind::kActivations:
      return "activations";
    case MemoryKind::kIo:
      return "io";
    case MemoryKind::kResident:
      return "resident_outputs";
    case MemoryKind::kStaging:
      return "staging";
    case MemoryKind::kOther:
      return "other";
  }
  return "other";
}

// ---------------------------------------------------------------------------
// Buffer

Buffer::Buffer(Buffer&& other) noexcept { *this = std::move(other); }

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this == &other) return *this;
  Release();
  allocator_ = std::exchange(other.allocator_, nullptr);
  block_ = other.block_;
  buffer_ = std::exchange(other.buffer_, VK_NULL_HANDLE);
  offset_ = other.offset_;
  size_ = std::exchange(other.size_, 0);
  reserved_ = other.reserved_;
  mapped_ = std::exchange(other.mapped_, nullptr);
  device_local_ = other.device_local_;
  coherent_ = other.coherent_;
  kind_ = other.kind_;
  return *this;
}

Buffer::~Buffer() { Release(); }

void Buffer::Release() {
  if (allocator_ != nullptr) allocator_->Free(*this);
  allocator_ = nullptr;
}

BufferRange Buffer::range(uint64_t offset, uint64_t size) const {
  if (size == 0) size = size_ - offset;
  if (offset + size > size_) {
    std::fprintf(stderr, "Buffer::range out of bounds (%llu + %llu > %llu)\n",
                 static_cast<unsigned long long>(offset), static_cast<unsigned long long>(size),
                 static_cast<unsigned long long>(size_));
    std::abort();
  }
  return BufferRange{buffer_, offset_ + offset, size};
}

void Buffer::FlushHostWrites(uint64_t offset, uint64_t size) const {
  if (!coherent_) allocator_->FlushOrInvalidate(*this, offset, size, /*flush=*/true);
}

void Buffer::InvalidateForHostRead(uint64_t offset, uint64_t size) const {
  if (!coherent_) allocator_->FlushOrInvalidate(*this, offset, size, /*flush=*/false);
}

// ---------------------------------------------------------------------------
// Allocator

Allocator::Allocator(const Device& device, const AllocatorOptions& options)
    : device_(&device), options_(options) {}

absl::StatusOr<std::unique_ptr<Allocator>> Allocator::Create(const Device& device,
                                                             const AllocatorOptions& options) {
  auto allocator = std::unique_ptr<Allocator>(new Allocator(device, options));
  const DeviceInfo& info = device.info();
  allocator->alignment_ = std::lcm(std::max<uint64_t>(info.min_storage_buffer_offset_alignment, 16),
                                   std::max<uint64_t>(info.non_coherent_atom_size, 1));
  if (allocator->options_.block_size == 0 ||
      allocator->options_.block_size > info.max_allocation_size) {
    allocator->options_.block_size = info.max_allocation_size;
  }
  {
    MutexLock lock(&allocator->mutex_);
    allocator->heap_used_.assign(info.heaps.size(), 0);
  }
  RETURN_IF_ERROR(allocator->ChooseMemoryTypes());
  return allocator;
}

Allocator::~Allocator() {
  MutexLock lock(&mutex_);
  if (stats_.allocation_count != 0) {
    std::fprintf(stderr, "vkserve: Allocator destroyed with %llu live buffers\n",
                 static_cast<unsigned long long>(stats_.allocation_count));
    std::abort();
  }
}

absl::Status Allocator::ChooseMemoryTypes() {
  // The memory types a block buffer may use.
  VkBufferCreateInfo probe{};
  probe.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  probe.size = 4096;
  probe.usage = kBlockUsage;
  probe.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkBuffer buffer = VK_NULL_HANDLE;
  VK_RETURN_IF_ERROR(vkCreateBuffer(device_->handle(), &probe, nullptr, &buffer));
  BufferHandle owned(device_->handle(), buffer);
  VkMemoryRequirements req{};
  vkGetBufferMemoryRequirements(device_->handle(), buffer, &req);

  const auto& types = device_->info().memory_types;
  // Picks the first allowed type with all `required` flags, preferring ones
  // that also have `preferred`.
  auto pick = [&](VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred) -> int {
    int fallback = -1;
    for (uint32_t i = 0; i < types.size(); ++i) {
      if (!(req.memoryTypeBits & (1u << i))) continue;
      if ((types[i].flags & required) != required) continue;
      if ((types[i].flags & preferred) == preferred) return static_cast<int>(i);
      if (fallback < 0) fallback = static_cast<int>(i);
    }
    return fallback;
  };
  constexpr VkMemoryPropertyFlags kLocal = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  constexpr VkMemoryPropertyFlags kVisible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
  constexpr VkMemoryPropertyFlags kCoherent = VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  constexpr VkMemoryPropertyFlags kCached = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;

  int device_local = pick(kLocal, 0);
  if (device_local < 0) device_local = pick(0, 0);
  int upload = -1;
  if (options_.allow_host_visible_device_local) upload = pick(kLocal | kVisible, kCoherent);
  if (upload < 0) {
    // Host memory (not device-local) for staging; on a device whose only
    // host-visible memory is device-local, that is what there is.
    for (uint32_t i = 0; i < types.size() && upload < 0; ++i) {
      if ((req.memoryTypeBits & (1u << i)) && (types[i].flags & kVisible) &&
          (!(types[i].flags & kLocal) || !options_.allow_host_visible_device_local)) {
        upload = static_cast<int>(i);
      }
    }
    if (upload < 0) upload = pick(kVisible, kCoherent);
  }
  const int readback = pick(kVisible, kCached | kCoherent) >= 0
                           ? pick(kVisible, kCached | kCoherent)
                           : pick(kVisible, 0);
  if (device_local < 0 || upload < 0 || readback < 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "device '", device_->info().name, "' has no usable memory type for storage buffers"));
  }
  type_for_usage_ = {static_cast<uint32_t>(device_local), static_cast<uint32_t>(upload),
                     static_cast<uint32_t>(readback)};
  upload_type_device_local_ = (types[upload].flags & kLocal) != 0;
  return absl::OkStatus();
}

absl::StatusOr<uint32_t> Allocator::CreateBlock(uint32_t memory_type, uint64_t size,
                                                bool dedicated) {
  const DeviceInfo& info = device_->info();
  const uint32_t heap = info.memory_types[memory_type].heap;
  if (heap_used_[heap] + size > info.heaps[heap].size) {
    return absl::ResourceExhaustedError(
        absl::StrCat("out of GPU memory: a block of ", size, " bytes does not fit in heap ", heap,
                     " (", heap_used_[heap], " of ", info.heaps[heap].size, " bytes in use)"));
  }
  if (options_.budget_bytes != 0 && stats_.block_bytes + size > options_.budget_bytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat("out of GPU memory budget: a block of ", size, " bytes exceeds the budget of ",
                     options_.budget_bytes, " bytes (", stats_.block_bytes, " in use)"));
  }
  VkDevice dev = device_->handle();
  VkBufferCreateInfo buffer_info{};
  buffer_info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  buffer_info.size = size;
  buffer_info.usage = kBlockUsage;
  buffer_info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkBuffer raw_buffer = VK_NULL_HANDLE;
  VK_RETURN_IF_ERROR(vkCreateBuffer(dev, &buffer_info, nullptr, &raw_buffer));
  BufferHandle buffer(dev, raw_buffer);
  VkMemoryRequirements req{};
  vkGetBufferMemoryRequirements(dev, raw_buffer, &req);

  VkMemoryAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = memory_type;
  VkDeviceMemory raw_memory = VK_NULL_HANDLE;
  VK_RETURN_IF_ERROR(vkAllocateMemory(dev, &alloc, nullptr, &raw_memory));
  MemoryHandle memory(dev, raw_memory);
  VK_RETURN_IF_ERROR(vkBindBufferMemory(dev, raw_buffer, raw_memory, 0));

  auto block = std::make_unique<Block>();
  const VkMemoryPropertyFlags flags = info.memory_types[memory_type].flags;
  if (flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
    void* ptr = nullptr;
    VK_RETURN_IF_ERROR(vkMapMemory(dev, raw_memory, 0, VK_WHOLE_SIZE, 0, &ptr));
    block->mapped = static_cast<uint8_t*>(ptr);
  }
  block->coherent = (flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0;
  block->device_local = (flags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) != 0;
  block->memory = std::move(memory);
  block->buffer = std::move(buffer);
  block->memory_type = memory_type;
  block->size = size;
  block->dedicated = dedicated;
  block->free.emplace(0, size);
  heap_used_[heap] += size;
  stats_.block_bytes += size;
  ++stats_.block_count;

  for (uint32_t i = 0; i < blocks_.size(); ++i) {
    if (blocks_[i] == nullptr) {
      blocks_[i] = std::move(block);
      return i;
    }
  }
  blocks_.push_back(std::move(block));
  return static_cast<uint32_t>(blocks_.size() - 1);
}

absl::StatusOr<Buffer> Allocator::Allocate(uint64_t size, MemoryUsage usage, MemoryKind kind) {
  const DeviceInfo& info = device_->info();
  if (size == 0) return absl::InvalidArgumentError("cannot allocate a buffer of 0 bytes");
  if (size > info.max_storage_buffer_range) {
    return absl::InvalidArgumentError(
        absl::StrCat("a buffer of ", size, " bytes exceeds the device's maxStorageBufferRange (",
                     info.max_storage_buffer_range, " bytes) and could not be bound"));
  }
  return AllocateImpl(size, usage, kind);
}

absl::StatusOr<Buffer> Allocator::AllocateUnbound(uint64_t size, MemoryUsage usage,
                                                  MemoryKind kind) {
  if (size == 0) return absl::InvalidArgumentError("cannot allocate a buffer of 0 bytes");
  return AllocateImpl(size, usage, kind);
}

absl::StatusOr<Buffer> Allocator::AllocateImpl(uint64_t size, MemoryUsage usage, MemoryKind kind) {
  const DeviceInfo& info = device_->info();
  if (FaultInjector* faults = device_->faults(); faults != nullptr && faults->OnAllocation()) {
    return absl::ResourceExhaustedError(
        absl::StrCat("out of GPU memory: a buffer of ", size,
                     " bytes could not be allocated (VK_ERROR_OUT_OF_DEVICE_MEMORY, injected)"));
  }
  const uint64_t reserved = AlignUp(size, alignment_);
  if (reserved > info.max_allocation_size) {
    return absl::ResourceExhaustedError(absl::StrCat("a buffer of ", size,
                                                     " bytes exceeds maxMemoryAllocationSize (",
                                                     info.max_allocation_size, ")"));
  }
  const uint32_t memory_type = type_for_usage_[static_cast<int>(usage)];

  MutexLock lock(&mutex_);
  int block_index = -1;
  uint64_t offset = 0;
  for (uint32_t i = 0; i < blocks_.size() && block_index < 0; ++i) {
    Block* b = blocks_[i].get();
    if (b == nullptr || b->memory_type != memory_type || b->size - b->used < reserved) continue;
    for (const auto& [free_offset, free_size] : b->free) {
      if (free_size >= reserved) {
        block_index = static_cast<int>(i);
        offset = free_offset;
        break;
      }
    }
  }
  if (block_index < 0) {
    const bool dedicated = reserved > options_.block_size;
    ASSIGN_OR_RETURN(
        uint32_t index,
        CreateBlock(memory_type, dedicated ? reserved : options_.block_size, dedicated));
    block_index = static_cast<int>(index);
    offset = 0;
  }
  Block& block = *blocks_[block_index];
  auto it = block.free.find(offset);
  const uint64_t free_size = it->second;
  block.free.erase(it);
  if (free_size > reserved) block.free.emplace(offset + reserved, free_size - reserved);
  block.used += reserved;

  Buffer buffer;
  buffer.allocator_ = this;
  buffer.block_ = static_cast<uint32_t>(block_index);
  buffer.buffer_ = block.buffer.get();
  buffer.offset_ = offset;
  buffer.size_ = size;
  buffer.reserved_ = reserved;
  buffer.mapped_ = block.mapped != nullptr ? block.mapped + offset : nullptr;
  buffer.device_local_ = block.device_local;
  buffer.coherent_ = block.coherent;
  buffer.kind_ = kind;
  stats_.bytes_by_kind[static_cast<int>(kind)] += size;
  ++stats_.allocation_count;
  return buffer;
}

void Allocator::Free(const Buffer& buffer) {
  MutexLock lock(&mutex_);
  Block& block = *blocks_[buffer.block_];
  uint64_t offset = buffer.offset_;
  uint64_t size = buffer.reserved_;
  // Coalesce with the neighbours.
  auto next = block.free.lower_bound(offset);
  if (next != block.free.end() && offset + size == next->first) {
    size += next->second;
    next = block.free.erase(next);
  }
  if (next != block.free.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == offset) {
      offset = prev->first;
      size += prev->second;
      block.free.erase(prev);
    }
  }
  block.free.emplace(offset, size);
  block.used -= buffer.reserved_;
  stats_.bytes_by_kind[static_cast<int>(buffer.kind_)] -= buffer.size_;
  --stats_.allocation_count;

  if (block.used != 0) return;
  // Keep one regular block per memory type to avoid churn; release the rest.
  bool keep = !block.dedicated;
  if (keep) {
    for (uint32_t i = 0; i < blocks_.size(); ++i) {
      const Block* other = blocks_[i].get();
      if (i != buffer.block_ && other != nullptr && !other->dedicated &&
          other->memory_type == block.memory_type) {
        keep = false;
        break;
      }
    }
  }
  if (keep) return;
  heap_used_[device_->info().memory_types[block.memory_type].heap] -= block.size;
  stats_.block_bytes -= block.size;
  --stats_.block_count;
  blocks_[buffer.block_].reset();
}

void Allocator::FlushOrInvalidate(const Buffer& buffer, uint64_t offset, uint64_t size,
                                  bool flush) const {
  MutexLock lock(&mutex_);
  const Block& block = *blocks_[buffer.block_];
  const uint64_t atom = std::max<uint64_t>(device_->info().non_coherent_atom_size, 1);
  const uint64_t begin = (buffer.offset_ + offset) / atom * atom;
  const uint64_t end = std::min(AlignUp(buffer.offset_ + offset + size, atom), block.size);
  VkMappedMemoryRange range{};
  range.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE;
  range.memory = block.memory.get();
  range.offset = begin;
  range.size = end - begin;
  // These only fail on host out-of-memory, which Envoy-style policy treats as fatal.
  VkResult result = flush ? vkFlushMappedMemoryRanges(device_->handle(), 1, &range)
                          : vkInvalidateMappedMemoryRanges(device_->handle(), 1, &range);
  if (result != VK_SUCCESS) {
    std::fprintf(stderr, "vkserve: mapped memory flush/invalidate failed (%d)\n", result);
    std::abort();
  }
}

AllocatorStats Allocator::stats() const {
  MutexLock lock(&mutex_);
  return stats_;
}

}  // namespace vkserve::gpu
