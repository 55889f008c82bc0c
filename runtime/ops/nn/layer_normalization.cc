// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// LayerNormalization (opsets 17-27), fp32 or float16 (X, Scale, B and Y of
// one type; statistics in fp32, Mean and InvStdDev float): each row of the trailing dims
// [axis, rank) is normalized to zero mean and unit variance, then scaled and
// shifted: Y = (X - mean) / sqrt(var + epsilon) * Scale + B. The optional
// outputs Mean and InvStdDev have shape X.shape[:axis] + [1] * (rank - axis).
// Scale and B broadcast unidirectionally to the normalized shape
// X.shape[axis:]. shaders/nn/layer_normalization.glsl does one row per group
// of threads, keeping the row in registers when it fits. With the
// _vkserve_rms attribute of layer_normalization.h the same kernel computes
// RMSNorm (ONNX Runtime's SimplifiedLayerNormalization and its rewrites).
#include "runtime/ops/nn/layer_normalization.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "runtime/ir/data_type.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

// Rows are split over threads so that each holds about kTargetSlots vec4
// registers of its row; a thread holds at most kLayerNormalizationMaxSlots
// (layer_normalization.glsl), so a row of up to 4 * kLayerNormalizationMaxSlots * (max threads)
// floats is read from memory once, and longer rows are streamed. When there
// are few rows, each is spread further — up to one slot per thread and
// kMaxFillThreads threads — until about kFillThreads threads run. (Measured
// on the H100 over 1 to 262144 rows of 7 to 65536 floats: kTargetSlots 2 was
// within 2% of the best of 1, 2, 3, 4 and 8 on large inputs, where 1 lost
// 40% at 4096 floats, and 4 and 8 lost up to 20% and 40% on small ones;
// spreading few rows then took 0.25-0.5 us off the 5-6 us of 1 to 1024 rows
// of 768.)
constexpr uint32_t kTargetSlots = 2;
constexpr uint32_t kLayerNormalizationMaxSlots = 8;
constexpr uint64_t kFillThreads = uint64_t{1} << 18;
constexpr uint32_t kMaxFillThreads = 256;
// Workgroups hold at least this many threads (several rows when rows are
// short), so that short rows still fill the GPU with few workgroups.
constexpr uint32_t kMinLocal = 128;

struct LayerNormalizationLayout {
  int64_t axis = 0;
  int64_t rows = 1;                 // prod(shape[:axis])
  int64_t size = 1;                 // prod(shape[axis:]): elements per row
  std::vector<int64_t> normalized;  // shape[axis:]
};

absl::StatusOr<LayerNormalizationLayout> LayerNormalizationLayoutOf(
    const Node& node, const std::vector<int64_t>& shape) {
  if (shape.empty()) return absl::InvalidArgumentError("LayerNormalization of a scalar");
  LayerNormalizationLayout l;
  ASSIGN_OR_RETURN(l.axis,
                   NormalizeAxis(node.GetInt("axis", -1), static_cast<int64_t>(shape.size())));
  for (int64_t d = 0; d < l.axis; ++d) l.rows *= shape[d];
  l.normalized.assign(shape.begin() + l.axis, shape.end());
  l.size = NumElements(l.normalized);
  return l;
}

// How the shader indexes Scale or B: element e of a row reads param[e]
// (direct), or param[(e / inner) % period] when the parameter's non-1 dims
// are one run of adjacent normalized dims ([D], [C, 1, 1], a scalar, ...).
// Any other broadcast is accepted for constants only, which CreateKernel
// expands to the full normalized shape (as it does every broadcast constant).
struct ParamIndex {
  bool direct = true;
  uint32_t inner = 1;
  uint32_t period = 1;
};

