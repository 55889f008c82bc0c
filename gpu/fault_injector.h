// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// FaultInjector: makes the GPU layer fail on purpose, so tests can drive the
// paths real faults take — a driver out of memory at any allocation, a device
// lost at any submission — without a broken GPU. A Device created with one
// consults it at every Allocator::Allocate/AllocateUnbound and every
// Queue::Submit; production devices have none (DeviceOptions::faults null)
// and pay one pointer test.
//
// Faults are armed by count from "now": FailAllocation(3) fails the third
// allocation after the call, once. LoseDeviceAtSubmit(n) loses the device at
// the n-th submission; a lost device stays lost (every later submit and wait
// reports VK_ERROR_DEVICE_LOST), as a real one does. WedgeAtSubmit(n) makes
// the n-th submission block until Unwedge(), as a hung GPU queue would: the
// submitting thread (and the queue, whose lock it holds) makes no progress.
//
// Thread-safe.
#ifndef VKSERVE_GPU_FAULT_INJECTOR_H_
#define VKSERVE_GPU_FAULT_INJECTOR_H_

#include <cstdint>

#include "base/mutex.h"

namespace vkserve::gpu {

class FaultInjector {
 public:
  // The `n`-th allocation from now (1 = the next) fails; 0 disarms.
  void FailAllocation(uint64_t n);
  // The `n`-th submission from now (1 = the next) loses the device; 0 disarms.
  void LoseDeviceAtSubmit(uint64_t n);

  // The `n`-th submission from now (1 = the next) blocks until Unwedge();
  // 0 disarms.
  void WedgeAtSubmit(uint64_t n);
  // Releases a wedged submission (it then goes on normally) and disarms.
  void Unwedge();
  // Whether a submission is blocked in a wedge now.
  bool wedged() const;

  // Allocations and submissions seen so far (failed ones included).
  uint64_t allocations() const;
  uint64_t submissions() const;

  // Called by the Allocator before each allocation: true = fail this one.
  bool OnAllocation();
  // Called by the Queue before each submission: true = the device is lost.
  // Blocks while the submission is wedged.
  bool OnSubmission();

 private:
  mutable Mutex mutex_;
  uint64_t allocations_ ABSL_GUARDED_BY(mutex_) = 0;
  uint64_t submissions_ ABSL_GUARDED_BY(mutex_) = 0;
  uint64_t fail_allocation_at_ ABSL_GUARDED_BY(mutex_) = 0;  // 0: disarmed
  uint64_t lose_device_at_ ABSL_GUARDED_BY(mutex_) = 0;      // 0: disarmed
  uint64_t wedge_at_ ABSL_GUARDED_BY(mutex_) = 0;            // 0: disarmed
  bool wedged_ ABSL_GUARDED_BY(mutex_) = false;              // a submission is blocked
};

}  // namespace vkserve::gpu

#endif  // VKSERVE_GPU_FAULT_INJECTOR_H_
