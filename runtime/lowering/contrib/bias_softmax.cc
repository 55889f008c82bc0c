// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// BiasSoftmax (com.microsoft): Y = softmax(X + bias), ONNX Runtime's fusion
// of an attention mask (or position bias) Add with the Softmax after it.
//
// As ONNX Runtime's CUDA kernel computes it (contrib_ops/cuda/math/
// bias_softmax.cc, bias_softmax_impl.cu; schema in core/graph/contrib_ops/
// contrib_defs.cc), with `axis` (default 1, negative from the back):
//
//   X is taken as R = prod(X.shape[:axis]) rows of D = prod(X.shape[axis:])
//   elements; softmax runs over each whole row (Softmax-11's flattening, not
//   Softmax-13's single axis). The bias, of any shape, is read as
//   Rb = size(bias) / D rows of D, and X's row r adds bias row
//     r / (R / Rb)   with is_inner_broadcast != 0: X is [Rb, R/Rb, D], the
//                    bias [Rb, 1, D] (a BERT mask [B,1,1,S] on [B,H,S,S]);
//     r % Rb         otherwise: X is [R/Rb, Rb, D], the bias [1, Rb, D]
//                    (a position bias [1,H,S,S] on [B,H,S,S]).
//   is_inner_broadcast is required; the kernel reads any nonzero value as 1.
//
// The node becomes that view written out: Flatten(X, axis) to [R, D], the
// bias reshaped to [Rb, D], X viewed as [Rb, R/Rb, D] and the bias as
// [Rb, 1, D] (inner) or X as [R/Rb, Rb, D] (outer), Add, Softmax-13 over the
// last axis, and a Reshape back to X's shape. The views are aliases and the
// shape arithmetic folds at plan time, so what runs is one Add and one
// Softmax for any shapes, fixed or symbolic. A bias whose size is not a
// positive multiple of D, or whose row count does not divide R, fails at load
// where the file declares the shapes and at planning otherwise. (The kernel
// reads past the bias for the first with inner broadcast, and repeats the
// bias rows cyclically, a partial last repeat included, for the second
// without; no fusion writes either, and neither is implemented here.)
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/lowering/rewrite_attributes.h"
#include "runtime/op/rewrite.h"

