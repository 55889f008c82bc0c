// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// com.microsoft.nchwc MaxPool, AveragePool, GlobalMaxPool and
// GlobalAveragePool (since 1): ONNX Runtime's pooling on blocked tensors
// (nchwc_layout.h). Pooling is per channel, so on the un-blocked NCHW tensor
// (padded channels included) each is the ONNX op of the same name with the
// same attributes.
#include "absl/strings/str_cat.h"
#include "runtime/lowering/nchwc/nchwc_layout.h"
#include "runtime/op/rewrite.h"

namespace vkserve {
namespace {

absl::Status NchwcPoolCheckArity(const RewriteContext& ctx) {
  if (ctx.node().inputs.size() != 1 || ctx.input(0).empty() || ctx.node().outputs.size() != 1 ||
      ctx.output(0).empty()) {
    return absl::InvalidArgumentError("takes one input and has one output (no indices)");
  }
  return absl::OkStatus();
}

// Copies the listed attributes of the stored node to `to`.
void CopyAttributes(const Node& from, std::initializer_list<const char*> names, Node& to) {
  for (const char* name : names) {
    if (const Attribute* a = from.FindAttribute(name)) to.attributes[name] = *a;
  }
}

bool HasDilation(const Node& node) {
  for (int64_t d : node.GetInts("dilations")) {
    if (d != 1) return true;
  }
  return false;
}

class NchwcMaxPoolRewrite : public Rewrite {
 public:
  absl::Status Apply(RewriteContext& ctx) const override {
    RETURN_IF_ERROR(NchwcPoolCheckArity(ctx));
    Node& pool = ctx.AddNode("MaxPool", {ctx.input(0)}, {ctx.output(0)}, 12);
    CopyAttributes(
        ctx.node(),
        {"auto_pad", "kernel_shape", "dilations", "strides", "pads", "ceil_mode", "storage_order"},
        pool);
    return absl::OkStatus();
  }
};

class NchwcAveragePoolRewrite : public Rewrite {
 public:
  absl::Status Apply(RewriteContext& ctx) const override {
    RETURN_IF_ERROR(NchwcPoolCheckArity(ctx));
    // AveragePool takes dilations from opset 19 on.
    const bool dilated = HasDilation(ctx.node());
    Node& pool = ctx.AddNode("AveragePool", {ctx.input(0)}, {ctx.output(0)}, dilated ? 19 : 11);
    CopyAttributes(
        ctx.node(),
        {"auto_pad", "kernel_shape", "strides", "pads", "ceil_mode", "count_include_pad"}, pool);
    if (dilated) CopyAttributes(ctx.node(), {"dilations"}, pool);
    return absl::OkStatus();
  }
};

template <const char* kOpType>
class NchwcGlobalPoolRewrite : public Rewrite {
 public:
  absl::Status Apply(RewriteContext& ctx) const override {
    RETURN_IF_ERROR(NchwcPoolCheckArity(ctx));
    ctx.AddNode(kOpType, {ctx.input(0)}, {ctx.output(0)}, 1);
    return absl::OkStatus();
  }
};

constexpr char kGlobalMaxPool[] = "GlobalMaxPool";
constexpr char kGlobalAveragePool[] = "GlobalAveragePool";
using NchwcGlobalMaxPoolRewrite = NchwcGlobalPoolRewrite<kGlobalMaxPool>;
using NchwcGlobalAveragePoolRewrite = NchwcGlobalPoolRewrite<kGlobalAveragePool>;

}  // namespace

VKSERVE_REGISTER_REWRITE(kNchwcDomain, "MaxPool", 1, 1, NchwcMaxPoolRewrite);
VKSERVE_REGISTER_REWRITE(kNchwcDomain, "AveragePool", 1, 1, NchwcAveragePoolRewrite);
VKSERVE_REGISTER_REWRITE(kNchwcDomain, "GlobalMaxPool", 1, 1, NchwcGlobalMaxPoolRewrite);
VKSERVE_REGISTER_REWRITE(kNchwcDomain, "GlobalAveragePool", 1, 1, NchwcGlobalAveragePoolRewrite);

}  // namespace vkserve
