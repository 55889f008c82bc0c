// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Conv's channels-last layout, set only by the load-time channels-last
// pass (runtime/passes/channels_last.h) as a "_vkserve_" attribute, so the
// rewritten graph stays a Graph:
//
//   _vkserve_layout (string "NHWC"): X, the fused residual and Y are
//       [N, H, W, C] and W is stored [C_out, KH, KW, C_in] (the GEMM's K
//       order, (ky, kx, channel)); 2-D, one group. Absent: ONNX's NCHW.
//
// The GEMM engine runs such a Conv on the NHWC im2col loader (fp16 tensors
// with C_in % 8 == 0, tensor cores) or, for a 1x1 stride-1 window without
// pads, as the plain product X[N * H * W, C_in] x W^T. Constants; thread-safe.
#ifndef VKSERVE_RUNTIME_OPS_NN_CONV_LAYOUT_H_
#define VKSERVE_RUNTIME_OPS_NN_CONV_LAYOUT_H_

namespace vkserve {

inline constexpr char kConvLayoutAttr[] = "_vkserve_layout";
inline constexpr char kConvLayoutNhwc[] = "NHWC";
// The NHWC form of an NCHW value <name> is named <name> + this suffix (the
// channels-last pass's Transposes and renamed Conv outputs; inspect traces
// stored nodes through it).
inline constexpr char kNhwcValueSuffix[] = "/vkserve_nhwc";

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_OPS_NN_CONV_LAYOUT_H_
