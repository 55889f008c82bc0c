// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ThreadSanitizer builds only: keeps the libraries that
// scripts/sanitizer/tsan.supp names with called_from_lib loaded for the
// whole run. TSan refuses to let such a library be unloaded (it prints
// "library ... is unloaded" and exits 66), and the Vulkan loader dlcloses the
// driver and the validation layer when the last instance is destroyed, as a
// test's Server does at shutdown. Opening them once more with RTLD_NODELETE
// before any instance exists makes the loader's dlclose a no-op. A library
// that is not installed is skipped: the loader will not open it either.
#include <dlfcn.h>

#include <initializer_list>

namespace {

struct PinnedLibraries {
  PinnedLibraries() {
    for (const char* name : {"libvulkan.so.1", "libvulkan_lvp.so", "libVkLayer_khronos_validation.so"}) {
      dlopen(name, RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
    }
  }
};

const PinnedLibraries pinned;

}  // namespace
