// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Sliding-window geometry shared by Conv, ConvTranspose and the pooling ops:
// the strides / dilations / pads / auto_pad attributes, output sizes (with
// ceil_mode), and the push-constant layout their shaders share. Pure
// functions; thread-safe.
#ifndef VKSERVE_RUNTIME_KERNELS_GEMM_CONV_GEOMETRY_H_
#define VKSERVE_RUNTIME_KERNELS_GEMM_CONV_GEOMETRY_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/ir/graph.h"

namespace vkserve {

enum class AutoPad { kNotSet, kSameUpper, kSameLower, kValid };

// The node's auto_pad attribute. INVALID_ARGUMENT for unknown values.
absl::StatusOr<AutoPad> GetAutoPad(const Node& node);

// The spatial window of one node at one input shape. Every vector has one
// entry per spatial dimension.
struct Window {
  std::vector<int64_t> input;
  std::vector<int64_t> kernel;
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::vector<int64_t> pad_begin;
  std::vector<int64_t> pad_end;
  std::vector<int64_t> output;
  size_t rank() const { return input.size(); }
};

// Load-time checks of kernel_shape / strides / dilations / pads / auto_pad
// types and values (positive strides and dilations, non-negative pads,
// consistent lengths).
absl::Status ValidateWindowAttributes(const Node& node);

// The window of Conv / MaxPool / AveragePool: `input` and `kernel` are the
// spatial sizes. With `ceil_mode`, output sizes round up but a window never
// starts in the end padding (ONNX and ONNX Runtime). INVALID_ARGUMENT when
// attribute lengths do not match the rank or the window does not fit.
absl::StatusOr<Window> ForwardWindow(const Node& node, const std::vector<int64_t>& input,
                                     const std::vector<int64_t>& kernel, bool ceil_mode);

// The window of ConvTranspose, where `output` is the (larger) result and
// `pad_begin` / `pad_end` crop the full transposed-convolution output:
// output_padding, output_shape and auto_pad as in the ONNX specification.
absl::StatusOr<Window> TransposeWindow(const Node& node, const std::vector<int64_t>& input,
                                       const std::vector<int64_t>& kernel);

// A 1-D or 2-D window as the 2-D shaders see it: 1-D windows get a leading
// spatial dimension of size 1. REQUIRES: window.rank() is 1 or 2.
struct Window2D {
  int32_t in_h, in_w, kernel_h, kernel_w, stride_h, stride_w, dilation_h, dilation_w;
  int32_t pad_top, pad_left, pad_bottom, pad_right, out_h, out_w;
};
Window2D As2D(const Window& window);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_KERNELS_GEMM_CONV_GEOMETRY_H_
