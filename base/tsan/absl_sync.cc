// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ThreadSanitizer builds only: makes the happens-before edges of Debian's
// (uninstrumented) absl::Mutex, absl::CondVar and absl::Notification visible
// to TSan.
//
// gRPC and gpr lock with absl::Mutex. Debian builds libabsl without TSan, so
// its lock and unlock are plain atomics TSan never sees, and every hand-off
// between gRPC's threads (a completion queue handing a finished call to the
// thread that runs its callback, a server reactor's OnDone running after the
// thread that called Finish) looks like a race. This file defines the
// exported Mutex/CondVar/Notification entry points in the executable itself: the
// dynamic linker binds gRPC's, gpr's and libabsl's own calls (through their
// PLTs) to these definitions, which call the real function found with
// dlsym(RTLD_NEXT) and tell TSan "acquire" after taking the lock and
// "release" before giving it up. What gRPC hands over through lock-free
// atomics alone stays invisible; scripts/sanitizer/tsan.supp names those.
//
// Thread-safety: every wrapper is as thread-safe as the function it wraps;
// the one-time symbol lookup is a function-local static.

#include <dlfcn.h>
#include <sanitizer/tsan_interface.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {

// Resolves the next definition of `symbol` (libabsl_synchronization's), or
// aborts: a TSan build that silently lost its lock model would report
// nonsense.
template <typename Fn>
Fn Next(const char* symbol) {
  void* fn = dlsym(RTLD_NEXT, symbol);
  if (fn == nullptr) {
    std::fprintf(stderr, "tsan_absl_sync: %s not found\n", symbol);
    std::abort();
  }
  return reinterpret_cast<Fn>(fn);
}

using MutexFn = void (*)(void*);
using MutexTryFn = bool (*)(void*);
using MutexCondFn = void (*)(void*, const void*);
using MutexCondTimedFn = bool (*)(void*, const void*, int64_t, uint32_t);
using WaitFn = void (*)(void*, void*);
using WaitTimedFn = bool (*)(void*, void*, int64_t, uint32_t);

}  // namespace

// The Itanium ABI passes `this` first; absl::Duration and absl::Time are a
// 64-bit and a 32-bit field passed in two registers. Each definition below
// carries the mangled name of the member function it stands in for.
#define VKSERVE_ABSL(name) "_ZN4absl7debian3" name
#define VKSERVE_ABSL_CONST(name) "_ZNK4absl7debian3" name  // a const member function

