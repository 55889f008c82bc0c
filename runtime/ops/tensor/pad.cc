// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Pad (opsets 1-27) for 4-byte element types (float, int32, uint32): modes
// constant, reflect, edge and wrap (opset 19); negative pads crop. Before
// opset 11 pads and value are attributes ("paddings" at opset 1); from 11 they
// are the host-known inputs pads and constant_value, and from 18 the optional
// axes input picks the padded dimensions. One gather dispatch (pad.comp).
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr int kMaxPadRank = 8;

enum class PadMode : uint32_t { kConstant = 0, kReflect = 1, kEdge = 2, kWrap = 3 };

absl::StatusOr<PadMode> GetPadMode(const Node& node) {
  const std::string mode = node.GetString("mode", "constant");
  if (mode == "constant") return PadMode::kConstant;
  if (mode == "reflect") return PadMode::kReflect;
  if (mode == "edge") return PadMode::kEdge;
  if (mode == "wrap") return PadMode::kWrap;
  return absl::InvalidArgumentError(absl::StrCat("unknown Pad mode '", mode, "'"));
}

struct PadPlan {
  DataType dtype = DataType::kUndefined;
  std::vector<int64_t> input;
  std::vector<int64_t> begin;  // per dimension; negative crops
  std::vector<int64_t> end;
  std::vector<int64_t> output;
  uint32_t value_bits = 0;
  PadMode mode = PadMode::kConstant;
};

