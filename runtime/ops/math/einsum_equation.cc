// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/ops/math/einsum_equation.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/status_macros.h"

namespace vkserve {
namespace {

// Label keys: letters by their character; ellipsis dim j (of the widest
// ellipsis, right-aligned) as 1000 + j, so they sort before letters in
// implicit outputs when keyed apart.
constexpr int kEllipsisBase = 1000;

struct Term {
  std::vector<int> keys;  // letters as chars; -1 marks where the ellipsis goes
  bool has_ellipsis = false;
};

absl::StatusOr<Term> ParseTerm(std::string_view s) {
  Term t;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == ' ') continue;
    if (c == '.') {
      if (t.has_ellipsis || s.substr(i, 3) != "...") {
        return absl::InvalidArgumentError("malformed ellipsis in the Einsum equation");
      }
      t.has_ellipsis = true;
      t.keys.push_back(-1);
      i += 2;
      continue;
    }
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
      return absl::InvalidArgumentError("Einsum equations hold only letters, ',', '->' and '...'");
    }
    t.keys.push_back(c);
  }
  return t;
}

// The term's keys with the ellipsis expanded to `rank` - letters dims of the
// widest ellipsis `width`.
std::vector<int> Expand(const Term& t, int64_t ellipsis_dims, int64_t width) {
  std::vector<int> keys;
  for (int k : t.keys) {
    if (k != -1) {
      keys.push_back(k);
      continue;
    }
    for (int64_t j = width - ellipsis_dims; j < width; ++j)
      keys.push_back(kEllipsisBase + static_cast<int>(j));
  }
  return keys;
}

}  // namespace

std::vector<int64_t> EinsumEquation::OutputShape() const {
  std::vector<int64_t> shape;
  for (int l : output) shape.push_back(sizes[l]);
  return shape;
}

absl::StatusOr<EinsumEquation> ParseEinsum(const std::string& equation,
                                           const std::vector<std::vector<int64_t>>& shapes) {
  const size_t arrow = equation.find("->");
  const std::string lhs = equation.substr(0, arrow);
  std::vector<Term> terms;
  for (const auto part : absl::StrSplit(lhs, ',')) {
    ASSIGN_OR_RETURN(Term t, ParseTerm(std::string_view(part.data(), part.size())));
    terms.push_back(std::move(t));
  }
  if (terms.size() != shapes.size()) {
    return absl::InvalidArgumentError(absl::StrCat("the Einsum equation has ", terms.size(),
                                                   " operands, the node ", shapes.size()));
  }
  // Ellipsis widths.
  std::vector<int64_t> ellipsis_dims(terms.size(), 0);
  int64_t width = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    const int64_t letters =
        static_cast<int64_t>(terms[i].keys.size()) - (terms[i].has_ellipsis ? 1 : 0);
    const int64_t rank = static_cast<int64_t>(shapes[i].size());
    if (terms[i].has_ellipsis ? rank < letters : rank != letters) {
      return absl::InvalidArgumentError(absl::StrCat("Einsum operand ", i, " has rank ", rank,
                                                     ", its term names ", letters, " dims"));
    }
    ellipsis_dims[i] = terms[i].has_ellipsis ? rank - letters : 0;
    width = std::max(width, ellipsis_dims[i]);
  }
  // Labels, their sizes, and each operand's strides.
  std::map<int, int> label_of;
  EinsumEquation eq;
  std::map<int, int> uses;
  std::vector<std::vector<int>> expanded;
  for (size_t i = 0; i < terms.size(); ++i) {
    expanded.push_back(Expand(terms[i], ellipsis_dims[i], width));
    for (int k : expanded.back()) {
      if (!label_of.contains(k)) {
        label_of[k] = static_cast<int>(eq.sizes.size());
        eq.sizes.push_back(1);
      }
      ++uses[k];
    }
  }
  for (size_t i = 0; i < terms.size(); ++i) {
    const std::vector<int64_t>& shape = shapes[i];
    for (size_t d = 0; d < shape.size(); ++d) {
      int64_t& size = eq.sizes[label_of[expanded[i][d]]];
      if (shape[d] != 1 && size != 1 && shape[d] != size) {
        return absl::InvalidArgumentError(
            absl::StrCat("Einsum operand ", i, " dim ", d, " is ", shape[d], ", elsewhere ", size));
      }
      if (shape[d] != 1) size = shape[d];
    }
  }
  for (size_t i = 0; i < terms.size(); ++i) {
    const std::vector<int64_t>& shape = shapes[i];
    std::vector<int64_t> strides(eq.sizes.size(), 0);
    std::vector<bool> present(eq.sizes.size(), false);
    int64_t stride = 1;
    for (size_t d = shape.size(); d-- > 0;) {
      const int l = label_of[expanded[i][d]];
      present[l] = true;
      if (shape[d] != 1) strides[l] += stride;  // size 1 broadcasts
      stride *= shape[d];
    }
    eq.strides.push_back(std::move(strides));
    eq.present.push_back(std::move(present));
  }
  // The output.
  std::vector<int> out_keys;
  if (arrow != std::string::npos) {
    ASSIGN_OR_RETURN(Term out, ParseTerm(std::string_view(equation).substr(arrow + 2)));
    if (out.has_ellipsis || width == 0) {
      out_keys = Expand(out, width, width);
    } else {
      out_keys = out.keys;
    }
  } else {
    for (int64_t j = 0; j < width; ++j) out_keys.push_back(kEllipsisBase + static_cast<int>(j));
    std::vector<int> letters;
    for (const auto& [k, n] : uses) {
      if (k < kEllipsisBase && n == 1) letters.push_back(k);
    }
    std::sort(letters.begin(), letters.end());
    out_keys.insert(out_keys.end(), letters.begin(), letters.end());
  }
  for (int k : out_keys) {
    if (!label_of.contains(k)) {
      return absl::InvalidArgumentError("an Einsum output label appears in no operand");
    }
    const int l = label_of[k];
    if (std::find(eq.output.begin(), eq.output.end(), l) != eq.output.end()) {
      return absl::InvalidArgumentError("an Einsum output label repeats");
    }
    eq.output.push_back(l);
  }
  return eq;
}

}  // namespace vkserve
