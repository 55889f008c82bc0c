// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// vkserve::Mutex and friends: absl::Mutex, MutexLock, ReaderMutexLock and
// Condition in every ordinary build. Under ThreadSanitizer they become a
// twin built on std::mutex and std::condition_variable, with the same
// interface and thread-safety annotations, because Debian's libabsl is not
// compiled with -fsanitize=thread: TSan cannot see the hand-offs inside
// absl::Mutex and would report every access it guards as a race. pthread
// mutexes are intercepted by TSan, so the twin makes those hand-offs
// visible and lets the sanitizer judge vkserve's own locking.
//
// The twin is correct but not fast (every Unlock wakes the waiters, which
// re-check their Condition; reader locks are exclusive); it exists for TSan
// builds only. Thread-safe, as its model.
#ifndef VKSERVE_BASE_MUTEX_H_
#define VKSERVE_BASE_MUTEX_H_

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

#if defined(__SANITIZE_THREAD__)
#define VKSERVE_TSAN_MUTEX 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define VKSERVE_TSAN_MUTEX 1
#endif
#endif

#ifdef VKSERVE_TSAN_MUTEX
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#endif

namespace vkserve {

#ifndef VKSERVE_TSAN_MUTEX

using Mutex = absl::Mutex;
using MutexLock = absl::MutexLock;
using ReaderMutexLock = absl::ReaderMutexLock;
using Condition = absl::Condition;

#else

// A predicate evaluated with the mutex held, as absl::Condition.
class Condition {
 public:
  explicit Condition(const bool* flag) : eval_([flag] { return *flag; }) {}
  template <typename T>
  Condition(bool (*func)(T*), T* arg) : eval_([func, arg] { return func(arg); }) {}
  template <typename T>
  Condition(T* object, bool (T::*method)())
      : eval_([object, method] { return (object->*method)(); }) {}
  template <typename T>
  Condition(const T* object, bool (T::*method)() const)
      : eval_([object, method] { return (object->*method)(); }) {}
  bool Eval() const { return eval_(); }

 private:
  std::function<bool()> eval_;
};

class ABSL_LOCKABLE Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { mutex_.lock(); }
  void Unlock() ABSL_UNLOCK_FUNCTION() {
    // Any waiter's condition may have changed under the lock.
    changed_.notify_all();
    mutex_.unlock();
  }
  void ReaderLock() ABSL_SHARED_LOCK_FUNCTION() { Lock(); }
  void ReaderUnlock() ABSL_UNLOCK_FUNCTION() { Unlock(); }
  void AssertHeld() const ABSL_ASSERT_EXCLUSIVE_LOCK() {}
  void AssertReaderHeld() const ABSL_ASSERT_SHARED_LOCK() {}

  // REQUIRES: held. Returns with it held and `condition` true.
  void Await(const Condition& condition) {
    std::unique_lock<std::mutex> lock(mutex_, std::adopt_lock);
    changed_.wait(lock, [&] { return condition.Eval(); });
    lock.release();
  }
  // As Await, giving up after `timeout`; returns the condition's value.
  bool AwaitWithTimeout(const Condition& condition, absl::Duration timeout) {
    return AwaitWithDeadline(condition, absl::Now() + timeout);
  }
  bool AwaitWithDeadline(const Condition& condition, absl::Time deadline) {
    std::unique_lock<std::mutex> lock(mutex_, std::adopt_lock);
    const bool met =
        changed_.wait_until(lock, absl::ToChronoTime(deadline), [&] { return condition.Eval(); });
    lock.release();
    return met;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
};

class ABSL_SCOPED_LOCKABLE MutexLock {
 public:
  explicit MutexLock(Mutex* mutex) ABSL_EXCLUSIVE_LOCK_FUNCTION(mutex) : mutex_(mutex) {
    mutex_->Lock();
  }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;
  ~MutexLock() ABSL_UNLOCK_FUNCTION() { mutex_->Unlock(); }

 private:
  Mutex* const mutex_;
};

class ABSL_SCOPED_LOCKABLE ReaderMutexLock {
 public:
  explicit ReaderMutexLock(Mutex* mutex) ABSL_SHARED_LOCK_FUNCTION(mutex) : mutex_(mutex) {
    mutex_->ReaderLock();
  }
  ReaderMutexLock(const ReaderMutexLock&) = delete;
  ReaderMutexLock& operator=(const ReaderMutexLock&) = delete;
  ~ReaderMutexLock() ABSL_UNLOCK_FUNCTION() { mutex_->ReaderUnlock(); }

 private:
  Mutex* const mutex_;
};

#endif  // VKSERVE_TSAN_MUTEX

}  // namespace vkserve

#endif  // VKSERVE_BASE_MUTEX_H_
