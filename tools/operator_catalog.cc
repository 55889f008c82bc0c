// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "tools/operator_catalog.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace vkserve::tools {
namespace {

constexpr char kSummaryMarker[] = "{{operator_summary}}";
constexpr char kTablesMarker[] = "{{operator_tables}}";

// A node of the operator with one input and one output and no attributes:
// enough for the traits, which depend on the op type and at most on
// attributes with defaults.
Node ProbeNode(const std::string& domain, const std::string& op_type, int64_t opset) {
  Node node;
  node.name = op_type;
  node.op_type = op_type;
  node.domain = domain;
  node.opset = opset;
  node.inputs = {"x"};
  node.outputs = {"y"};
  return node;
}

RunsAs RunsAsOf(const Op& op, const Node& node) {
  if (op.expands()) return RunsAs::kExpanded;
  if (op.execution() == Op::Execution::kAlias) return RunsAs::kView;
  if (op.sync_count_output() >= 0) return RunsAs::kSyncPoint;
  const OpTraits& traits = op.traits();
  if (traits.computes_on_gemm_engine) return RunsAs::kGemmEngine;
  const ConstantInput no_constants = [](size_t) -> const HostTensor* { return nullptr; };
  if (traits.elementwise_add || traits.EpilogueActivation(node, no_constants).ok()) {
    return RunsAs::kEpilogue;
  }
  return RunsAs::kGpu;
}

Fp16Use Fp16UseOf(const Op& op) {
  switch (op.traits().float16) {
    case Float16Use::kComputes:
      return Fp16Use::kComputes;
    case Float16Use::kMoves:
      return Fp16Use::kMoves;
    case Float16Use::kNone:
      break;
  }
  return Fp16Use::kNone;
}

absl::string_view RunsAsLabel(RunsAs runs_as) {
  switch (runs_as) {
    case RunsAs::kGpu:
      return "GPU";
    case RunsAs::kGemmEngine:
      return "GPU, GEMM engine";
    case RunsAs::kEpilogue:
      return "GPU, or a GEMM's epilogue";
    case RunsAs::kView:
      return "view";
    case RunsAs::kSyncPoint:
      return "GPU, sync point";
    case RunsAs::kExpanded:
      return "expanded when planned";
    case RunsAs::kRewritten:
      return "rewritten at load";
  }
  return "";
}

// The summary's column headings, in RunsAs order.
constexpr std::array<absl::string_view, kNumRunsAs> kSummaryColumns = {
    "GPU", "GEMM engine", "GPU or epilogue", "View", "Sync point", "Expanded", "Rewritten"};

absl::string_view Fp16Label(Fp16Use use) {
  switch (use) {
    case Fp16Use::kComputes:
      return "fp16";
    case Fp16Use::kMoves:
      return "passes";
    case Fp16Use::kNone:
      return "fp32 copy";
    case Fp16Use::kNotApplicable:
      return "";
  }
  return "";
}

std::string Lower(absl::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string OpsetRange(const OperatorRange& r) {
  return r.min_opset == r.max_opset ? absl::StrCat(r.min_opset)
                                    : absl::StrCat(r.min_opset, "-", r.max_opset);
}

// The row of `op` that `note` belongs to, or -1.
int NoteRow(const OperatorEntry& op, const OperatorNote& note) {
  if (note.opset == 0) return op.ranges.empty() ? -1 : 0;
  for (size_t i = 0; i < op.ranges.size(); ++i) {
    if (note.opset >= op.ranges[i].min_opset && note.opset <= op.ranges[i].max_opset) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

// The (domain, operator, row) indices of the row `note` belongs to.
std::optional<std::tuple<size_t, size_t, int>> FindNoteRow(const std::vector<DomainEntry>& catalog,
                                                           const OperatorNote& note) {
  for (size_t d = 0; d < catalog.size(); ++d) {
    if (catalog[d].domain != note.domain) continue;
    const std::vector<OperatorEntry>& operators = catalog[d].operators;
    for (size_t o = 0; o < operators.size(); ++o) {
      if (operators[o].op_type != note.op_type) continue;
      const int row = NoteRow(operators[o], note);
      if (row >= 0) return std::make_tuple(d, o, row);
    }
  }
  return std::nullopt;
}

}  // namespace

std::string DomainName(absl::string_view domain) {
  return domain.empty() ? "ai.onnx" : std::string(domain);
}

absl::StatusOr<std::vector<DomainEntry>> BuildCatalog(const OpRegistry& ops,
                                                      const RewriteRegistry& rewrites) {
  // domain -> op type -> rows
  std::map<std::string, std::map<std::string, std::vector<OperatorRange>>> rows;
  for (const OpRegistration& r : ops.registrations()) {
    const Node node = ProbeNode(r.domain, r.op_type, r.min_opset);
    const RunsAs runs_as = RunsAsOf(*r.value, node);
    // Control flow's nodes are replaced by their bodies' before FP16 applies.
    const Fp16Use fp16 =
        runs_as == RunsAs::kExpanded ? Fp16Use::kNotApplicable : Fp16UseOf(*r.value);
    rows[r.domain][r.op_type].push_back({r.min_opset, r.max_opset, runs_as, fp16});
  }
  for (const RewriteRegistration& r : rewrites.registrations()) {
    rows[r.domain][r.op_type].push_back(
        {r.min_opset, r.max_opset, RunsAs::kRewritten, Fp16Use::kNotApplicable});
  }

  std::vector<DomainEntry> catalog;
  for (auto& [domain, types] : rows) {
    DomainEntry entry{domain, {}};
    for (auto& [op_type, ranges] : types) {
      std::sort(ranges.begin(), ranges.end(), [](const OperatorRange& a, const OperatorRange& b) {
        return a.min_opset < b.min_opset;
      });
      for (size_t i = 1; i < ranges.size(); ++i) {
        if (ranges[i].min_opset <= ranges[i - 1].max_opset) {
          return absl::InternalError(absl::StrCat(
              op_type, " (domain '", DomainName(domain), "') is registered twice for opset ",
              ranges[i].min_opset, ": as ", RunsAsLabel(ranges[i - 1].runs_as), " and as ",
              RunsAsLabel(ranges[i].runs_as)));
        }
      }
      entry.operators.push_back({op_type, std::move(ranges)});
    }
    std::sort(entry.operators.begin(), entry.operators.end(),
              [](const OperatorEntry& a, const OperatorEntry& b) {
                const std::string la = Lower(a.op_type), lb = Lower(b.op_type);
                return la != lb ? la < lb : a.op_type < b.op_type;
              });
    catalog.push_back(std::move(entry));
  }
  return catalog;
}

std::string RenderSummary(const std::vector<DomainEntry>& catalog) {
  std::string out = "| Domain | Operators |";
  for (absl::string_view column : kSummaryColumns) absl::StrAppend(&out, " ", column, " |");
  absl::StrAppend(&out, "\n|---|---:|");
  for (size_t i = 0; i < kSummaryColumns.size(); ++i) absl::StrAppend(&out, "---:|");
  absl::StrAppend(&out, "\n");

  size_t total = 0;
  std::array<size_t, kNumRunsAs> total_by_kind{};
  for (const DomainEntry& domain : catalog) {
    std::array<size_t, kNumRunsAs> by_kind{};
    for (const OperatorEntry& op : domain.operators) {
      std::set<RunsAs> kinds;
      for (const OperatorRange& r : op.ranges) kinds.insert(r.runs_as);
      for (RunsAs kind : kinds) ++by_kind[static_cast<size_t>(kind)];
    }
    absl::StrAppend(&out, "| ", DomainName(domain.domain), " | ", domain.operators.size(), " |");
    for (size_t i = 0; i < by_kind.size(); ++i) {
      absl::StrAppend(&out, " ", by_kind[i], " |");
      total_by_kind[i] += by_kind[i];
    }
    absl::StrAppend(&out, "\n");
    total += domain.operators.size();
  }
  absl::StrAppend(&out, "| all | ", total, " |");
  for (size_t n : total_by_kind) absl::StrAppend(&out, " ", n, " |");
  absl::StrAppend(&out, "\n");
  return out;
}

absl::StatusOr<std::string> RenderTables(const std::vector<DomainEntry>& catalog,
                                         std::span<const OperatorNote> notes,
                                         std::span<const DomainNote> domain_notes) {
  // (domain index, operator index, row) -> note text
  std::map<std::tuple<size_t, size_t, int>, absl::string_view> row_notes;
  for (const OperatorNote& note : notes) {
    const std::string where = absl::StrCat(note.op_type, " (domain '", DomainName(note.domain),
                                           "', opset ", note.opset, ") in tools/operator_notes.cc");
    std::optional<std::tuple<size_t, size_t, int>> key = FindNoteRow(catalog, note);
    if (!key.has_value()) {
      return absl::FailedPreconditionError(
          absl::StrCat("the note for ", where, " matches no registered operator and opset"));
    }
    if (!row_notes.emplace(*key, note.text).second) {
      return absl::FailedPreconditionError(absl::StrCat("a second note for ", where));
    }
  }

  std::string out;
  for (size_t d = 0; d < catalog.size(); ++d) {
    const DomainEntry& domain = catalog[d];
    const DomainNote* domain_note = nullptr;
    for (const DomainNote& n : domain_notes) {
      if (domain.domain == n.domain) domain_note = &n;
    }
    if (domain_note == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat("domain '", DomainName(domain.domain),
                       "' has no note in tools/operator_notes.cc (kDomainNotes)"));
    }
    if (!out.empty()) absl::StrAppend(&out, "\n");
    absl::StrAppend(&out, "## ", DomainName(domain.domain), "\n\n", domain_note->text, "\n\n",
                    domain.operators.size(),
                    domain.operators.size() == 1 ? " operator.\n\n" : " operators.\n\n");
    absl::StrAppend(&out,
                    "| Operator | Opsets | Runs as | FP16 | Notes |\n|---|---|---|---|---|\n");
    for (size_t o = 0; o < domain.operators.size(); ++o) {
      const OperatorEntry& op = domain.operators[o];
      for (size_t i = 0; i < op.ranges.size(); ++i) {
        auto note = row_notes.find({d, o, static_cast<int>(i)});
        absl::StrAppend(&out, "| ", op.op_type, " | ", OpsetRange(op.ranges[i]), " | ",
                        RunsAsLabel(op.ranges[i].runs_as), " | ", Fp16Label(op.ranges[i].fp16),
                        " | ", note == row_notes.end() ? "" : note->second, " |\n");
      }
    }
  }
  return out;
}

absl::StatusOr<std::string> RenderDocument(absl::string_view template_text,
                                           const std::vector<DomainEntry>& catalog,
                                           std::span<const OperatorNote> notes,
                                           std::span<const DomainNote> domain_notes) {
  ASSIGN_OR_RETURN(std::string tables, RenderTables(catalog, notes, domain_notes));
  const std::string summary = RenderSummary(catalog);

  std::string out =
      "<!-- Generated by tools/operators_doc from the op and rewrite registries, "
      "tools/operator_notes.cc and docs/operators.md.in; edit those and regenerate with "
      "`cmake --build build --target operators_md`. -->\n";
  int summaries = 0, table_sets = 0;
  std::vector<absl::string_view> lines = absl::StrSplit(template_text, '\n');
  // A final newline ends the last line rather than starting an empty one.
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  for (absl::string_view line : lines) {
    const absl::string_view trimmed = absl::StripAsciiWhitespace(line);
    if (trimmed == kSummaryMarker) {
      absl::StrAppend(&out, summary);
      ++summaries;
    } else if (trimmed == kTablesMarker) {
      absl::StrAppend(&out, tables);
      ++table_sets;
    } else {
      absl::StrAppend(&out, line, "\n");
    }
  }
  if (summaries != 1 || table_sets != 1) {
    return absl::InvalidArgumentError(absl::StrCat("the template must have each of the lines ",
                                                   kSummaryMarker, " and ", kTablesMarker,
                                                   " exactly once"));
  }
  return out;
}

}  // namespace vkserve::tools
