// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// `vkserve devices [--device SEL]`: lists every Vulkan device with the limits
// that size vkserve's kernels, and marks the one vkserve would pick.
#include <cstdio>

#include "gpu/device_info.h"
#include "gpu/instance.h"
#include "server/command.h"

namespace vkserve {

int RunDevicesCommand(const std::vector<std::string>& args) {
  std::string selector;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--device" && i + 1 < args.size()) {
      selector = args[++i];
    } else {
      std::fprintf(stderr, "usage: vkserve devices [--device INDEX|NAME]\n");
      return 2;
    }
  }
  auto instance = gpu::Instance::Create();
  if (!instance.ok()) {
    std::fprintf(stderr, "vkserve: %s\n", instance.status().ToString().c_str());
    return 1;
  }
  const auto& devices = (*instance)->devices();
  if (devices.empty()) {
    std::printf("no Vulkan devices\n");
    return 1;
  }
  for (const gpu::DeviceInfo& d : devices) std::printf("%s", d.ToString().c_str());
  auto selected = gpu::SelectDevice(devices, selector);
  if (!selected.ok()) {
    std::fprintf(stderr, "vkserve: %s\n", selected.status().ToString().c_str());
    return 1;
  }
  std::printf("selected: [%u] %s\n", (*selected)->index, (*selected)->name.c_str());
  return 0;
}

}  // namespace vkserve
