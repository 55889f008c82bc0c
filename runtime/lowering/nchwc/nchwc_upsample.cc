// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// com.microsoft.nchwc Upsample (since 1): ONNX Runtime's integer-factor
// spatial upsampling of blocked tensors (nchwc_layout.h), written for
// Upsample and Resize. Attributes: `scales` (4 positive ints), `mode`
// ("nearest": out[o] = in[o / scale]; "linear": bilinear) and
// `coordinate_transformation_mode` (asymmetric, align_corners or half_pixel,
// for linear). Per channel, so on the un-blocked tensor it is the ONNX Resize
// with the same float scales: nearest with asymmetric coordinates and floor
// rounding, or linear with the stored coordinate mode (ORT's half_pixel
// clamps negative source coordinates to 0, as Resize's linear mode does).
#include "absl/strings/str_cat.h"
#include "runtime/lowering/nchwc/nchwc_layout.h"
#include "runtime/lowering/rewrite_attributes.h"
#include "runtime/op/rewrite.h"

namespace vkserve {
namespace {

absl::StatusOr<std::vector<float>> Scales(const Node& node) {
  const Attribute* a = node.FindAttribute("scales");
  if (a == nullptr || a->type != Attribute::Type::kInts || a->ints.size() != 4) {
    return absl::InvalidArgumentError("nchwc Upsample needs 'scales': 4 ints");
  }
  std::vector<float> scales;
  for (int64_t s : a->ints) {
    // Bounded so that output sizes stay far from overflow.
    if (s < 1 || s > 4096)
      return absl::InvalidArgumentError(absl::StrCat("bad Upsample scale ", s));
    scales.push_back(static_cast<float>(s));
  }
  return scales;
}

class NchwcUpsampleRewrite : public Rewrite {
 public:
  absl::Status Apply(RewriteContext& ctx) const override {
    const Node& stored = ctx.node();
    if (stored.inputs.size() != 1 || ctx.input(0).empty() || stored.outputs.size() != 1 ||
        ctx.output(0).empty()) {
      return absl::InvalidArgumentError("nchwc Upsample takes one input and has one output");
    }
    ASSIGN_OR_RETURN(std::vector<float> scales, Scales(stored));
    const std::string mode = stored.GetString("mode", "nearest");
    const std::string coord = stored.GetString("coordinate_transformation_mode", "asymmetric");
    if (mode != "nearest" && mode != "linear") {
      return absl::InvalidArgumentError(absl::StrCat("unknown nchwc Upsample mode '", mode, "'"));
    }
    if (mode == "linear" && coord != "asymmetric" && coord != "align_corners" &&
        coord != "half_pixel") {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown coordinate_transformation_mode '", coord, "'"));
    }
    std::string scales_name = ctx.AddInitializer("scales", HostTensor::FromFloats(scales, {4}));
    Node& resize = ctx.AddNode("Resize", {ctx.input(0), "", scales_name}, {ctx.output(0)}, 13);
    resize.attributes["mode"] = StringAttribute(mode);
    if (mode == "nearest") {
      resize.attributes["coordinate_transformation_mode"] = StringAttribute("asymmetric");
      resize.attributes["nearest_mode"] = StringAttribute("floor");
    } else {
      resize.attributes["coordinate_transformation_mode"] = StringAttribute(coord);
    }
    return absl::OkStatus();
  }
};

}  // namespace

VKSERVE_REGISTER_REWRITE(kNchwcDomain, "Upsample", 1, 1, NchwcUpsampleRewrite);

}  // namespace vkserve
