// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Upsample (opsets 7-9; deprecated since 10): Resize by `scales` (an
// attribute at opset 7, input 1 after) with mode "nearest" (rounding down)
// or "linear", asymmetric coordinates — lowered to Resize, which also reads
// the scales on the host.
#include "absl/strings/str_cat.h"
#include "runtime/lowering/rewrite_attributes.h"
#include "runtime/op/rewrite.h"

namespace vkserve {
namespace {

class UpsampleRewrite : public Rewrite {
 public:
  absl::Status Apply(RewriteContext& ctx) const override {
    const Node& stored = ctx.node();
    if (ctx.input(0).empty() || stored.outputs.size() != 1) {
      return absl::InvalidArgumentError("Upsample takes X and has one output");
    }
    const std::string mode = stored.GetString("mode", "nearest");
    if (mode != "nearest" && mode != "linear") {
      return absl::UnimplementedError(
          absl::StrCat("mode '", mode.substr(0, 32), "' is not supported"));
    }
    std::string scales = ctx.input(1);
    if (scales.empty()) {
      const std::vector<float> values = stored.GetFloats("scales");
      if (values.empty()) return absl::InvalidArgumentError("Upsample needs scales");
      scales = ctx.AddInitializer(
          "scales", HostTensor::FromFloats(values, {static_cast<int64_t>(values.size())}));
    }
    Node& resize = ctx.AddNode("Resize", {ctx.input(0), "", scales}, {stored.outputs[0]}, 13);
    resize.attributes["mode"] = StringAttribute(mode);
    resize.attributes["coordinate_transformation_mode"] = StringAttribute("asymmetric");
    resize.attributes["nearest_mode"] = StringAttribute("floor");
    return absl::OkStatus();
  }
};

}  // namespace

VKSERVE_REGISTER_REWRITE("", "Upsample", 7, 9, UpsampleRewrite);

}  // namespace vkserve
