// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/command.h"

#include <cstdio>
#include <string_view>

#include "server/logging.h"

namespace vkserve {
namespace {

struct Subcommand {
  std::string_view name;
  int (*run)(const std::vector<std::string>&);
  std::string_view help;
};

constexpr Subcommand kSubcommands[] = {
    {"devices", &RunDevicesCommand, "list Vulkan devices and the limits vkserve uses"},
    {"inspect", &RunInspectCommand, "show a model's inputs, outputs, nodes and where each runs"},
    {"infer", &RunInferCommand, "run a model on .npy inputs and print the timing split"},
    {"serve", &RunServeCommand, "run the inference server (the default with no command)"},
    {"client", &RunClientCommand, "send .npy inputs to a running server with ModelInfer"},
};

int Usage(FILE* out) {
  std::fprintf(out, "usage: vkserve <command> [options]\n\ncommands:\n");
  for (const Subcommand& c : kSubcommands) {
    std::fprintf(out, "  %-10.*s %.*s\n", static_cast<int>(c.name.size()), c.name.data(),
                 static_cast<int>(c.help.size()), c.help.data());
  }
  return out == stderr ? 2 : 0;
}

}  // namespace

int RunCommandLine(const std::vector<std::string>& args) {
  // Log lines go to stderr from the start, so that what a command prints on
  // stdout (inspect --json, infer's timings) is never interleaved with them;
  // serve then applies its config's level and format.
  ConfigureLogging(LogLevel::kInfo, LogFormat::kText);
  if (args.empty()) return RunServeCommand({});
  if (args[0] == "-h" || args[0] == "--help" || args[0] == "help") return Usage(stdout);
  for (const Subcommand& c : kSubcommands) {
    if (args[0] == c.name) return c.run(std::vector<std::string>(args.begin() + 1, args.end()));
  }
  std::fprintf(stderr, "vkserve: unknown command '%s'\n", args[0].c_str());
  return Usage(stderr);
}

}  // namespace vkserve
