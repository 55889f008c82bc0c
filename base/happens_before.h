// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// VKSERVE_HAPPENS_BEFORE(p) and VKSERVE_HAPPENS_AFTER(p): tell
// ThreadSanitizer about an ordering that a library without TSan
// instrumentation guarantees. gRPC promises that a reactor's OnDone runs after
// its OnCancel and after the Finish that ends it, and that OnWriteDone and
// OnReadDone follow their StartWrite and StartRead; it keeps those promises
// with atomics inside Debian's uninstrumented libgrpc, which TSan cannot see.
// A HAPPENS_BEFORE(p) on one thread followed by a HAPPENS_AFTER(p) on another
// orders everything before the first ahead of everything after the second.
// Both compile to nothing outside TSan builds. Thread-safe.
#ifndef VKSERVE_BASE_HAPPENS_BEFORE_H_
#define VKSERVE_BASE_HAPPENS_BEFORE_H_

#if defined(__SANITIZE_THREAD__)
#define VKSERVE_TSAN_ANNOTATIONS 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define VKSERVE_TSAN_ANNOTATIONS 1
#endif
#endif

#ifdef VKSERVE_TSAN_ANNOTATIONS
#include <sanitizer/tsan_interface.h>
#define VKSERVE_TSAN_ADDRESS_(p) const_cast<void*>(static_cast<const volatile void*>(p))
#define VKSERVE_HAPPENS_BEFORE(p) __tsan_release(VKSERVE_TSAN_ADDRESS_(p))
#define VKSERVE_HAPPENS_AFTER(p) __tsan_acquire(VKSERVE_TSAN_ADDRESS_(p))
#else
#define VKSERVE_HAPPENS_BEFORE(p) static_cast<void>(p)
#define VKSERVE_HAPPENS_AFTER(p) static_cast<void>(p)
#endif

#endif  // VKSERVE_BASE_HAPPENS_BEFORE_H_
