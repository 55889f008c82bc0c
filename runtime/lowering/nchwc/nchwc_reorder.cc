// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// com.microsoft.nchwc ReorderInput / ReorderOutput (since 1): ONNX Runtime's
// conversions between plain and blocked tensors (nchwc_layout.h). As vkserve
// keeps blocked values in plain NCHW of the padded channel count, they only
// change the channel count and, with `channels_last`, the axis order:
//   ReorderInput:  X (NCHW, or NHWC when channels_last) -> NCHW with the
//                  channels zero-padded to a multiple of the block size;
//   ReorderOutput: NCHW of Cp channels -> the first `channels` of them, as
//                  NCHW or (channels_last) NHWC.
#include "absl/strings/str_cat.h"
#include "runtime/lowering/nchwc/nchwc_layout.h"
#include "runtime/lowering/rewrite_attributes.h"
#include "runtime/op/rewrite.h"

namespace vkserve {
namespace {

absl::StatusOr<int64_t> ChannelsLast(const Node& node) {
  const Attribute* a = node.FindAttribute("channels_last");
  if (a != nullptr && (a->type != Attribute::Type::kInt || (a->i != 0 && a->i != 1))) {
    return absl::InvalidArgumentError("attribute 'channels_last' must be the int 0 or 1");
  }
  return a == nullptr ? 0 : a->i;
}

absl::Status NchwcReorderCheckArity(const RewriteContext& ctx) {
  if (ctx.node().inputs.size() != 1 || ctx.input(0).empty() || ctx.node().outputs.size() != 1 ||
      ctx.output(0).empty()) {
    return absl::InvalidArgumentError("takes one input and has one output");
  }
  return absl::OkStatus();
}

Node& AddTranspose(RewriteContext& ctx, const std::string& in, const std::string& out,
                   std::vector<int64_t> perm) {
  Node& t = ctx.AddNode("Transpose", {in}, {out}, 13);
  t.attributes["perm"] = IntsAttribute(std::move(perm));
  return t;
}

// Channels ReorderInput pads its input to, when the declared shape says it
// needs padding at all; -1 when it does not, 0 when the declared shape does
// not tell (then the padding is computed from the shape when planning).
absl::StatusOr<int64_t> PaddedInputChannels(RewriteContext& ctx, bool channels_last) {
  const TensorType* type = ctx.declared_type(ctx.input(0));
  if (type == nullptr || !type->has_shape || type->shape.size() != 4 ||
      !type->shape[channels_last ? 3 : 1].is_fixed()) {
    return 0;
  }
  const int64_t c = type->shape[channels_last ? 3 : 1].value;
  // MLAS's block sizes are 8 and 16: a multiple of 16 is never padded.
  if (c % 16 == 0) return -1;
  ASSIGN_OR_RETURN(int64_t block, NchwcBlockSize(ctx));
  const int64_t padded = (c + block - 1) / block * block;
  return padded == c ? -1 : padded;
}

// The Pad input that zero-pads the channels (axis 1) of the NCHW value `x`
// up to a multiple of `block`: (block - C % block) % block at the end,
// computed from x's shape, which planning folds on the host. Values inside
// an .ort file often carry no declared shape.
absl::StatusOr<std::string> ComputedChannelPads(RewriteContext& ctx, const std::string& x) {
  ASSIGN_OR_RETURN(int64_t block, NchwcBlockSize(ctx));
  const std::string channels = ctx.NewValueName("channels");
  Node& shape = ctx.AddNode("Shape", {x}, {channels}, /*opset=*/15);
  shape.attributes["start"] = IntAttribute(1);
  shape.attributes["end"] = IntAttribute(2);
  const std::string b = ctx.AddInitializer("block", HostTensor::FromInts({block}, {1}));
  const std::string rem = ctx.NewValueName("channel_rem");
  ctx.AddNode("Mod", {channels, b}, {rem}, 13);
  const std::string short_by = ctx.NewValueName("channels_short");
  ctx.AddNode("Sub", {b, rem}, {short_by}, 14);
  const std::string extra = ctx.NewValueName("channels_extra");
  ctx.AddNode("Mod", {short_by, b}, {extra}, 13);
  const std::string head =
      ctx.AddInitializer("pads_head", HostTensor::FromInts({0, 0, 0, 0, 0}, {5}));
  const std::string tail = ctx.AddInitializer("pads_tail", HostTensor::FromInts({0, 0}, {2}));
  const std::string pads = ctx.NewValueName("channel_pads");
  Node& concat = ctx.AddNode("Concat", {head, extra, tail}, {pads}, 13);
  concat.attributes["axis"] = IntAttribute(0);
  return pads;
}

class ReorderInputRewrite : public Rewrite {
 public:
  absl::Status Apply(RewriteContext& ctx) const override {
    RETURN_IF_ERROR(NchwcReorderCheckArity(ctx));
    ASSIGN_OR_RETURN(int64_t channels_last, ChannelsLast(ctx.node()));
    ASSIGN_OR_RETURN(int64_t padded, PaddedInputChannels(ctx, channels_last));
    const std::string& y = ctx.output(0);
    std::string nchw = ctx.input(0);
    if (channels_last) {
      nchw = padded < 0 ? y : ctx.NewValueName("nchw");
      AddTranspose(ctx, ctx.input(0), nchw, {0, 3, 1, 2});
    }
    if (padded > 0) {
      const int64_t c = ctx.declared_type(ctx.input(0))->shape[channels_last ? 3 : 1].value;
      std::string pads = ctx.AddInitializer(
          "channel_pads", HostTensor::FromInts({0, 0, 0, 0, 0, padded - c, 0, 0}, {8}));
      ctx.AddNode("Pad", {nchw, pads}, {y}, 13);
    } else if (padded == 0) {
      ASSIGN_OR_RETURN(std::string pads, ComputedChannelPads(ctx, nchw));
      ctx.AddNode("Pad", {nchw, pads}, {y}, 13);
    } else if (!channels_last) {
      ctx.AddNode("Identity", {nchw}, {y}, 16);
    }
    return absl::OkStatus();
  }
};

class ReorderOutputRewrite : public Rewrite {
 public:
  absl::Status Apply(RewriteContext& ctx) const override {
    RETURN_IF_ERROR(NchwcReorderCheckArity(ctx));
    ASSIGN_OR_RETURN(int64_t channels_last, ChannelsLast(ctx.node()));
    const Attribute* channels_attr = ctx.node().FindAttribute("channels");
    if (channels_attr == nullptr || channels_attr->type != Attribute::Type::kInt ||
        channels_attr->i <= 0) {
      return absl::InvalidArgumentError("ReorderOutput needs a positive int attribute 'channels'");
    }
    const int64_t channels = channels_attr->i;
    // Every NCHWc region ends in a ReorderOutput: check the region's plain nodes once here.
    RETURN_IF_ERROR(CheckBlockedConsumers(ctx.graph()));
    const int64_t padded = NchwcPaddedChannels(ctx.graph(), ctx.input(0));
    if (padded > 0 && channels > padded) {
      return absl::InvalidArgumentError(
          absl::StrCat("ReorderOutput keeps ", channels, " channels of a tensor with ", padded));
    }
    const std::string& y = ctx.output(0);
    std::string kept = ctx.input(0);
    if (padded != channels) {  // drop the padding channels (or, when unknown, any)
      kept = channels_last ? ctx.NewValueName("kept") : y;
      std::string starts = ctx.AddInitializer("starts", HostTensor::FromInts({0}, {1}));
      std::string ends = ctx.AddInitializer("ends", HostTensor::FromInts({channels}, {1}));
      std::string axes = ctx.AddInitializer("axes", HostTensor::FromInts({1}, {1}));
      ctx.AddNode("Slice", {ctx.input(0), starts, ends, axes}, {kept}, 13);
    }
    if (channels_last) {
      AddTranspose(ctx, kept, y, {0, 2, 3, 1});
    } else if (padded == channels) {
      ctx.AddNode("Identity", {kept}, {y}, 16);
    }
    return absl::OkStatus();
  }
};

}  // namespace

VKSERVE_REGISTER_REWRITE(kNchwcDomain, "ReorderInput", 1, 1, ReorderInputRewrite);
VKSERVE_REGISTER_REWRITE(kNchwcDomain, "ReorderOutput", 1, 1, ReorderOutputRewrite);

}  // namespace vkserve
