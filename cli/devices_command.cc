// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// `vkserve devices [--device SEL]`: lists every Vulkan device with the limits
// that size vkserve's kernels, and marks the one vkserve would pick.
#include <cstdio>
#include <memory>
#include <string>

#include "cli/command.h"
#include "gpu/device_info.h"
#include "gpu/instance.h"

namespace vkserve {
namespace {

int ListDevices(const std::string& selector) {
  auto instance = gpu::Instance::Create();
  if (!instance.ok()) {
    std::fprintf(stderr, "vkserve: %s\n", instance.status().ToString().c_str());
    return kExitFailure;
  }
  const auto& devices = (*instance)->devices();
  if (devices.empty()) {
    std::printf("no Vulkan devices\n");
    return kExitFailure;
  }
  for (const gpu::DeviceInfo& d : devices) std::printf("%s", d.ToString().c_str());
  auto selected = gpu::SelectDevice(devices, selector);
  if (!selected.ok()) {
    std::fprintf(stderr, "vkserve: %s\n", selected.status().ToString().c_str());
    return kExitFailure;
  }
  std::printf("selected: [%u] %s\n", (*selected)->index, (*selected)->name.c_str());
  return 0;
}

}  // namespace

CommandRunner AddDevicesCommand(CLI::App& command) {
  auto selector = std::make_shared<std::string>();
  command
      .add_option("--device", *selector,
                  "mark the device this selector picks (an index, a name substring or a "
                  "UUID) instead of the best one")
      ->type_name("SEL");
  command.footer("example: vkserve devices --device 1");
  return [selector] { return ListDevices(*selector); };
}

}  // namespace vkserve
