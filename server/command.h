// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The `vkserve` command line: each subcommand is a function taking its
// arguments (after the subcommand name) and returning the process exit code.
// Subcommands register themselves in a table in command.cc.
#ifndef VKSERVE_SERVER_COMMAND_H_
#define VKSERVE_SERVER_COMMAND_H_

#include <string>
#include <vector>

namespace vkserve {

// Runs `vkserve <args...>`; args excludes argv[0]. No arguments: `serve` on
// the built-in default config.
int RunCommandLine(const std::vector<std::string>& args);

// Subcommands.
int RunDevicesCommand(const std::vector<std::string>& args);
int RunInspectCommand(const std::vector<std::string>& args);
int RunInferCommand(const std::vector<std::string>& args);
int RunServeCommand(const std::vector<std::string>& args);   // serve_command.cc
int RunClientCommand(const std::vector<std::string>& args);  // client_command.cc

}  // namespace vkserve

#endif  // VKSERVE_SERVER_COMMAND_H_
