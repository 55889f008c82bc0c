// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Col2Im (opsets 18-27): sliding blocks [N, C * prod(block_shape), L] summed
// back into images [N, C, image_shape...] with dilations, pads and strides,
// 1 to 4 spatial dims, fp32 (shaders/nn/col2im.comp). image_shape and
// block_shape set the output shape: read on the host (constants or values
// from the request).
#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr uint32_t kCol2imLocal = 256;
constexpr size_t kMaxDims = 4;

struct Col2imGeometry {
  std::vector<int64_t> image, block, dilation, stride, pad, blocks, out_shape;
  int64_t k = 1, l = 1;
};

absl::StatusOr<Col2imGeometry> Col2imGeometryOf(const Node& node, const TensorDesc& x,
                                                const TensorDesc* image, const TensorDesc* block) {
  if (image == nullptr || block == nullptr || image->value == nullptr || block->value == nullptr) {
    return absl::InvalidArgumentError("Col2Im needs image_shape and block_shape known on the host");
  }
  Col2imGeometry g;
  ASSIGN_OR_RETURN(g.image, HostInts(*image->value, "image_shape"));
  ASSIGN_OR_RETURN(g.block, HostInts(*block->value, "block_shape"));
  const size_t nd = g.image.size();
  if (nd == 0 || nd > kMaxDims || g.block.size() != nd) {
    return absl::UnimplementedError(absl::StrCat("Col2Im of ", nd, " spatial dims with a block of ",
                                                 g.block.size(), " (1 to 4, equal)"));
  }
  g.dilation = node.GetInts("dilations", std::vector<int64_t>(nd, 1));
  g.stride = node.GetInts("strides", std::vector<int64_t>(nd, 1));
  const std::vector<int64_t> pads = node.GetInts("pads", std::vector<int64_t>(2 * nd, 0));
  if (g.dilation.size() != nd || g.stride.size() != nd || pads.size() != 2 * nd) {
    return absl::InvalidArgumentError("dilations, strides or pads do not match image_shape");
  }
  if (x.shape.size() != 3)
    return absl::InvalidArgumentError("input must be [N, C * prod(block), L]");
  for (size_t d = 0; d < nd; ++d) {
    if (g.image[d] < 1 || g.block[d] < 1 || g.dilation[d] < 1 || g.stride[d] < 1 || pads[d] < 0 ||
        pads[nd + d] < 0) {
      return absl::InvalidArgumentError("Col2Im sizes must be positive (pads non-negative)");
    }
    const int64_t span = g.dilation[d] * (g.block[d] - 1) + 1;
    const int64_t padded = g.image[d] + pads[d] + pads[nd + d];
    if (padded < span) return absl::InvalidArgumentError("a block is larger than the padded image");
    g.blocks.push_back((padded - span) / g.stride[d] + 1);
    g.pad.push_back(pads[d]);
    g.k *= g.block[d];
    g.l *= g.blocks.back();
  }
  if (x.shape[1] % g.k != 0 || x.shape[2] != g.l) {
    return absl::InvalidArgumentError(absl::StrCat("input ", x.ToString(),
                                                   " does not hold blocks of ", g.k,
                                                   " elements at ", g.l, " positions"));
  }
  g.out_shape = {x.shape[0], x.shape[1] / g.k};
  g.out_shape.insert(g.out_shape.end(), g.image.begin(), g.image.end());
  return g;
}

class Col2ImOp : public Op {
 public:
  bool IsHostInput(const Node& /*node*/, size_t input_index) const override {
    return input_index != 0;
  }

  absl::Status Validate(const Node& node) const override {
    for (const char* a : {"dilations", "pads", "strides"}) {
      RETURN_IF_ERROR(CheckAttributeType(node, a, Attribute::Type::kInts));
    }
    return absl::OkStatus();
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
    RETURN_IF_ERROR(CheckDataType(x->dtype, {DataType::kFloat}, "input"));
    ASSIGN_OR_RETURN(const Col2imGeometry g,
                     Col2imGeometryOf(ctx.node, *x, ctx.input(1), ctx.input(2)));
    ctx.outputs[0].dtype = x->dtype;
    ctx.outputs[0].shape = g.out_shape;
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    const TensorDesc& x = *ctx.input(0);
    ASSIGN_OR_RETURN(const Col2imGeometry g,
                     Col2imGeometryOf(ctx.node(), x, ctx.input(1), ctx.input(2)));
    const uint64_t total = static_cast<uint64_t>(NumElements(g.out_shape));
    if (total == 0) return MakeEmptyKernel();
    if (total >= (uint64_t{1} << 31) || x.num_elements() >= (int64_t{1} << 31)) {
      return absl::UnimplementedError("Col2Im: tensors too large");
    }
    DispatchStep step;
    step.push.U32(static_cast<uint32_t>(total))
        .U32(static_cast<uint32_t>(g.image.size()))
        .U32(static_cast<uint32_t>(g.k))
        .U32(static_cast<uint32_t>(g.l));
    for (const std::vector<int64_t>* v :
         {&g.image, &g.block, &g.dilation, &g.stride, &g.pad, &g.blocks}) {
      for (size_t d = 0; d < kMaxDims; ++d)
        step.push.U32(d < v->size() ? static_cast<uint32_t>((*v)[d]) : 1);
    }
    ASSIGN_OR_RETURN(step.pipeline,
                     ctx.GetPipeline("ops/col2im", 2, step.push.size(), {kCol2imLocal, 1, 1}));
    step.bindings = {BufferRef::Input(0), BufferRef::Output(0)};
    step.groups = GroupsFor(total, kCol2imLocal, ctx.device());
    return MakeDispatchKernel(std::move(step));
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Col2Im", 18, 27, Col2ImOp);

}  // namespace vkserve
