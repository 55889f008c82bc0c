// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Sliding-window geometry of Conv, ConvTranspose and pooling (see the header).
#include "runtime/kernels/gemm/conv_geometry.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

// Reads an ints attribute of `rank` entries (or `fill` repeated when absent).
absl::StatusOr<std::vector<int64_t>> RankedInts(const Node& node, const std::string& name,
                                                size_t rank, int64_t fill) {
  if (node.FindAttribute(name) == nullptr) return std::vector<int64_t>(rank, fill);
  std::vector<int64_t> v = node.GetInts(name);
  if (v.size() != rank) {
    return absl::InvalidArgumentError(
        absl::StrCat("attribute '", name, "' has ", v.size(), " values; expected ", rank));
  }
  return v;
}

int64_t SignedCeilDiv(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

}  // namespace

absl::StatusOr<AutoPad> GetAutoPad(const Node& node) {
  const std::string s = node.GetString("auto_pad", "NOTSET");
  if (s == "NOTSET" || s.empty()) return AutoPad::kNotSet;
  if (s == "SAME_UPPER") return AutoPad::kSameUpper;
  if (s == "SAME_LOWER") return AutoPad::kSameLower;
  if (s == "VALID") return AutoPad::kValid;
  return absl::InvalidArgumentError(absl::StrCat("unknown auto_pad '", s, "'"));
}

absl::Status ValidateWindowAttributes(const Node& node) {
  for (const char* name :
       {"kernel_shape", "strides", "dilations", "pads", "output_padding", "output_shape"}) {
    RETURN_IF_ERROR(CheckAttributeType(node, name, Attribute::Type::kInts));
  }
  RETURN_IF_ERROR(CheckAttributeType(node, "auto_pad", Attribute::Type::kString));
  RETURN_IF_ERROR(GetAutoPad(node).status());
  for (const char* name : {"kernel_shape", "strides", "dilations"}) {
    for (int64_t v : node.GetInts(name)) {
      if (v <= 0) {
        return absl::InvalidArgumentError(absl::StrCat("attribute '", name, "' must be positive"));
      }
    }
  }
  for (const char* name : {"pads", "output_padding"}) {
    for (int64_t v : node.GetInts(name)) {
      if (v < 0) {
        return absl::UnimplementedError(absl::StrCat("negative '", name, "' are not supported"));
      }
    }
  }
  if (node.GetInts("pads").size() % 2 != 0) {
    return absl::InvalidArgumentError("attribute 'pads' must have an even number of values");
  }
  return absl::OkStatus();
}

absl::StatusOr<Window> ForwardWindow(const Node& node, const std::vector<int64_t>& input,
                                     const std::vector<int64_t>& kernel, bool ceil_mode) {
  const size_t rank = input.size();
  if (kernel.size() != rank) {
    return absl::InvalidArgumentError(
        absl::StrCat("kernel has ", kernel.size(), " spatial dimensions; input has ", rank));
  }
  Window w;
  w.input = input;
  w.kernel = kernel;
  ASSIGN_OR_RETURN(w.strides, RankedInts(node, "strides", rank, 1));
  ASSIGN_OR_RETURN(w.dilations, RankedInts(node, "dilations", rank, 1));
  ASSIGN_OR_RETURN(std::vector<int64_t> pads, RankedInts(node, "pads", 2 * rank, 0));
  ASSIGN_OR_RETURN(AutoPad auto_pad, GetAutoPad(node));
  w.pad_begin.assign(pads.begin(), pads.begin() + rank);
  w.pad_end.assign(pads.begin() + rank, pads.end());
  w.output.resize(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t extent = (w.kernel[i] - 1) * w.dilations[i] + 1;
    if (auto_pad == AutoPad::kSameUpper || auto_pad == AutoPad::kSameLower) {
      // Output ceil(in / stride), padded as little as needed; the odd pixel
      // goes to the end (SAME_UPPER) or the beginning (SAME_LOWER).
      const int64_t out = SignedCeilDiv(input[i], w.strides[i]);
      const int64_t total = std::max<int64_t>(0, (out - 1) * w.strides[i] + extent - input[i]);
      w.pad_begin[i] = auto_pad == AutoPad::kSameUpper ? total / 2 : total - total / 2;
      w.pad_end[i] = total - w.pad_begin[i];
      w.output[i] = out;
      continue;
    }
    if (auto_pad == AutoPad::kValid) w.pad_begin[i] = w.pad_end[i] = 0;
    const int64_t span = input[i] + w.pad_begin[i] + w.pad_end[i] - extent;
    if (span < 0) {
      return absl::InvalidArgumentError(absl::StrCat("window of extent ", extent,
                                                     " does not fit padded input dimension ",
                                                     input[i] + w.pad_begin[i] + w.pad_end[i]));
    }
    int64_t out = (ceil_mode ? SignedCeilDiv(span, w.strides[i]) : span / w.strides[i]) + 1;
    // The last window must start inside the input or the begin padding.
    if (ceil_mode && (out - 1) * w.strides[i] >= input[i] + w.pad_begin[i]) --out;
    w.output[i] = out;
  }
  return w;
}

