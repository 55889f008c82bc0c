// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// NhwcMaxPool (com.microsoft, since 1): ONNX Runtime's channels-last MaxPool,
// written by its NhwcTransformer between quantized (QLinearConv) nodes.
// Input [N, D1..Dk, C], MaxPool's attributes except storage_order (auto_pad,
// kernel_shape, dilations, strides, pads, ceil_mode) over the spatial axes.
// It becomes Transpose to NCHW, MaxPool, Transpose back. ORT defines it for
// int8/uint8 only; vkserve's MaxPool is float32, so such models stop at the
// MaxPool with its data type error unless their quantization was removed.
#include "absl/strings/str_cat.h"
#include "runtime/lowering/rewrite_attributes.h"
#include "runtime/op/rewrite.h"

namespace vkserve {
namespace {

// ONNX MaxPool takes 1-3 spatial axes in vkserve.
constexpr int64_t kMinRank = 3, kMaxRank = 5;

absl::StatusOr<int64_t> Rank(const RewriteContext& ctx) {
  const Attribute* k = ctx.node().FindAttribute("kernel_shape");
  if (k == nullptr || k->type != Attribute::Type::kInts) {
    return absl::InvalidArgumentError("NhwcMaxPool needs the ints attribute 'kernel_shape'");
  }
  const int64_t rank = static_cast<int64_t>(k->ints.size()) + 2;
  if (rank < kMinRank || rank > kMaxRank) {
    return absl::UnimplementedError(absl::StrCat("NhwcMaxPool over ", rank - 2, " spatial axes"));
  }
  return rank;
}

class NhwcMaxPoolRewrite : public Rewrite {
 public:
  absl::Status Apply(RewriteContext& ctx) const override {
    const Node& stored = ctx.node();
    if (stored.inputs.size() != 1 || ctx.input(0).empty() || stored.outputs.size() != 1 ||
        ctx.output(0).empty()) {
      return absl::InvalidArgumentError("NhwcMaxPool takes one input and has one output");
    }
    ASSIGN_OR_RETURN(int64_t rank, Rank(ctx));
    std::vector<int64_t> to_first = {0, rank - 1}, to_last = {0};
    for (int64_t i = 1; i < rank - 1; ++i) to_first.push_back(i);
    for (int64_t i = 2; i < rank; ++i) to_last.push_back(i);
    to_last.push_back(1);
    std::string nchw = ctx.NewValueName("nchw"), pooled = ctx.NewValueName("pooled");
    ctx.AddNode("Transpose", {ctx.input(0)}, {nchw}, 13).attributes["perm"] =
        IntsAttribute(to_first);
    Node& pool = ctx.AddNode("MaxPool", {nchw}, {pooled}, 12);
    for (const char* name :
         {"auto_pad", "kernel_shape", "dilations", "strides", "pads", "ceil_mode"}) {
      if (const Attribute* a = stored.FindAttribute(name)) pool.attributes[name] = *a;
    }
    ctx.AddNode("Transpose", {pooled}, {ctx.output(0)}, 13).attributes["perm"] =
        IntsAttribute(to_last);
    return absl::OkStatus();
  }
};

}  // namespace

VKSERVE_REGISTER_REWRITE("com.microsoft", "NhwcMaxPool", 1, 1, NhwcMaxPoolRewrite);

}  // namespace vkserve
