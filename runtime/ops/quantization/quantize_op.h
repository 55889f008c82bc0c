// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// QuantizeOp: the shared implementation of QuantizeLinear (fp32 to int8,
// uint8, int16, uint16; output_dtype from opset 21, else the zero point's
// type, default uint8) and DequantizeLinear (those and int32 to fp32), per
// tensor, per axis (opset 13) or blocked (block_size, opset 21), on the GPU
// through shaders/ops/quantize.comp. Stateless; thread-safe.
#ifndef VKSERVE_RUNTIME_OPS_QUANTIZATION_QUANTIZE_OP_H_
#define VKSERVE_RUNTIME_OPS_QUANTIZATION_QUANTIZE_OP_H_

#include "runtime/op/op.h"

namespace vkserve {

class QuantizeOp : public Op {
 public:
  explicit QuantizeOp(bool dequantize) : dequantize_(dequantize) {}

  absl::Status Validate(const Node& node) const override;
  absl::Status Infer(InferContext& ctx) const override;
  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override;

 private:
  const bool dequantize_;
};

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_OPS_QUANTIZATION_QUANTIZE_OP_H_
