// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "cli/command.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "server/observability/logging.h"

namespace vkserve {
namespace {

struct Command {
  const char* name;
  const char* summary;
  CommandRunner (*add)(CLI::App&);
};

constexpr Command kCommands[] = {
    {"devices", "list Vulkan devices and the limits vkserve uses", &AddDevicesCommand},
    {"inspect", "show a model's inputs, outputs, nodes and where each runs", &AddInspectCommand},
    {"infer", "run a model on .npy inputs and print the timing split", &AddInferCommand},
    {"serve", "run the inference server (the default with no command)", &AddServeCommand},
    {"client", "send .npy inputs to a running server with ModelInfer", &AddClientCommand},
};

// CLI11's help with each flag's description wrapped to fit 100 columns.
class HelpFormatter : public CLI::Formatter {
 public:
  static constexpr size_t kWidth = 100;
  static constexpr size_t kNameColumn = 32;

  HelpFormatter() {
    label("Usage", "usage");
    column_width(kNameColumn);
  }

  std::string make_option_desc(const CLI::Option* option) const override {
    return Wrap(option->get_description(), kWidth - kNameColumn);
  }

 private:
  // Breaks `text` at spaces into lines of at most `width` characters (a
  // longer word keeps a line of its own).
  static std::string Wrap(const std::string& text, size_t width) {
    std::string out;
    size_t line = 0;
    for (absl::string_view word : absl::StrSplit(text, ' ', absl::SkipEmpty())) {
      if (line > 0 && line + 1 + word.size() > width) {
        out += '\n';
        line = 0;
      } else if (line > 0) {
        out += ' ';
        ++line;
      }
      out.append(word.data(), word.size());
      line += word.size();
    }
    return out;
  }
};

bool IsCommand(const std::string& word) {
  for (const Command& c : kCommands) {
    if (word == c.name) return true;
  }
  return false;
}

// The command line being parsed when a parse error came: the subcommand's
// App, or `app` itself before one was named.
const CLI::App& FailedCommand(const CLI::App& app) {
  const std::vector<CLI::App*> chosen = app.get_subcommands();
  return chosen.empty() ? app : *chosen.front();
}

// A parse error: what is wrong (CLI11's message names the flag or
// argument), the command's usage line and where its flags are listed.
int ReportUsageError(const CLI::App& app, const CLI::ParseError& error) {
  const CLI::App& failed = FailedCommand(app);
  const std::string name =
      &failed == &app ? std::string("vkserve") : absl::StrCat("vkserve ", failed.get_name());
  HelpFormatter formatter;
  std::fprintf(stderr, "%s: %s\n%sRun '%s --help' for its flags.\n", name.c_str(), error.what(),
               formatter.make_usage(&failed, name).c_str(), name.c_str());
  return kExitUsage;
}

}  // namespace

CLI::Validator NameEqualsValue() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const size_t eq = text.find('=');
        if (eq == std::string::npos || eq == 0)
          return absl::StrCat("expected NAME=VALUE, got '", text, "'");
        return "";
      },
      "");
}

CLI::Validator NumberBetween(double lo, double hi, bool whole) {
  return CLI::Validator(
      [lo, hi, whole](std::string& text) -> std::string {
        double value = 0;
        if (!absl::SimpleAtod(text, &value) || !(value >= lo && value <= hi) ||
            (whole && value != std::floor(value))) {
          return absl::StrFormat("'%s' is not %s from %.15g to %.15g", text,
                                 whole ? "a whole number" : "a number", lo, hi);
        }
        return "";
      },
      "");
}

int RunCommandLine(const std::vector<std::string>& args) {
  // Log lines go to stderr from the start, so that what a command prints on
  // stdout (inspect --json, infer's timings) is never interleaved with them;
  // serve then applies its config's level and format.
  ConfigureLogging(LogLevel::kInfo, LogFormat::kText);

  CLI::App app(
      "vkserve: ONNX and ONNX Runtime .ort models on Vulkan GPUs, served over the "
      "KServe v2 / Triton gRPC protocol.",
      "vkserve");
  app.formatter(std::make_shared<HelpFormatter>());
  app.footer(
      "Run 'vkserve COMMAND --help' for a command's flags. With no command, vkserve serves the\n"
      "built-in default config, as 'vkserve serve' does.");
  // A flag given twice keeps its last value (scripts append overrides to a
  // fixed command line); flags that collect values (--input, --dim) keep all.
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.require_subcommand(0, 1);
  std::vector<std::pair<const CLI::App*, CommandRunner>> runners;
  CommandRunner serve;
  for (const Command& c : kCommands) {
    CLI::App* command = app.add_subcommand(c.name, c.summary);
    runners.emplace_back(command, c.add(*command));
    if (std::string(c.name) == "serve") serve = runners.back().second;
  }

  std::vector<std::string> words = args;
  if (!words.empty() && words[0] == "help") {
    // `vkserve help [COMMAND]`: that command's --help.
    words.erase(words.begin());
    words.resize(std::min<size_t>(words.size(), 1));
    words.push_back("--help");
  }
  if (!words.empty() && !words[0].empty() && words[0][0] != '-' && !IsCommand(words[0])) {
    std::fprintf(stderr, "vkserve: unknown command '%s'\n\n%s", words[0].c_str(),
                 app.help().c_str());
    return kExitUsage;
  }
  // CLI11 takes the words last first.
  std::vector<std::string> reversed(words.rbegin(), words.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp& help) {
    return app.exit(help);  // the chosen command's help on stdout, 0
  } catch (const CLI::ParseError& error) {
    return ReportUsageError(app, error);
  }
  const std::vector<CLI::App*> chosen = app.get_subcommands();
  if (chosen.empty()) return serve();
  for (const auto& [command, run] : runners) {
    if (command == chosen.front()) return run();
  }
  return kExitUsage;
}

}  // namespace vkserve
