// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The channels-last layout pass ("channels-last", ModelOptions::
// conv_layout): Conv nodes whose activations the GEMM engine can read
// channels-last (2-D, one group, a multiple of 8 input channels, a constant
// weight read by such Convs alone, fp16 activations) are marked NHWC
// (runtime/ops/nn/conv_layout.h) and their weights repacked to [C_out, KH,
// KW, C_in], the im2col K order (ky, kx, channel) of the NHWC loader.
// Activations stay NHWC from one such Conv to the next, through X and the
// fused residual (epilogue fusion runs first, so Conv -> Conv chains with
// bias, Relu and residual Add are one Conv node each); a Transpose to NHWC
// is inserted once per value an NHWC Conv reads from elsewhere, and a
// Transpose back to NCHW, under the value's own name, once per NHWC output
// that any other op or the graph's outputs read. Every other op keeps
// ONNX's NCHW semantics, so the graph computes what it did.
//
// Runs on the main graph only when it holds no subgraph (scope
// kMainGraphWithoutSubgraphs): it reads inferred shapes and uses across the
// graph. Single-threaded.
#ifndef VKSERVE_RUNTIME_PASSES_CHANNELS_LAST_H_
#define VKSERVE_RUNTIME_PASSES_CHANNELS_LAST_H_

#include <vector>

#include "absl/status/statusor.h"
#include "runtime/ir/graph.h"
#include "runtime/op/op.h"
#include "runtime/passes/pass.h"

namespace vkserve {

inline constexpr char kChannelsLastPass[] = "channels-last";

struct ChannelsLastOptions {
  // The plan keeps activations in fp16 (FP16 precision); otherwise only
  // Convs whose input is stored float16 qualify.
  bool fp16_activations = false;
  // The device runs the tensor-core tiles the NHWC loader is built for;
  // without them only Convs pinning one ("cm..." kGemmPlanAttr, whose
  // emulation tests run) qualify, so the model plans on any device.
  bool tensor_cores = false;
  // Only chains holding a Conv wider than 1x1 (ConvLayout::kAuto). A chain
  // is the Convs linked by NHWC values (one's Y another's X or residual) or
  // by reading the same value: one Transpose in and out per chain boundary.
  // Channels-last speeds up the im2col gather of wider windows; a 1x1 Conv
  // reads NCHW as a plain matrix, so a chain of them only adds Transposes.
  bool spatial_chains_only = false;
};

// Rewrites `graph` in place as above; `shapes1` and `shapes3` are its
// values' shapes at the free input dimensions 1 and 3. Returns how many
// Convs it marked.
absl::StatusOr<int> ConvertConvsToChannelsLast(Graph* graph, const ValueShapes& shapes1,
                                               const ValueShapes& shapes3,
                                               const ChannelsLastOptions& options);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_PASSES_CHANNELS_LAST_H_
