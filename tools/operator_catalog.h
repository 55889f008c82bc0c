// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// OperatorCatalog: every operator vkserve accepts, per domain, as the op
// registry (GPU kernels) and the rewrite registry (load-time rewrites) hold
// them, and its rendering as docs/operators.md. Reading the registries asks
// each Op only about its traits (control flow, aliasing, sync points, FP16
// use, epilogue fusion): no GPU, no model. Functions only; thread-safe once
// static initialization has filled the registries.
#ifndef VKSERVE_TOOLS_OPERATOR_CATALOG_H_
#define VKSERVE_TOOLS_OPERATOR_CATALOG_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/rewrite.h"
#include "tools/operator_notes.h"

namespace vkserve::tools {

// How a node of an operator runs, from the registries. Ordered as the
// summary's columns.
enum class RunsAs {
  kGpu,         // a GPU kernel (or folded on the host when its inputs are known)
  kGemmEngine,  // a GPU kernel on the GEMM engine, with a fusable epilogue
  kEpilogue,    // a GPU kernel, or folded into a preceding GEMM's store
  kView,        // output 0 is input 0's bytes: no dispatch
  kSyncPoint,   // a GPU kernel whose output shape depends on data
  kExpanded,    // control flow: replaced by plain nodes when planned
  kRewritten,   // replaced by other operators at load
};
inline constexpr int kNumRunsAs = 7;

// How an operator meets FP16 precision's fp16 activations (OpTraits::float16).
enum class Fp16Use { kNone, kComputes, kMoves, kNotApplicable };

// One row: a contiguous opset range over which the operator runs one way.
struct OperatorRange {
  int64_t min_opset = 0;
  int64_t max_opset = 0;
  RunsAs runs_as = RunsAs::kGpu;
  Fp16Use fp16 = Fp16Use::kNone;
};

struct OperatorEntry {
  std::string op_type;
  std::vector<OperatorRange> ranges;  // by opset, disjoint
};

struct DomainEntry {
  std::string domain;                    // "" for ai.onnx
  std::vector<OperatorEntry> operators;  // by op type, case-insensitively
};

// Domains in name order ("" first). INTERNAL when two registrations cover
// the same opset of one operator (the registries would pick one silently).
absl::StatusOr<std::vector<DomainEntry>> BuildCatalog(const OpRegistry& ops,
                                                      const RewriteRegistry& rewrites);

// "ai.onnx" for "", else the domain.
std::string DomainName(absl::string_view domain);

// The Markdown table of operator counts per domain and way of running.
std::string RenderSummary(const std::vector<DomainEntry>& catalog);

// A "## <domain>" section per domain: its note and its operators' table.
// FAILED_PRECONDITION when a note names no row of the catalog, or a domain
// has no note.
absl::StatusOr<std::string> RenderTables(const std::vector<DomainEntry>& catalog,
                                         std::span<const OperatorNote> notes,
                                         std::span<const DomainNote> domain_notes);

// The template with its {{operator_summary}} and {{operator_tables}} lines
// (each exactly once) replaced, under a line saying how it was generated.
absl::StatusOr<std::string> RenderDocument(absl::string_view template_text,
                                           const std::vector<DomainEntry>& catalog,
                                           std::span<const OperatorNote> notes,
                                           std::span<const DomainNote> domain_notes);

}  // namespace vkserve::tools

#endif  // VKSERVE_TOOLS_OPERATOR_CATALOG_H_
