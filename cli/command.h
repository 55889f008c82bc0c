// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The `vkserve` command line, parsed with CLI11: one subcommand per command.
// Each Add*Command function declares its command's flags on `command` (a
// subcommand RunCommandLine created with the command's name and summary) and
// returns the function that runs the command once the whole line is parsed;
// that function returns the process exit code: 0 success, kExitFailure, or
// kExitUsage (also what every parse error, an unknown flag or a missing
// value, exits with). `--help` on any command prints its usage and exits 0.
//
// Not thread-safe: the main thread parses and runs one command line once.
#ifndef VKSERVE_CLI_COMMAND_H_
#define VKSERVE_CLI_COMMAND_H_

#include <functional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"

namespace vkserve {

inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

using CommandRunner = std::function<int()>;

// Runs `vkserve <args...>`; args excludes argv[0]. No arguments: `serve` on
// the built-in default config.
int RunCommandLine(const std::vector<std::string>& args);

// The commands.
CommandRunner AddDevicesCommand(CLI::App& command);  // devices_command.cc
CommandRunner AddInspectCommand(CLI::App& command);  // inspect_command.cc
CommandRunner AddInferCommand(CLI::App& command);    // infer_command.cc
CommandRunner AddServeCommand(CLI::App& command);    // serve_command.cc
CommandRunner AddClientCommand(CLI::App& command);   // client_command.cc

// Checks for flag values, shared by the commands.
// NAME=VALUE with a non-empty NAME.
CLI::Validator NameEqualsValue();
// A number from `lo` to `hi` (whole when `whole`).
CLI::Validator NumberBetween(double lo, double hi, bool whole);

}  // namespace vkserve

#endif  // VKSERVE_CLI_COMMAND_H_
