// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "gpu/fault_injector.h"

namespace vkserve::gpu {

void FaultInjector::FailAllocation(uint64_t n) {
  absl::MutexLock lock(&mutex_);
  fail_allocation_at_ = n == 0 ? 0 : allocations_ + n;
}

void FaultInjector::LoseDeviceAtSubmit(uint64_t n) {
  absl::MutexLock lock(&mutex_);
  lose_device_at_ = n == 0 ? 0 : submissions_ + n;
}

uint64_t FaultInjector::allocations() const {
  absl::MutexLock lock(&mutex_);
  return allocations_;
}

uint64_t FaultInjector::submissions() const {
  absl::MutexLock lock(&mutex_);
  return submissions_;
}

bool FaultInjector::OnAllocation() {
  absl::MutexLock lock(&mutex_);
  if (++allocations_ != fail_allocation_at_) return false;
  fail_allocation_at_ = 0;
  return true;
}

bool FaultInjector::OnSubmission() {
  absl::MutexLock lock(&mutex_);
  if (++submissions_ != lose_device_at_) return false;
  lose_device_at_ = 0;
  return true;
}

}  // namespace vkserve::gpu
