// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// operators_doc: writes docs/operators.md from the op and rewrite registries
// (tools/operator_catalog.h), the notes of tools/operator_notes.cc and the
// template docs/operators.md.in, or checks that the committed file is what
// it would write. It links the registries and asks the ops only about their
// traits: it reads no model and creates no Vulkan instance, so it runs
// anywhere the tree builds.
//
//   operators_doc --template docs/operators.md.in                  # print
//   operators_doc --template docs/operators.md.in --write docs/operators.md
//   operators_doc --template docs/operators.md.in --check docs/operators.md
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "base/status_macros.h"
#include "tools/operator_catalog.h"
#include "tools/operator_notes.h"

namespace vkserve::tools {
namespace {

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

absl::Status WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return absl::UnavailableError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

// 1-based number of the first line where `a` and `b` differ, with both lines.
std::string FirstDifference(const std::string& expected, const std::string& actual) {
  const std::vector<absl::string_view> e = absl::StrSplit(expected, '\n');
  const std::vector<absl::string_view> a = absl::StrSplit(actual, '\n');
  size_t i = 0;
  while (i < e.size() && i < a.size() && e[i] == a[i]) ++i;
  return absl::StrCat("first difference at line ", i + 1,
                      ":\n  generated: ", i < e.size() ? e[i] : "(end of file)",
                      "\n  committed: ", i < a.size() ? a[i] : "(end of file)");
}

absl::StatusOr<std::string> Generate(const std::string& template_path) {
  ASSIGN_OR_RETURN(std::string template_text, ReadFile(template_path));
  ASSIGN_OR_RETURN(std::vector<DomainEntry> catalog,
                   BuildCatalog(OpRegistry::Global(), RewriteRegistry::Global()));
  return RenderDocument(template_text, catalog, OperatorNotes(), DomainNotes());
}

struct Options {
  std::string template_path;
  std::string write_path;
  std::string check_path;
};

int Run(const char* argv0, const Options& options) {
  const std::string& template_path = options.template_path;
  absl::StatusOr<std::string> document = Generate(template_path);
  if (!document.ok()) {
    std::fprintf(stderr, "operators_doc: %s\n", document.status().ToString().c_str());
    return 1;
  }

  if (const std::string& path = options.check_path; !path.empty()) {
    absl::StatusOr<std::string> committed = ReadFile(path);
    if (committed.ok() && *committed == *document) return 0;
    std::fprintf(stderr,
                 "%s is not what the op and rewrite registries give (%s).\n"
                 "Regenerate it with\n"
                 "  cmake --build <build dir> --target operators_md\n"
                 "or\n"
                 "  %s --template %s --write %s\n",
                 path.c_str(),
                 committed.ok() ? FirstDifference(*document, *committed).c_str()
                                : committed.status().ToString().c_str(),
                 argv0, template_path.c_str(), path.c_str());
    return 1;
  }
  if (const std::string& path = options.write_path; !path.empty()) {
    if (absl::Status written = WriteFile(path, *document); !written.ok()) {
      std::fprintf(stderr, "operators_doc: %s\n", written.ToString().c_str());
      return 1;
    }
    return 0;
  }
  std::fwrite(document->data(), 1, document->size(), stdout);
  return std::fflush(stdout) == 0 ? 0 : 1;
}

}  // namespace
}  // namespace vkserve::tools

int main(int argc, char** argv) {
  CLI::App app{"Writes docs/operators.md from vkserve's op and rewrite registries.",
               "operators_doc"};
  vkserve::tools::Options options;
  app.add_option("--template", options.template_path,
                 "docs/operators.md.in, the document around the tables")
      ->required();
  CLI::Option* write = app.add_option("--write", options.write_path,
                                      "write the document to this file instead of standard output");
  CLI::Option* check = app.add_option(
      "--check", options.check_path,
      "compare the document with this file; exit 1, saying how to regenerate it, when they differ");
  write->excludes(check);
  CLI11_PARSE(app, argc, argv);
  return vkserve::tools::Run(argv[0], options);
}
