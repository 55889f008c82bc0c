// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The hand-written part of docs/operators.md's tables: a short note per
// operator where the registries cannot say it (dtypes beyond fp32, limits,
// what a load-time rewrite produces), and a sentence per domain. The
// registries say which operators exist, their opsets and how they run; a
// note naming an operator or opset that no registration has fails the
// generator, so the notes cannot outlive their operators. Constant data;
// thread-safe.
#ifndef VKSERVE_TOOLS_OPERATOR_NOTES_H_
#define VKSERVE_TOOLS_OPERATOR_NOTES_H_

#include <cstdint>
#include <span>

namespace vkserve::tools {

struct OperatorNote {
  const char* domain;  // "" for ai.onnx, as the registries spell it
  const char* op_type;
  // The note belongs to the table row whose opset range holds this opset;
  // 0: the operator's first row.
  int64_t opset;
  const char* text;  // Markdown, one line, no '|'
};

struct DomainNote {
  const char* domain;  // "" for ai.onnx
  const char* text;    // Markdown paragraph, printed under the domain's heading
};

std::span<const OperatorNote> OperatorNotes();
std::span<const DomainNote> DomainNotes();

}  // namespace vkserve::tools

#endif  // VKSERVE_TOOLS_OPERATOR_NOTES_H_