absl::StatusOr<ParamIndex> IndexOf(const TensorDesc& param, const std::vector<int64_t>& normalized,
                                   const char* name) {
  // Unidirectional broadcast to the normalized shape: right-aligned, each dim
  // 1 or equal; leading 1s beyond its rank are allowed (a [1, 1, D] Scale).
  std::vector<int64_t> p = param.shape;
  while (p.size() > normalized.size() && p.front() == 1) p.erase(p.begin());
  const std::string what = absl::StrCat(name, " of shape ", ShapeString(param.shape),
                                        " for normalized shape ", ShapeString(normalized));
  if (p.size() > normalized.size()) {
    return absl::UnimplementedError(
        absl::StrCat(what, ": only broadcasts to the normalized shape are supported"));
  }
  p.insert(p.begin(), normalized.size() - p.size(), 1);
  for (size_t d = 0; d < p.size(); ++d) {
    if (p[d] != 1 && p[d] != normalized[d]) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": does not broadcast"));
    }
  }
  ParamIndex index;
  if (p == normalized) return index;
  index.direct = false;
  // The dims where the parameter varies (dims of extent 1 in `normalized`
  // vary nowhere and are skipped).
  std::vector<size_t> varying;
  for (size_t d = 0; d < p.size(); ++d) {
    if (normalized[d] != 1 && p[d] != 1) varying.push_back(d);
  }
  if (varying.empty()) return index;  // one value: inner 1, period 1
  int64_t inner = 1, period = 1;
  for (size_t d = varying.back() + 1; d < normalized.size(); ++d) inner *= normalized[d];
  for (size_t d = varying.front(); d <= varying.back(); ++d) {
    if (normalized[d] != 1 && p[d] == 1) {  // a broadcast dim inside the run
      if (param.value == nullptr) {
        return absl::UnimplementedError(absl::StrCat(
            what, ": a broadcast over non-adjacent dims is supported only for a constant ", name));
      }
      return index;  // expanded on the host
    }
    period *= normalized[d];
  }
  index.inner = static_cast<uint32_t>(inner);
  index.period = static_cast<uint32_t>(period);
  return index;
}