namespace vkserve {
namespace {

// The schema's default: softmax over dims 1 and up.
constexpr int64_t kDefaultAxis = 1;

// The product of dims [begin, end), or nullopt unless all are fixed and it
// fits in an int64 (the dims come from an untrusted file).
std::optional<int64_t> FixedProduct(const std::vector<Dim>& dims, size_t begin, size_t end) {
  int64_t product = 1;
  for (size_t i = begin; i < end; ++i) {
    if (!dims[i].is_fixed()) return std::nullopt;
    const int64_t d = dims[i].value;
    if (d != 0 && product > std::numeric_limits<int64_t>::max() / d) return std::nullopt;
    product *= d;
  }
  return product;
}

struct Attrs {
  int64_t axis = kDefaultAxis;
  bool inner = false;
};

absl::StatusOr<Attrs> ReadAttrs(const Node& node) {
  Attrs attrs;
  RETURN_IF_ERROR(CheckRewriteAttribute(node, "axis", Attribute::Type::kInt));
  attrs.axis = node.GetInt("axis", kDefaultAxis);
  if (node.FindAttribute("is_inner_broadcast") == nullptr) {
    return absl::InvalidArgumentError("attribute 'is_inner_broadcast' is required");
  }
  RETURN_IF_ERROR(CheckRewriteAttribute(node, "is_inner_broadcast", Attribute::Type::kInt));
  // Nonzero, not only 1, as ONNX Runtime's kernel reads it.
  attrs.inner = node.GetInt("is_inner_broadcast", 0) != 0;
  return attrs;
}

// Checks axis and the bias's row count against the shapes the file declares;
// what it leaves open (symbolic dims) is checked by Reshape at planning.
absl::Status BiasSoftmaxCheckShapes(const RewriteContext& ctx, const Attrs& attrs) {
  const int64_t axis = attrs.axis;
  const auto x = ctx.known_shape(ctx.input(0));
  if (!x.has_value()) return absl::OkStatus();
  const int64_t rank = static_cast<int64_t>(x->size());
  if (axis < -rank || axis >= rank) {
    return absl::InvalidArgumentError(
        absl::StrCat("axis ", axis, " is out of range for a rank-", rank, " input"));
  }
  const size_t a = static_cast<size_t>(axis < 0 ? axis + rank : axis);
  const auto rows = FixedProduct(*x, 0, a);
  const auto row_len = FixedProduct(*x, a, x->size());
  const auto bias = ctx.known_shape(ctx.input(1));
  const auto bias_size = bias.has_value() ? FixedProduct(*bias, 0, bias->size()) : std::nullopt;
  if (!row_len.has_value() || !bias_size.has_value() || *row_len == 0) return absl::OkStatus();
  if (*bias_size == 0 || *bias_size % *row_len != 0) {
    return absl::InvalidArgumentError(absl::StrCat("bias has ", *bias_size,
                                                   " elements, not a positive multiple of the ",
                                                   *row_len, " in a softmax row"));
  }
  const int64_t bias_rows = *bias_size / *row_len;
  if (rows.has_value() && *rows % bias_rows != 0) {
    const std::string what =
        absl::StrCat("bias has ", bias_rows, " rows of the softmax's ", *row_len,
                     " elements, which do not divide the input's ", *rows, " rows");
    // Outer broadcast with a partial last repeat is defined by the kernel
    // (cyclic rows) but is no broadcast; inner broadcast would read past the bias.
    if (!attrs.inner) return absl::UnimplementedError(what);
    return absl::InvalidArgumentError(what);
  }
  return absl::OkStatus();
}

std::string AddInts(RewriteContext& ctx, std::string_view hint, const std::vector<int64_t>& v) {
  return ctx.AddInitializer(hint, HostTensor::FromInts(v, {static_cast<int64_t>(v.size())}));
}

// Shape(x)[start:end] (opset 15's attributes): shape arithmetic, folded at plan time.
std::string ShapeSlice(RewriteContext& ctx, const std::string& x, int64_t start, int64_t end,
                       std::string_view hint) {
  const std::string out = ctx.NewValueName(hint);
  Node& node = ctx.AddNode("Shape", {x}, {out}, /*opset=*/15);
  node.attributes["start"] = IntAttribute(start);
  node.attributes["end"] = IntAttribute(end);
  return out;
}

std::string Concat(RewriteContext& ctx, std::vector<std::string> parts, std::string_view hint) {
  const std::string out = ctx.NewValueName(hint);
  ctx.AddNode("Concat", std::move(parts), {out}, /*opset=*/13).attributes["axis"] = IntAttribute(0);
  return out;
}

std::string Reshape(RewriteContext& ctx, const std::string& x, const std::string& shape,
                    std::string_view hint) {
  const std::string out = ctx.NewValueName(hint);
  ctx.AddNode("Reshape", {x, shape}, {out}, /*opset=*/14);
  return out;
}

class BiasSoftmaxRewrite : public Rewrite {
 public:
  absl::Status Apply(RewriteContext& ctx) const override {
    const Node& stored = ctx.node();
    if (stored.inputs.size() != 2 || ctx.input(0).empty() || ctx.input(1).empty() ||
        stored.outputs.size() != 1 || ctx.output(0).empty()) {
      return absl::InvalidArgumentError("BiasSoftmax takes inputs data and bias and one output");
    }
    ASSIGN_OR_RETURN(const Attrs attrs, ReadAttrs(stored));
    RETURN_IF_ERROR(BiasSoftmaxCheckShapes(ctx, attrs));
    const std::string& x = ctx.input(0);

    // [R, D]; Flatten takes a negative axis as the kernel does.
    const std::string rows = ctx.NewValueName("rows");
    ctx.AddNode("Flatten", {x}, {rows}, /*opset=*/13).attributes["axis"] = IntAttribute(attrs.axis);
    const std::string row_len = ShapeSlice(ctx, rows, 1, 2, "row_len");
    const std::string bias_rows = Reshape(
        ctx, ctx.input(1),
        Concat(ctx, {AddInts(ctx, "minus_one", {-1}), row_len}, "bias_rows_shape"), "bias_rows");

    std::string grouped_shape;
    std::string bias_view = bias_rows;
    if (attrs.inner) {
      // X [Rb, R/Rb, D] + bias [Rb, 1, D]: consecutive rows share a bias row.
      grouped_shape = Concat(ctx,
                             {ShapeSlice(ctx, bias_rows, 0, 1, "bias_row_count"),
                              AddInts(ctx, "group_minus_one", {-1}), row_len},
                             "grouped_shape");
      bias_view =
          Reshape(ctx, bias_rows, AddInts(ctx, "bias_inner_shape", {0, 1, -1}), "bias_inner");
    } else {
      // X [R/Rb, Rb, D] + bias [Rb, D]: the bias rows repeat cyclically.
      grouped_shape = Concat(ctx,
                             {AddInts(ctx, "group_minus_one", {-1}),
                              ShapeSlice(ctx, bias_rows, 0, 2, "bias_rows_dims")},
                             "grouped_shape");
    }
    const std::string grouped = Reshape(ctx, rows, grouped_shape, "grouped");
    const std::string sum = ctx.NewValueName("biased");
    ctx.AddNode("Add", {grouped, bias_view}, {sum}, /*opset=*/14);
    const std::string probs = ctx.NewValueName("probs");
    ctx.AddNode("Softmax", {sum}, {probs}, /*opset=*/13).attributes["axis"] = IntAttribute(-1);
    ctx.AddNode("Reshape", {probs, ShapeSlice(ctx, x, 0, INT64_MAX, "data_shape")}, {ctx.output(0)},
                /*opset=*/14);
    return absl::OkStatus();
  }
};

}  // namespace

VKSERVE_REGISTER_REWRITE("com.microsoft", "BiasSoftmax", 1, 1, BiasSoftmaxRewrite);

}  // namespace vkserve