absl::StatusOr<Window> TransposeWindow(const Node& node, const std::vector<int64_t>& input,
                                       const std::vector<int64_t>& kernel) {
  const size_t rank = input.size();
  if (kernel.size() != rank) {
    return absl::InvalidArgumentError(
        absl::StrCat("kernel has ", kernel.size(), " spatial dimensions; input has ", rank));
  }
  Window w;
  w.input = input;
  w.kernel = kernel;
  ASSIGN_OR_RETURN(w.strides, RankedInts(node, "strides", rank, 1));
  ASSIGN_OR_RETURN(w.dilations, RankedInts(node, "dilations", rank, 1));
  ASSIGN_OR_RETURN(std::vector<int64_t> pads, RankedInts(node, "pads", 2 * rank, 0));
  ASSIGN_OR_RETURN(std::vector<int64_t> output_padding,
                   RankedInts(node, "output_padding", rank, 0));
  ASSIGN_OR_RETURN(AutoPad auto_pad, GetAutoPad(node));
  std::vector<int64_t> output_shape = node.GetInts("output_shape");
  if (!output_shape.empty() && output_shape.size() != rank) {
    return absl::InvalidArgumentError(absl::StrCat("attribute 'output_shape' has ",
                                                   output_shape.size(), " values; expected ", rank,
                                                   " spatial sizes"));
  }
  w.pad_begin.assign(pads.begin(), pads.begin() + rank);
  w.pad_end.assign(pads.begin() + rank, pads.end());
  w.output.resize(rank);
  for (size_t i = 0; i < rank; ++i) {
    if (output_padding[i] >= std::max(w.strides[i], w.dilations[i])) {
      return absl::InvalidArgumentError(
          "output_padding must be smaller than the stride or the dilation");
    }
    const int64_t full =
        w.strides[i] * (input[i] - 1) + output_padding[i] + (w.kernel[i] - 1) * w.dilations[i] + 1;
    int64_t out = -1;
    if (!output_shape.empty()) {
      out = output_shape[i];
    } else if (auto_pad == AutoPad::kSameUpper || auto_pad == AutoPad::kSameLower) {
      out = input[i] * w.strides[i];
    }
    if (out >= 0) {
      const int64_t total = std::max<int64_t>(0, full - out);
      w.pad_begin[i] = auto_pad == AutoPad::kSameUpper ? total / 2 : total - total / 2;
      w.pad_end[i] = total - w.pad_begin[i];
    } else {
      if (auto_pad == AutoPad::kValid) w.pad_begin[i] = w.pad_end[i] = 0;
      out = full - w.pad_begin[i] - w.pad_end[i];
    }
    if (out <= 0) {
      return absl::InvalidArgumentError(absl::StrCat("output size ", out, " is not positive"));
    }
    w.output[i] = out;
  }
  return w;
}

Window2D As2D(const Window& w) {
  const bool two = w.rank() == 2;
  auto at = [&](const std::vector<int64_t>& v, int64_t one) {
    return std::pair<int32_t, int32_t>(static_cast<int32_t>(two ? v[0] : one),
                                       static_cast<int32_t>(v[two ? 1 : 0]));
  };
  Window2D r;
  std::tie(r.in_h, r.in_w) = at(w.input, 1);
  std::tie(r.kernel_h, r.kernel_w) = at(w.kernel, 1);
  std::tie(r.stride_h, r.stride_w) = at(w.strides, 1);
  std::tie(r.dilation_h, r.dilation_w) = at(w.dilations, 1);
  std::tie(r.pad_top, r.pad_left) = at(w.pad_begin, 0);
  std::tie(r.pad_bottom, r.pad_right) = at(w.pad_end, 0);
  std::tie(r.out_h, r.out_w) = at(w.output, 1);
  return r;
}

}  // namespace vkserve