// `inputs[i]` is the node's input i (nullptr when omitted).
// Pad's pads, constant value and axes from its inputs (opset 11 on), each
// of which must be known at load time. `plan->dtype` is set.
absl::Status ReadPadInputs(const Node& node, const std::vector<const TensorDesc*>& inputs,
                           int64_t rank, PadPlan* plan, std::vector<int64_t>* pads,
                           std::vector<int64_t>* axes) {
  auto input_at = [&](size_t i) { return i < inputs.size() ? inputs[i] : nullptr; };
  const TensorDesc* pads_desc = input_at(1);
  if (pads_desc == nullptr || pads_desc->value == nullptr) {
    return absl::UnimplementedError(
        "Pad's pads must be known at load time (a constant, or computable from shapes)");
  }
  *pads = pads_desc->value->ToInts();
  const TensorDesc* value_desc = input_at(2);
  if (value_desc != nullptr) {
    if (value_desc->value == nullptr) {
      return absl::UnimplementedError("Pad's constant_value must be known at load time");
    }
    const HostTensor& v = *value_desc->value;
    if (v.dtype != plan->dtype) {
      return absl::InvalidArgumentError("Pad's constant_value must have the data's type");
    }
    if (v.num_elements() > 0) std::memcpy(&plan->value_bits, v.data.data(), 4);
  }
  const TensorDesc* axes_desc = node.opset >= 18 ? input_at(3) : nullptr;
  if (axes_desc != nullptr) {
    if (axes_desc->value == nullptr) {
      return absl::UnimplementedError("Pad's axes must be known at load time");
    }
    for (int64_t a : axes_desc->value->ToInts()) {
      ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(a, rank));
      axes->push_back(axis);
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<PadPlan> ResolvePad(const Node& node, const std::vector<const TensorDesc*>& inputs) {
  if (inputs.empty() || inputs[0] == nullptr)
    return absl::InvalidArgumentError("input 0 is missing");
  const TensorDesc& data = *inputs[0];
  RETURN_IF_ERROR(CheckDataType(data.dtype, {DataType::kFloat, DataType::kInt32, DataType::kUint32},
                                "Pad input data"));
  PadPlan plan;
  plan.dtype = data.dtype;
  plan.input = data.shape;
  ASSIGN_OR_RETURN(plan.mode, GetPadMode(node));
  const int64_t rank = static_cast<int64_t>(data.shape.size());

  std::vector<int64_t> pads;
  std::vector<int64_t> axes;
  if (node.opset < 11) {
    pads = node.GetInts(node.opset < 2 ? "paddings" : "pads");
    const float value = node.GetFloat("value", 0.0f);
    if (data.dtype == DataType::kFloat) {
      std::memcpy(&plan.value_bits, &value, 4);
    } else {
      plan.value_bits = static_cast<uint32_t>(static_cast<int32_t>(value));
    }
  } else {
    RETURN_IF_ERROR(ReadPadInputs(node, inputs, rank, &plan, &pads, &axes));
  }
  if (axes.empty()) {
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  }
  const size_t n = axes.size();
  if (pads.size() != 2 * n) {
    return absl::InvalidArgumentError(
        absl::StrCat("Pad has ", pads.size(), " pads for ", n, " padded dimensions"));
  }
  plan.begin.assign(rank, 0);
  plan.end.assign(rank, 0);
  for (size_t i = 0; i < n; ++i) {
    plan.begin[axes[i]] = pads[i];
    plan.end[axes[i]] = pads[n + i];
  }
  plan.output.resize(rank);
  for (int64_t d = 0; d < rank; ++d) {
    plan.output[d] = plan.input[d] + plan.begin[d] + plan.end[d];
    if (plan.output[d] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Pad crops dimension ", d, " of ", ShapeString(plan.input), " below 0"));
    }
    if (plan.input[d] == 0 && plan.output[d] > 0 && plan.mode != PadMode::kConstant) {
      return absl::InvalidArgumentError("only constant Pad can pad an empty dimension");
    }
  }
  return plan;
}

class PadOp : public Op {
 public:
  absl::Status Validate(const Node& node) const override {
    RETURN_IF_ERROR(CheckAttributeType(node, "mode", Attribute::Type::kString));
    RETURN_IF_ERROR(CheckAttributeType(node, "pads", Attribute::Type::kInts));
    RETURN_IF_ERROR(CheckAttributeType(node, "paddings", Attribute::Type::kInts));
    RETURN_IF_ERROR(CheckAttributeType(node, "value", Attribute::Type::kFloat));
    return GetPadMode(node).status();
  }

  bool IsHostInput(const Node& node, size_t i) const override { return node.opset >= 11 && i >= 1; }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(PadPlan plan, ResolvePad(ctx.node, ctx.inputs));
    ctx.outputs.resize(1);
    ctx.outputs[0].dtype = plan.dtype;
    ctx.outputs[0].shape = plan.output;
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    std::vector<const TensorDesc*> inputs;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) inputs.push_back(ctx.input(i));
    ASSIGN_OR_RETURN(PadPlan plan, ResolvePad(ctx.node(), inputs));
    // Merge runs of unpadded dimensions: they copy as one.
    std::vector<int64_t> in_dims, out_dims, begin;
    for (size_t d = 0; d < plan.input.size(); ++d) {
      const bool unpadded = plan.begin[d] == 0 && plan.end[d] == 0;
      const bool prev_unpadded =
          !begin.empty() && begin.back() == 0 && in_dims.back() == out_dims.back();
      if (unpadded && prev_unpadded) {
        in_dims.back() *= plan.input[d];
        out_dims.back() *= plan.output[d];
      } else {
        in_dims.push_back(plan.input[d]);
        out_dims.push_back(plan.output[d]);
        begin.push_back(plan.begin[d]);
      }
    }
    if (in_dims.empty()) {  // a scalar
      in_dims = out_dims = {1};
      begin = {0};
    }
    if (in_dims.size() > kMaxPadRank) {
      return absl::UnimplementedError(absl::StrCat("Pad of more than ", kMaxPadRank,
                                                   " padded dimension groups is not supported"));
    }
    const int64_t total = NumElements(plan.output);
    if (total >= (int64_t{1} << 32) || NumElements(plan.input) >= (int64_t{1} << 32)) {
      return absl::UnimplementedError("Pad tensors of 2^32 elements or more are not supported");
    }
    PushConstants pc;
    pc.U32(static_cast<uint32_t>(in_dims.size())).U32(static_cast<uint32_t>(total));
    pc.U32(plan.value_bits).U32(0);
    for (int i = 0; i < kMaxPadRank; ++i) {
      pc.U32(i < static_cast<int>(out_dims.size()) ? static_cast<uint32_t>(out_dims[i]) : 1);
    }
    for (int i = 0; i < kMaxPadRank; ++i) {
      pc.U32(i < static_cast<int>(in_dims.size()) ? static_cast<uint32_t>(in_dims[i]) : 1);
    }
    for (int i = 0; i < kMaxPadRank; ++i) {
      pc.I32(i < static_cast<int>(begin.size()) ? static_cast<int32_t>(begin[i]) : 0);
    }
    constexpr uint32_t kLocal = 128;
    ASSIGN_OR_RETURN(auto pipeline, ctx.GetPipeline("ops/pad", 2, pc.size(), {kLocal, 1, 1},
                                                    {static_cast<uint32_t>(plan.mode)}));
    if (total == 0) return MakeEmptyKernel();
    // An empty input is never read (everything is padding): bind the output.
    const BufferRef in = NumElements(plan.input) > 0 ? BufferRef::Input(0)
                                                     : BufferRef::Output(0, gpu::Access::kRead);
    return MakeDispatchKernel({std::move(pipeline),
                               {in, BufferRef::Output(0)},
                               std::move(pc),
                               GroupsFor(total, kLocal, ctx.device())});
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Pad", 1, 27, PadOp);

}  // namespace vkserve
