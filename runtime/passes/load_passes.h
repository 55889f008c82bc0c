// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The passes a model runs at load, in their order, assembled in one place
// (as ONNX Runtime's graph_transformer_utils does): the rewrites of contrib
// and blocked-layout nodes into plain ops, Constant nodes lifted and control
// flow resolved (level kLowering, before a sync split); pass-through nodes
// dropped, attention, GELU, SiLU and normalizations fused, reshapes sunk,
// GEMM epilogues fused and repeated computations merged (kFusion); weights
// laid out for the GEMM engine (kLayout); FP16 marks, weights and
// activations (kPrecision). Passes the options switch off stay in the list,
// recorded as off, so every name is known whatever the options. Stateless;
// thread-safe.
#ifndef VKSERVE_RUNTIME_PASSES_LOAD_PASSES_H_
#define VKSERVE_RUNTIME_PASSES_LOAD_PASSES_H_

#include <cstdint>
#include <memory>
#include <set>
#include <string>

#include "runtime/passes/pipeline.h"

namespace vkserve {

// The choices of ModelOptions the passes depend on.
struct LoadPassOptions {
  bool fuse = true;
  bool fuse_attention = true;
  bool fp16 = false;
  bool fp16_accumulation = false;  // with fp16: GEMM nodes also marked Accumulation::kFp16
  bool channels_last = false;      // "channels-last": NHWC Convs (ModelOptions::conv_layout)
  bool channels_last_spatial = false;  // with channels_last: only chains holding a wider-than-1x1 Conv
  bool tensor_cores = false;       // the device runs the GEMM engine's tensor-core tiles
  int64_t max_fold_elements = 0;
  // Where "fp16-activations" puts the initializers it stored in fp16; must
  // outlive the pipeline's runs.
  std::set<std::string>* halved = nullptr;
};

// Pass names whose counts the model reports.
inline constexpr char kEpilogueFusionPass[] = "epilogue-fusion";
inline constexpr char kFp16WeightsPass[] = "fp16-weights";
inline constexpr char kFp16ActivationsPass[] = "fp16-activations";

std::unique_ptr<PassPipeline> MakeLoadPipeline(const LoadPassOptions& options);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_PASSES_LOAD_PASSES_H_
