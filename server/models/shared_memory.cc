// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/models/shared_memory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "base/quote.h"

namespace vkserve {
namespace {

std::string RegionLabel(const std::string& name) {
  return absl::StrCat("shared-memory region ", Quoted(name));
}

absl::StatusOr<uint64_t> ObjectSize(int fd, const std::string& name) {
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    return absl::InternalError(absl::StrCat(RegionLabel(name), ": fstat: ", std::strerror(errno)));
  }
  return static_cast<uint64_t>(st.st_size);
}

absl::Status Shrunk(const std::string& name, uint64_t object_size, uint64_t offset, uint64_t size) {
  return absl::OutOfRangeError(
      absl::StrCat(RegionLabel(name), ": the shared-memory object has shrunk to ", object_size,
                   " bytes; the request's range is [", offset, ", ", offset + size, ") of it"));
}

}  // namespace

struct SharedMemoryManager::Region {
  SharedMemoryRegionInfo info;
  int fd = -1;
  bool writable = false;
  ~Region() {
    if (fd >= 0) close(fd);
  }
};

SharedMemoryManager::~SharedMemoryManager() = default;

bool SharedMemoryManager::Range::writable() const { return region_->writable; }

const std::string& SharedMemoryManager::Range::region_name() const { return region_->info.name; }