extern "C" {

void VkserveMutexLock(void* mu) __asm__(VKSERVE_ABSL("5Mutex4LockEv"));
void VkserveMutexLock(void* mu) {
  static const auto real = Next<MutexFn>(VKSERVE_ABSL("5Mutex4LockEv"));
  real(mu);
  __tsan_acquire(mu);
}

void VkserveMutexReaderLock(void* mu) __asm__(VKSERVE_ABSL("5Mutex10ReaderLockEv"));
void VkserveMutexReaderLock(void* mu) {
  static const auto real = Next<MutexFn>(VKSERVE_ABSL("5Mutex10ReaderLockEv"));
  real(mu);
  __tsan_acquire(mu);
}

bool VkserveMutexTryLock(void* mu) __asm__(VKSERVE_ABSL("5Mutex7TryLockEv"));
bool VkserveMutexTryLock(void* mu) {
  static const auto real = Next<MutexTryFn>(VKSERVE_ABSL("5Mutex7TryLockEv"));
  const bool locked = real(mu);
  if (locked) __tsan_acquire(mu);
  return locked;
}

bool VkserveMutexReaderTryLock(void* mu) __asm__(VKSERVE_ABSL("5Mutex13ReaderTryLockEv"));
bool VkserveMutexReaderTryLock(void* mu) {
  static const auto real = Next<MutexTryFn>(VKSERVE_ABSL("5Mutex13ReaderTryLockEv"));
  const bool locked = real(mu);
  if (locked) __tsan_acquire(mu);
  return locked;
}

void VkserveMutexUnlock(void* mu) __asm__(VKSERVE_ABSL("5Mutex6UnlockEv"));
void VkserveMutexUnlock(void* mu) {
  static const auto real = Next<MutexFn>(VKSERVE_ABSL("5Mutex6UnlockEv"));
  __tsan_release(mu);
  real(mu);
}

void VkserveMutexReaderUnlock(void* mu) __asm__(VKSERVE_ABSL("5Mutex12ReaderUnlockEv"));
void VkserveMutexReaderUnlock(void* mu) {
  static const auto real = Next<MutexFn>(VKSERVE_ABSL("5Mutex12ReaderUnlockEv"));
  __tsan_release(mu);
  real(mu);
}

void VkserveMutexLockWhen(void* mu, const void* cond) __asm__(
    VKSERVE_ABSL("5Mutex8LockWhenERKNS0_9ConditionE"));
void VkserveMutexLockWhen(void* mu, const void* cond) {
  static const auto real = Next<MutexCondFn>(VKSERVE_ABSL("5Mutex8LockWhenERKNS0_9ConditionE"));
  real(mu, cond);
  __tsan_acquire(mu);
}

// Await and the timed waits give the lock up inside and take it back.
void VkserveMutexAwait(void* mu,
                       const void* cond) __asm__(VKSERVE_ABSL("5Mutex5AwaitERKNS0_9ConditionE"));
void VkserveMutexAwait(void* mu, const void* cond) {
  static const auto real = Next<MutexCondFn>(VKSERVE_ABSL("5Mutex5AwaitERKNS0_9ConditionE"));
  __tsan_release(mu);
  real(mu, cond);
  __tsan_acquire(mu);
}

bool VkserveMutexLockWhenWithTimeout(void* mu, const void* cond, int64_t hi, uint32_t lo) __asm__(
    VKSERVE_ABSL("5Mutex19LockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE"));
bool VkserveMutexLockWhenWithTimeout(void* mu, const void* cond, int64_t hi, uint32_t lo) {
  static const auto real = Next<MutexCondTimedFn>(
      VKSERVE_ABSL("5Mutex19LockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE"));
  const bool met = real(mu, cond, hi, lo);
  __tsan_acquire(mu);
  return met;
}

bool VkserveMutexLockWhenWithDeadline(void* mu, const void* cond, int64_t hi, uint32_t lo) __asm__(
    VKSERVE_ABSL("5Mutex20LockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE"));
bool VkserveMutexLockWhenWithDeadline(void* mu, const void* cond, int64_t hi, uint32_t lo) {
  static const auto real = Next<MutexCondTimedFn>(
      VKSERVE_ABSL("5Mutex20LockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE"));
  const bool met = real(mu, cond, hi, lo);
  __tsan_acquire(mu);
  return met;
}

void VkserveCondVarWait(void* cv, void* mu) __asm__(VKSERVE_ABSL("7CondVar4WaitEPNS0_5MutexE"));
void VkserveCondVarWait(void* cv, void* mu) {
  static const auto real = Next<WaitFn>(VKSERVE_ABSL("7CondVar4WaitEPNS0_5MutexE"));
  __tsan_release(mu);
  real(cv, mu);
  __tsan_acquire(mu);
}

bool VkserveCondVarWaitWithTimeout(void* cv, void* mu, int64_t hi, uint32_t lo) __asm__(
    VKSERVE_ABSL("7CondVar15WaitWithTimeoutEPNS0_5MutexENS0_8DurationE"));
bool VkserveCondVarWaitWithTimeout(void* cv, void* mu, int64_t hi, uint32_t lo) {
  static const auto real =
      Next<WaitTimedFn>(VKSERVE_ABSL("7CondVar15WaitWithTimeoutEPNS0_5MutexENS0_8DurationE"));
  __tsan_release(mu);
  const bool timed_out = real(cv, mu, hi, lo);
  __tsan_acquire(mu);
  return timed_out;
}

bool VkserveCondVarWaitWithDeadline(void* cv, void* mu, int64_t hi, uint32_t lo) __asm__(
    VKSERVE_ABSL("7CondVar16WaitWithDeadlineEPNS0_5MutexENS0_4TimeE"));
bool VkserveCondVarWaitWithDeadline(void* cv, void* mu, int64_t hi, uint32_t lo) {
  static const auto real =
      Next<WaitTimedFn>(VKSERVE_ABSL("7CondVar16WaitWithDeadlineEPNS0_5MutexENS0_4TimeE"));
  __tsan_release(mu);
  const bool timed_out = real(cv, mu, hi, lo);
  __tsan_acquire(mu);
  return timed_out;
}

// absl::Notification: WaitForNotification returns at once, without taking
// the mutex, once the (uninstrumented) flag is set.
void VkserveNotificationNotify(void* n) __asm__(VKSERVE_ABSL("12Notification6NotifyEv"));
void VkserveNotificationNotify(void* n) {
  static const auto real = Next<MutexFn>(VKSERVE_ABSL("12Notification6NotifyEv"));
  __tsan_release(n);
  real(n);
}

void VkserveNotificationWait(const void* n) __asm__(
    VKSERVE_ABSL_CONST("12Notification19WaitForNotificationEv"));
void VkserveNotificationWait(const void* n) {
  static const auto real =
      Next<void (*)(const void*)>(VKSERVE_ABSL_CONST("12Notification19WaitForNotificationEv"));
  real(n);
  __tsan_acquire(const_cast<void*>(n));
}

bool VkserveNotificationWaitWithTimeout(const void* n, int64_t hi, uint32_t lo) __asm__(
    VKSERVE_ABSL_CONST("12Notification30WaitForNotificationWithTimeoutENS0_8DurationE"));
bool VkserveNotificationWaitWithTimeout(const void* n, int64_t hi, uint32_t lo) {
  static const auto real = Next<bool (*)(const void*, int64_t, uint32_t)>(
      VKSERVE_ABSL_CONST("12Notification30WaitForNotificationWithTimeoutENS0_8DurationE"));
  const bool notified = real(n, hi, lo);
  if (notified) __tsan_acquire(const_cast<void*>(n));
  return notified;
}

bool VkserveNotificationWaitWithDeadline(const void* n, int64_t hi, uint32_t lo) __asm__(
    VKSERVE_ABSL_CONST("12Notification31WaitForNotificationWithDeadlineENS0_4TimeE"));
bool VkserveNotificationWaitWithDeadline(const void* n, int64_t hi, uint32_t lo) {
  static const auto real = Next<bool (*)(const void*, int64_t, uint32_t)>(
      VKSERVE_ABSL_CONST("12Notification31WaitForNotificationWithDeadlineENS0_4TimeE"));
  const bool notified = real(n, hi, lo);
  if (notified) __tsan_acquire(const_cast<void*>(n));
  return notified;
}

}  // extern "C"
