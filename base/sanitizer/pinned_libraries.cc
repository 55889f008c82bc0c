// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Sanitizer builds only (ASan, TSan, the fuzzers): keeps the Vulkan loader,
// lavapipe and the validation layer loaded for the whole run. The Vulkan
// loader dlcloses the driver and the layer when the last instance is
// destroyed, as a test's Server does at shutdown. TSan refuses to let a
// library that tsan.supp names with called_from_lib be unloaded (it prints
// "library ... is unloaded" and exits 66); LeakSanitizer, which checks at
// exit, prints an unloaded library's frames as "<unknown module>", so the
// lsan.supp entries that name these third-party libraries no longer match
// their lifetime allocations. Opening them once more with RTLD_NODELETE
// before any instance exists makes the loader's dlclose a no-op. A library
// that is not installed is skipped: the loader will not open it either.
#include <dlfcn.h>

#include <initializer_list>

namespace {

struct PinnedLibraries {
  PinnedLibraries() {
    for (const char* name :
         {"libvulkan.so.1", "libvulkan_lvp.so", "libVkLayer_khronos_validation.so"}) {
      dlopen(name, RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
    }
  }
};

const PinnedLibraries pinned;

}  // namespace