absl::Status SharedMemoryManager::Range::Read(std::span<uint8_t> dst) const {
  if (dst.size() != size_) {
    return absl::InternalError(
        absl::StrCat("shared-memory read of ", dst.size(), " bytes from a range of ", size_));
  }
  size_t done = 0;
  while (done < dst.size()) {
    const ssize_t n = pread(region_->fd, dst.data() + done, dst.size() - done,
                            static_cast<off_t>(object_offset_ + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return absl::InternalError(
          absl::StrCat(RegionLabel(region_->info.name), ": read: ", std::strerror(errno)));
    }
    if (n == 0) {  // end of the object: the client shrank it
      auto size = ObjectSize(region_->fd, region_->info.name);
      return Shrunk(region_->info.name, size.value_or(object_offset_ + done), object_offset_,
                    size_);
    }
    done += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

absl::Status SharedMemoryManager::Range::Write(std::span<const uint8_t> src) const {
  const std::string& name = region_->info.name;
  if (!region_->writable)
    return absl::FailedPreconditionError(absl::StrCat(RegionLabel(name), " is read-only"));
  if (src.size() > size_) {
    return absl::InternalError(
        absl::StrCat("shared-memory write of ", src.size(), " bytes to a range of ", size_));
  }
  // pwrite past the end would grow the object rather than fail; refuse a
  // shrunk object instead. Should it shrink after this check, the write
  // grows it back, never beyond the range the client registered.
  auto object_size = ObjectSize(region_->fd, name);
  if (!object_size.ok()) return object_size.status();
  if (*object_size < object_offset_ + size_)
    return Shrunk(name, *object_size, object_offset_, size_);
  size_t done = 0;
  while (done < src.size()) {
    const ssize_t n = pwrite(region_->fd, src.data() + done, src.size() - done,
                             static_cast<off_t>(object_offset_ + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return absl::InternalError(absl::StrCat(
          RegionLabel(name), ": write: ", n < 0 ? std::strerror(errno) : "no progress"));
    }
    done += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

absl::Status SharedMemoryManager::Register(const std::string& name, const std::string& key,
                                           uint64_t offset, uint64_t byte_size) {
  if (!enabled_) {
    return absl::FailedPreconditionError(
        "system shared memory is disabled on this server; set limits { allow_shared_memory: true } "
        "in the server config to enable it");
  }
  if (name.empty()) return absl::InvalidArgumentError("a shared-memory region needs a name");
  if (name.size() > kMaxSharedMemoryNameBytes) {
    return absl::InvalidArgumentError(absl::StrCat("region ", Quoted(name),
                                                   ": a region name has at most ",
                                                   kMaxSharedMemoryNameBytes, " bytes"));
  }
  if (key.empty())
    return absl::InvalidArgumentError(absl::StrCat("region ", Quoted(name), ": empty key"));
  if (byte_size == 0)
    return absl::InvalidArgumentError(absl::StrCat("region ", Quoted(name), ": byte_size is 0"));
  {
    MutexLock lock(&mutex_);
    if (regions_.contains(name)) {
      return absl::AlreadyExistsError(absl::StrCat(RegionLabel(name), " is already registered"));
    }
    if (regions_.size() >= max_regions_) {
      return absl::ResourceExhaustedError(
          absl::StrCat("this server holds at most ", max_regions_,
                       " shared-memory regions; unregister some first"));
    }
  }
  // O_NONBLOCK: a FIFO planted under the key must not block this thread in
  // open(); anything but a regular object is refused below.
  bool writable = true;
  int fd = shm_open(key.c_str(), O_RDWR | O_NONBLOCK, 0);
  if (fd < 0 && (errno == EACCES || errno == EPERM)) {
    writable = false;
    fd = shm_open(key.c_str(), O_RDONLY | O_NONBLOCK, 0);
  }
  if (fd < 0) {
    // The key is not echoed (it may be sensitive); the region name is.
    return absl::NotFoundError(absl::StrCat(
        "region ", Quoted(name), ": cannot open the shared-memory object: ", std::strerror(errno)));
  }
  auto region = std::make_shared<Region>();  // owns fd from here on
  region->fd = fd;
  region->writable = writable;
  region->info = {name, key, offset, byte_size};
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    return absl::InternalError(
        absl::StrCat("region ", Quoted(name), ": fstat: ", std::strerror(errno)));
  }
  if (!S_ISREG(st.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat("region ", Quoted(name), ": the key names no shared-memory object"));
  }
  const uint64_t object_size = static_cast<uint64_t>(st.st_size);
  if (offset > object_size || byte_size > object_size - offset) {
    return absl::InvalidArgumentError(
        absl::StrCat("region ", Quoted(name), ": offset ", offset, " + byte_size ", byte_size,
                     " exceeds the object's ", object_size, " bytes"));
  }
  MutexLock lock(&mutex_);
  if (regions_.size() >= max_regions_) {
    return absl::ResourceExhaustedError(
        absl::StrCat("this server holds at most ", max_regions_,
                     " shared-memory regions; unregister some first"));
  }
  if (!regions_.emplace(name, std::move(region)).second) {
    return absl::AlreadyExistsError(absl::StrCat(RegionLabel(name), " is already registered"));
  }
  return absl::OkStatus();
}

absl::Status SharedMemoryManager::Unregister(const std::string& name) {
  MutexLock lock(&mutex_);
  if (name.empty()) {
    regions_.clear();
    return absl::OkStatus();
  }
  if (regions_.erase(name) == 0) {
    return absl::NotFoundError(absl::StrCat(RegionLabel(name), " is not registered"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<SharedMemoryRegionInfo>> SharedMemoryManager::Status(
    const std::string& name) const {
  std::vector<SharedMemoryRegionInfo> out;
  MutexLock lock(&mutex_);
  if (!name.empty()) {
    auto it = regions_.find(name);
    if (it == regions_.end()) {
      return absl::NotFoundError(absl::StrCat(RegionLabel(name), " is not registered"));
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
    MutexLock lock(&mutex_);
    auto it = regions_.find(name);
    if (it == regions_.end()) {
      return absl::NotFoundError(absl::StrCat(RegionLabel(name), " is not registered"));
    }
    region = it->second;
  }
  const uint64_t size = region->info.byte_size;
  if (offset > size || byte_size > size - offset) {
    return absl::InvalidArgumentError(absl::StrCat("shared-memory range [", offset, ", +",
                                                   byte_size, ") is outside region ", Quoted(name),
                                                   " (", size, " bytes)"));
  }
  Range range;
  range.object_offset_ = region->info.offset + offset;
  range.size_ = byte_size;
  range.region_ = std::move(region);
  return range;
}

}  // namespace vkserve
