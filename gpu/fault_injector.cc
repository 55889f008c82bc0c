// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "gpu/fault_injector.h"

namespace vkserve::gpu {

void FaultInjector::FailAllocation(uint64_t n) {
  MutexLock lock(&mutex_);
  fail_allocation_at_ = n == 0 ? 0 : allocations_ + n;
}

void FaultInjector::LoseDeviceAtSubmit(uint64_t n) {
  MutexLock lock(&mutex_);
  lose_device_at_ = n == 0 ? 0 : submissions_ + n;
}

void FaultInjector::WedgeAtSubmit(uint64_t n) {
  MutexLock lock(&mutex_);
  wedge_at_ = n == 0 ? 0 : submissions_ + n;
}

void FaultInjector::Unwedge() {
  MutexLock lock(&mutex_);
  wedge_at_ = 0;
  wedged_ = false;
}

bool FaultInjector::wedged() const {
  MutexLock lock(&mutex_);
  return wedged_;
}

uint64_t FaultInjector::allocations() const {
  MutexLock lock(&mutex_);
  return allocations_;
}

uint64_t FaultInjector::submissions() const {
  MutexLock lock(&mutex_);
  return submissions_;
}

bool FaultInjector::OnAllocation() {
  MutexLock lock(&mutex_);
  if (++allocations_ != fail_allocation_at_) return false;
  fail_allocation_at_ = 0;
  return true;
}

bool FaultInjector::OnSubmission() {
  MutexLock lock(&mutex_);
  ++submissions_;
  if (submissions_ == wedge_at_) {
    wedged_ = true;
    // Await releases the lock while blocked, so Unwedge() can get it.
    mutex_.Await(Condition(
        +[](bool* wedged) { return !*wedged; }, &wedged_));
  }
  if (submissions_ != lose_device_at_) return false;
  lose_device_at_ = 0;
  return true;
}

}  // namespace vkserve::gpu