// The parameter broadcast to the full normalized shape, as bytes of `dtype`
// (float or float16).
std::vector<uint8_t> ExpandParam(const HostTensor& param, const std::vector<int64_t>& normalized,
                                 DataType dtype) {
  std::vector<int64_t> p = param.shape;
  while (p.size() > normalized.size()) p.erase(p.begin());  // leading 1s
  p.insert(p.begin(), normalized.size() - p.size(), 1);
  const std::vector<int64_t> strides = Strides(p);
  const int64_t size = NumElements(normalized);
  std::vector<float> values(static_cast<size_t>(size));
  std::vector<int64_t> coord(normalized.size(), 0);
  for (int64_t e = 0; e < size; ++e) {
    int64_t at = 0;
    for (size_t d = 0; d < coord.size(); ++d) {
      if (p[d] != 1) at += coord[d] * strides[d];
    }
    values[static_cast<size_t>(e)] = static_cast<float>(ElementAsDouble(param, at));
    for (size_t d = coord.size(); d-- > 0;) {
      if (++coord[d] < normalized[d]) break;
      coord[d] = 0;
    }
  }
  if (dtype == DataType::kFloat16) {
    std::vector<uint16_t> halves(values.size());
    for (size_t i = 0; i < values.size(); ++i) halves[i] = FloatToHalf(values[i]);
    std::vector<uint8_t> bytes(halves.size() * sizeof(uint16_t));
    std::memcpy(bytes.data(), halves.data(), bytes.size());
    return bytes;
  }
  std::vector<uint8_t> bytes(values.size() * sizeof(float));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

bool StatsRequested(const Node& node) {
  for (size_t o = 1; o < node.outputs.size(); ++o) {
    if (!node.outputs[o].empty()) return true;
  }
  return false;
}

// The _vkserve_rms flag (layer_normalization.h).
absl::StatusOr<bool> IsRms(const Node& node) {
  RETURN_IF_ERROR(CheckAttributeType(node, kLayerNormRmsAttr, Attribute::Type::kInt));
  const int64_t rms = node.GetInt(kLayerNormRmsAttr, 0);
  if (rms != 0 && rms != 1) return absl::InvalidArgumentError("_vkserve_rms must be 0 or 1");
  return rms == 1;
}

uint32_t PowerOfTwoAtLeast(uint64_t v) {
  uint32_t p = 1;
  while (p < v) p *= 2;
  return p;
}

// How a row is spread over a workgroup's threads.
struct RowThreads {
  uint32_t threads = 1;        // per row, a power of two
  uint64_t slots = 0;          // vec4 slots each thread holds; 0: the row streams
  uint32_t local = 1;          // workgroup size
  bool use_subgroups = false;  // rows reduced by subgroup operations
};

// Threads per row (a power of two): see kTargetSlots. At least two for rows
// of more than four elements, whose single thread would read them with a
// stride; at least a subgroup when the row has work for half of one, so
// that a subgroup reduces it without shared memory.
RowThreads PickRowThreads(const gpu::DeviceInfo& info, uint64_t size, uint64_t rows) {
  const uint32_t max_threads =
      std::min({uint32_t{1024}, info.max_workgroup_invocations, info.max_workgroup_size[0]});
  uint32_t max_pow2 = 1;
  while (max_pow2 * 2 <= max_threads) max_pow2 *= 2;
  const uint64_t units = (size + 3) / 4;  // vec4 slots for one thread
  uint32_t threads = PowerOfTwoAtLeast((units + kTargetSlots - 1) / kTargetSlots);
  if (units >= 2) threads = std::max(threads, 2u);
  const uint32_t subgroup = info.subgroup_size;
  const bool subgroups_usable = info.subgroup_arithmetic && subgroup > 0 &&
                                (subgroup & (subgroup - 1)) == 0 && subgroup <= max_pow2;
  if (subgroups_usable && threads < subgroup && 2 * units >= subgroup) threads = subgroup;
  while (threads < kMaxFillThreads && threads < units && rows * threads < kFillThreads) {
    threads *= 2;
  }
  RowThreads r;
  r.threads = std::min(threads, max_pow2);
  r.slots = (units + r.threads - 1) / r.threads;
  if (r.slots > kLayerNormalizationMaxSlots) r.slots = 0;  // streams the row
  r.local = std::min(max_pow2, std::max(r.threads, kMinLocal));
  r.use_subgroups = subgroups_usable && r.threads % subgroup == 0;
  return r;
}

class LayerNormalizationOp : public Op {
 public:
  const OpTraits& traits() const override {
    static const OpTraits kTraits{.float16 = Float16Use::kComputes};
    return kTraits;
  }
  absl::Status Validate(const Node& node) const override {
    RETURN_IF_ERROR(CheckAttributeType(node, "axis", Attribute::Type::kInt));
    RETURN_IF_ERROR(CheckAttributeType(node, "epsilon", Attribute::Type::kFloat));
    RETURN_IF_ERROR(CheckAttributeType(node, "stash_type", Attribute::Type::kInt));
    RETURN_IF_ERROR(IsRms(node).status());
    if (node.outputs.size() > 3) return absl::InvalidArgumentError("more than 3 outputs");
    // stash_type is the type of Mean and InvStdDev and the precision of the
    // statistics. They are computed in fp32 whatever it says: for bf16 / fp16
    // stashes that is more precise than asked (onnxruntime does the same),
    // and a double stash would change the fp32 Y by a few ulps at most, since
    // the fp32 statistics (two passes, relative to the row's first element)
    // do not cancel. Mean and InvStdDev are written as float only, so other
    // stash types are refused when those outputs are asked for.
    const int64_t stash = node.GetInt("stash_type", 1);
    auto is = [stash](DataType t) { return stash == static_cast<int64_t>(t); };
    if (!is(DataType::kFloat) && !is(DataType::kFloat16) && !is(DataType::kDouble) &&
        !is(DataType::kBFloat16)) {
      return absl::InvalidArgumentError(absl::StrCat("stash_type ", stash, " is not a float type"));
    }
    if (!is(DataType::kFloat) && StatsRequested(node)) {
      return absl::UnimplementedError(absl::StrCat(
          "stash_type ", stash, " with Mean/InvStdDev outputs (only float, stash_type 1)"));
    }
    return absl::OkStatus();
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
    ASSIGN_OR_RETURN(const TensorDesc* scale, RequireInput(ctx, 1));
    RETURN_IF_ERROR(CheckDataType(x->dtype, {DataType::kFloat, DataType::kFloat16}, "input 0"));
    RETURN_IF_ERROR(CheckDataType(scale->dtype, {x->dtype}, "Scale (the type of X)"));
    ASSIGN_OR_RETURN(const LayerNormalizationLayout l,
                     LayerNormalizationLayoutOf(ctx.node, x->shape));
    RETURN_IF_ERROR(IndexOf(*scale, l.normalized, "Scale").status());
    if (const TensorDesc* b = ctx.input(2)) {
      RETURN_IF_ERROR(CheckDataType(b->dtype, {x->dtype}, "B (the type of X)"));
      RETURN_IF_ERROR(IndexOf(*b, l.normalized, "B").status());
    }
    ctx.outputs[0].dtype = x->dtype;
    ctx.outputs[0].shape = x->shape;
    std::vector<int64_t> stats_shape = x->shape;
    for (size_t d = static_cast<size_t>(l.axis); d < stats_shape.size(); ++d) stats_shape[d] = 1;
    for (size_t o = 1; o < ctx.outputs.size(); ++o) {
      ctx.outputs[o].dtype = DataType::kFloat;
      ctx.outputs[o].shape = stats_shape;
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    const TensorDesc& x = *ctx.input(0);
    const uint64_t n = static_cast<uint64_t>(x.num_elements());
    if (n >= (uint64_t{1} << 32)) {
      return absl::UnimplementedError(absl::StrCat("tensors of 2^32 or more elements (", n, ")"));
    }
    ASSIGN_OR_RETURN(const LayerNormalizationLayout l,
                     LayerNormalizationLayoutOf(ctx.node(), x.shape));
    ASSIGN_OR_RETURN(const bool rms, IsRms(ctx.node()));
    auto requested = [&](size_t o) {
      return o < ctx.num_outputs() && ctx.output(o).dtype != DataType::kUndefined;
    };
    const bool mean_out = requested(1), inv_out = requested(2);
    if (n == 0) {
      // Mean and InvStdDev of empty rows would be NaN; nobody exports that.
      if (l.rows > 0 && (mean_out || inv_out)) {
        return absl::UnimplementedError("Mean/InvStdDev of an empty normalized shape");
      }
      return MakeEmptyKernel();
    }

    // Scale and B bindings: direct, indexed by (inner, period), or expanded.
    const TensorDesc* b = ctx.num_inputs() > 2 ? ctx.input(2) : nullptr;
    struct Param {
      ParamIndex index;
      BufferRef ref;
    };
    auto param = [&](size_t i, const char* name) -> absl::StatusOr<Param> {
      const TensorDesc& desc = *ctx.input(i);
      ASSIGN_OR_RETURN(ParamIndex index, IndexOf(desc, l.normalized, name));
      // A broadcast constant is expanded to the full normalized shape once,
      // so that the shader takes the direct (vec4) path.
      if (!index.direct && desc.value != nullptr) {
        const uint32_t expanded = ctx.AddConstant(ExpandParam(*desc.value, l.normalized, x.dtype));
        return Param{ParamIndex{}, BufferRef::Constant(expanded)};
      }
      return Param{index, BufferRef::Input(static_cast<uint32_t>(i))};
    };
    ASSIGN_OR_RETURN(const Param scale, param(1, "Scale"));
    Param bias{ParamIndex{}, scale.ref};  // absent B: bound to Scale, never read
    if (b != nullptr) {
      ASSIGN_OR_RETURN(bias, param(2, "B"));
    }

    const uint64_t rows = static_cast<uint64_t>(l.rows);
    const uint64_t size = static_cast<uint64_t>(l.size);
    const RowThreads rt = PickRowThreads(ctx.device().info(), size, rows);

    DispatchStep step;
    step.push.U32(static_cast<uint32_t>(rows))
        .U32(static_cast<uint32_t>(l.size))
        .U32(scale.index.inner)
        .U32(scale.index.period)
        .U32(bias.index.inner)
        .U32(bias.index.period)
        .F32(ctx.node().GetFloat("epsilon", 1e-5f));
    const std::string shader = absl::StrCat(
        rt.use_subgroups ? "ops/layer_normalization" : "ops/layer_normalization_shared",
        x.dtype == DataType::kFloat16 ? "_f16" : "");
    ASSIGN_OR_RETURN(step.pipeline,
                     ctx.GetPipeline(shader, 6, step.push.size(), {rt.local, 1, 1},
                                     {rt.threads, static_cast<uint32_t>(rt.slots),
                                      size % 4 == 0 ? 1u : 0u, b != nullptr ? 1u : 0u,
                                      scale.index.direct ? 1u : 0u, bias.index.direct ? 1u : 0u,
                                      mean_out ? 1u : 0u, inv_out ? 1u : 0u, rms ? 1u : 0u}));
    // Statistics not asked for are written to scratch.
    const uint32_t dummy = (mean_out && inv_out) ? 0 : ctx.RequestScratch(4);
    step.bindings = {
        BufferRef::Input(0),
        scale.ref,
        bias.ref,
        BufferRef::Output(0),
        mean_out ? BufferRef::Output(1) : BufferRef::Scratch(dummy, gpu::Access::kWrite),
        inv_out ? BufferRef::Output(2) : BufferRef::Scratch(dummy, gpu::Access::kWrite)};
    const uint64_t rows_per_group = rt.local / rt.threads;
    step.groups = GroupsFor((rows + rows_per_group - 1) / rows_per_group, 1, ctx.device());
    return MakeDispatchKernel(std::move(step));
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "LayerNormalization", 17, 27, LayerNormalizationOp);

}  // namespace vkserve
