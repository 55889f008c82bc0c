// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/models/resident_registry.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/quote.h"

namespace vkserve {

ResidentRegistry::ResidentRegistry(const ResidentLimits& limits) : limits_(limits) {
  std::random_device seed;
  rng_.seed((static_cast<uint64_t>(seed()) << 32) ^ seed());
}

std::string ResidentRegistry::NewHandle() {
  // 128 random bits: a handle is a capability, so it must not be guessable.
  while (true) {
    std::string handle = absl::StrFormat("gpu-%016x%016x", rng_(), rng_());
    if (!entries_.count(handle)) return handle;
  }
}

size_t ResidentRegistry::ExpireLocked(absl::Time now) {
  size_t n = 0;
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (now - it->second.last_used > limits_.idle_expiry) {
      bytes_ -= it->second.tensor->byte_size();
      it->second.tensor->Release();
      it = entries_.erase(it);
      ++n;
    } else {
      ++it;
    }
  }
  expired_total_ += n;
  return n;
}

absl::StatusOr<std::string> ResidentRegistry::Add(std::shared_ptr<DeviceTensor> tensor,
                                                  const std::string& model, int64_t version) {
  MutexLock lock(&mutex_);
  const uint64_t size = tensor->byte_size();
  if (entries_.size() + 1 > limits_.max_count || bytes_ + size > limits_.max_bytes) {
    ExpireLocked(absl::Now());
  }
  if (entries_.size() + 1 > limits_.max_count || bytes_ + size > limits_.max_bytes) {
    tensor->Release();
    return absl::ResourceExhaustedError(
        absl::StrCat("GPU-resident output limit reached (", entries_.size(), " of ",
                     limits_.max_count, " handles, ", bytes_, " of ", limits_.max_bytes,
                     " bytes); release handles with the 'release' parameter"));
  }
  std::string handle = NewHandle();
  bytes_ += size;
  entries_[handle] = {std::move(tensor), model, version, absl::Now()};
  return handle;
}

absl::StatusOr<std::shared_ptr<DeviceTensor>> ResidentRegistry::Get(const std::string& handle) {
  MutexLock lock(&mutex_);
  auto it = entries_.find(handle);
  if (it == entries_.end()) {
    return absl::NotFoundError(absl::StrCat("unknown or released GPU handle ", Quoted(handle)));
  }
  it->second.last_used = absl::Now();
  return it->second.tensor;
}

absl::Status ResidentRegistry::Release(const std::string& handle) {
  MutexLock lock(&mutex_);
  auto it = entries_.find(handle);
  if (it == entries_.end()) {
    return absl::NotFoundError(absl::StrCat("unknown or released GPU handle ", Quoted(handle)));
  }
  bytes_ -= it->second.tensor->byte_size();
  it->second.tensor->Release();
  entries_.erase(it);
  return absl::OkStatus();
}

size_t ResidentRegistry::ExpireIdle(absl::Time now) {
  MutexLock lock(&mutex_);
  return ExpireLocked(now);
}

ResidentStats ResidentRegistry::stats() const {
  MutexLock lock(&mutex_);
  return {entries_.size(), bytes_, expired_total_};
}

std::map<std::pair<std::string, int64_t>, ResidentStats> ResidentRegistry::StatsByModel() const {
  MutexLock lock(&mutex_);
  std::map<std::pair<std::string, int64_t>, ResidentStats> out;
  for (const auto& [handle, e] : entries_) {
    ResidentStats& s = out[{e.model, e.version}];
    ++s.count;
    s.bytes += e.tensor->byte_size();
  }
  return out;
}

}  // namespace vkserve
