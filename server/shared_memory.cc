// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/shared_memory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace vkserve {

struct SharedMemoryManager::Region {
  SharedMemoryRegionInfo info;
  void* map_base = nullptr;   // page-aligned mapping
  size_t map_length = 0;
  uint8_t* data = nullptr;    // the region's first byte
  bool writable = false;
  ~Region() {
    if (map_base != nullptr) munmap(map_base, map_length);
  }
};

SharedMemoryManager::~SharedMemoryManager() = default;

absl::Status SharedMemoryManager::Register(const std::string& name, const std::string& key,
                                           uint64_t offset, uint64_t byte_size) {
  if (!enabled_) {
    return absl::FailedPreconditionError(
        "system shared memory is disabled on this server; set limits { allow_shared_memory: true } "
        "in the server config to enable it");
  }
  if (name.empty()) return absl::InvalidArgumentError("a shared-memory region needs a name");
  if (key.empty()) return absl::InvalidArgumentError(absl::StrCat("region '", name, "': empty key"));
  if (byte_size == 0) return absl::InvalidArgumentError(absl::StrCat("region '", name, "': byte_size is 0"));
  {
    absl::MutexLock lock(&mutex_);
    if (regions_.contains(name)) {
      return absl::AlreadyExistsError(absl::StrCat("shared-memory region '", name, "' is already registered"));
    }
  }
  bool writable = true;
  int fd = shm_open(key.c_str(), O_RDWR, 0);
  if (fd < 0 && (errno == EACCES || errno == EPERM)) {
    writable = false;
    fd = shm_open(key.c_str(), O_RDONLY, 0);
  }
  if (fd < 0) {
    // The key is not echoed (it may be sensitive); the region name is.
    return absl::NotFoundError(absl::StrCat("region '", name, "': cannot open the shared-memory object: ",
                                            std::strerror(errno)));
  }
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    const int err = errno;
    close(fd);
    return absl::InternalError(absl::StrCat("region '", name, "': fstat: ", std::strerror(err)));
  }
  const uint64_t object_size = static_cast<uint64_t>(st.st_size);
  if (offset > object_size || byte_size > object_size - offset) {
    close(fd);
    return absl::InvalidArgumentError(absl::StrCat("region '", name, "': offset ", offset, " + byte_size ",
                                                   byte_size, " exceeds the object's ", object_size,
                                                   " bytes"));
  }
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t aligned = offset / page * page;
  const size_t length = static_cast<size_t>(byte_size + (offset - aligned));
  void* base = mmap(nullptr, length, writable ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, fd,
                    static_cast<off_t>(aligned));
  const int map_errno = errno;
  close(fd);
  if (base == MAP_FAILED) {
    return absl::InternalError(absl::StrCat("region '", name, "': mmap: ", std::strerror(map_errno)));
  }
  auto region = std::make_shared<Region>();
  region->info = {name, key, offset, byte_size};
  region->map_base = base;
  region->map_length = length;
  region->data = static_cast<uint8_t*>(base) + (offset - aligned);
  region->writable = writable;
  absl::MutexLock lock(&mutex_);
  if (!regions_.emplace(name, std::move(region)).second) {
    return absl::AlreadyExistsError(absl::StrCat("shared-memory region '", name, "' is already registered"));
  }
  return absl::OkStatus();
}

absl::Status SharedMemoryManager::Unregister(const std::string& name) {
  absl::MutexLock lock(&mutex_);
  if (name.empty()) {
    regions_.clear();
    return absl::OkStatus();
  }
  if (regions_.erase(name) == 0) {
    return absl::NotFoundError(absl::StrCat("shared-memory region '", name, "' is not registered"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<SharedMemoryRegionInfo>> SharedMemoryManager::Status(
    const std::string& name) const {
  std::vector<SharedMemoryRegionInfo> out;
  absl::MutexLock lock(&mutex_);
  if (!name.empty()) {
    auto it = regions_.find(name);
    if (it == regions_.end()) {
      return absl::NotFoundError(absl::StrCat("shared-memory region '", name, "' is not registered"));
    }
    out.push_back(it->second->info);
    return out;
  }
  for (const auto& [n, r] : regions_) out.push_back(r->info);
  return out;
}

absl::StatusOr<SharedMemoryManager::Range> SharedMemoryManager::Resolve(const std::string& name,
                                                                        uint64_t offset,
                                                                        uint64_t byte_size) const {
  std::shared_ptr<const Region> region;
  {
    absl::MutexLock lock(&mutex_);
    auto it = regions_.find(name);
    if (it == regions_.end()) {
      return absl::NotFoundError(absl::StrCat("shared-memory region '", name, "' is not registered"));
    }
    region = it->second;
  }
  const uint64_t size = region->info.byte_size;
  if (offset > size || byte_size > size - offset) {
    return absl::InvalidArgumentError(absl::StrCat("shared-memory range [", offset, ", +", byte_size,
                                                   ") is outside region '", name, "' (", size, " bytes)"));
  }
  Range range;
  range.bytes = std::span<uint8_t>(region->data + offset, static_cast<size_t>(byte_size));
  range.writable = region->writable;
  range.region = std::move(region);
  return range;
}

}  // namespace vkserve
