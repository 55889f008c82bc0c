// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Resize (opsets 10-27), fp32, any rank up to 6, on any axes: modes nearest
// (round_prefer_floor / round_prefer_ceil / floor / ceil; opset 10's
// truncation), linear (N-linear) and cubic (cubic_coeff_a, exclude_outside);
// coordinate_transformation_mode half_pixel, half_pixel_symmetric,
// pytorch_half_pixel, align_corners, asymmetric, tf_half_pixel_for_nn and
// tf_crop_and_resize (roi, extrapolation_value); scales or sizes, axes and
// keep_aspect_ratio_policy (opset 18); antialias (opset 18) for linear and
// cubic, as ONNX Runtime computes it (Pillow's filters: when downsampling by
// s, the triangle or cubic kernel stretched by 1 / s, taps past the input's
// edge folded onto the edge pixel, or dropped with exclude_outside, weights
// normalized). roi / scales / sizes must be known at load time.
//
// All coordinate arithmetic happens here, in fp32 as ONNX Runtime does it:
// each resized axis gets a table of (input index, weight) taps per output
// coordinate, uploaded as a plan constant; resize.comp only gathers and sums.
#include <algorithm>
#include <cmath>
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

constexpr size_t kMaxResizeRank = 6;

enum class ResizeMode { kNearest, kLinear, kCubic };
enum class Coord {
  kHalfPixel,
  kHalfPixelSymmetric,
  kPytorchHalfPixel,
  kAlignCorners,
  kAsymmetric,
  kTfHalfPixelForNn,
  kTfCropAndResize
};
enum class Nearest { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil, kTruncate };

struct ResizeAttrs {
  ResizeMode mode = ResizeMode::kNearest;
  Coord coord = Coord::kHalfPixel;
  Nearest nearest = Nearest::kRoundPreferFloor;
  float cubic_a = -0.75f;
  bool exclude_outside = false;
  bool antialias = false;  // linear and cubic only; nearest ignores it
  float extrapolation = 0.0f;
  std::string keep_aspect_ratio = "stretch";
};

absl::StatusOr<ResizeAttrs> GetAttrs(const Node& node) {
  ResizeAttrs a;
  const std::string mode = node.GetString("mode", "nearest");
  if (mode == "nearest") {
    a.mode = ResizeMode::kNearest;
  } else if (mode == "linear" || mode == "bilinear") {
    a.mode = ResizeMode::kLinear;
  } else if (mode == "cubic") {
    a.mode = ResizeMode::kCubic;
  } else {
    return absl::InvalidArgumentError(absl::StrCat("unknown Resize mode '", mode, "'"));
  }
  if (node.opset < 11) {
    // Resize-10: asymmetric coordinates, nearest truncates (ceil when shrinking).
    a.coord = Coord::kAsymmetric;
    a.nearest = Nearest::kTruncate;
    if (a.mode == ResizeMode::kCubic)
      return absl::InvalidArgumentError("Resize-10 has no cubic mode");
    return a;
  }
  const std::string coord = node.GetString("coordinate_transformation_mode", "half_pixel");
  if (coord == "half_pixel") {
    a.coord = Coord::kHalfPixel;
  } else if (coord == "half_pixel_symmetric") {
    a.coord = Coord::kHalfPixelSymmetric;
  } else if (coord == "pytorch_half_pixel") {
    a.coord = Coord::kPytorchHalfPixel;
  } else if (coord == "align_corners") {
    a.coord = Coord::kAlignCorners;
  } else if (coord == "asymmetric") {
    a.coord = Coord::kAsymmetric;
  } else if (coord == "tf_half_pixel_for_nn") {
    a.coord = Coord::kTfHalfPixelForNn;
  } else if (coord == "tf_crop_and_resize") {
    a.coord = Coord::kTfCropAndResize;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown coordinate_transformation_mode '", coord, "'"));
  }
  const std::string nearest = node.GetString("nearest_mode", "round_prefer_floor");
  if (nearest == "round_prefer_floor") {
    a.nearest = Nearest::kRoundPreferFloor;
  } else if (nearest == "round_prefer_ceil") {
    a.nearest = Nearest::kRoundPreferCeil;
  } else if (nearest == "floor") {
    a.nearest = Nearest::kFloor;
  } else if (nearest == "ceil") {
    a.nearest = Nearest::kCeil;
  } else {
    return absl::InvalidArgumentError(absl::StrCat("unknown nearest_mode '", nearest, "'"));
  }
  a.cubic_a = node.GetFloat("cubic_coeff_a", -0.75f);
  a.exclude_outside = node.GetInt("exclude_outside", 0) != 0;
  a.extrapolation = node.GetFloat("extrapolation_value", 0.0f);
  a.keep_aspect_ratio = node.GetString("keep_aspect_ratio_policy", "stretch");
  if (a.keep_aspect_ratio != "stretch" && a.keep_aspect_ratio != "not_larger" &&
      a.keep_aspect_ratio != "not_smaller") {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown keep_aspect_ratio_policy '", a.keep_aspect_ratio, "'"));
  }
  a.antialias = node.GetInt("antialias", 0) != 0 && a.mode != ResizeMode::kNearest;
  return a;
}

struct ResizePlan {
  ResizeAttrs attrs;
  std::vector<int64_t> input;
  std::vector<int64_t> output;
  std::vector<float> scales;     // per axis
  std::vector<float> roi_start;  // per axis (tf_crop_and_resize)
  std::vector<float> roi_end;
};

// The host value of input i with at least one element, or null.
const HostTensor* NonEmptyHostInput(const std::vector<const TensorDesc*>& inputs, size_t i) {
  if (i >= inputs.size() || inputs[i] == nullptr || inputs[i]->value == nullptr) return nullptr;
  return inputs[i]->value->num_elements() > 0 ? inputs[i]->value.get() : nullptr;
}

absl::StatusOr<ResizePlan> ResolveResize(const Node& node,
                                         const std::vector<const TensorDesc*>& inputs) {
  if (inputs.empty() || inputs[0] == nullptr)
    return absl::InvalidArgumentError("input 0 is missing");
  const TensorDesc& x = *inputs[0];
  RETURN_IF_ERROR(CheckDataType(x.dtype, {DataType::kFloat}, "Resize input X"));
  ResizePlan plan;
  ASSIGN_OR_RETURN(plan.attrs, GetAttrs(node));
  const size_t rank = x.shape.size();
  if (rank == 0 || rank > kMaxResizeRank) {
    return absl::UnimplementedError(
        absl::StrCat("Resize supports ranks 1 to ", kMaxResizeRank, "; X is ", x.ToString()));
  }
  for (size_t i = 1; i < inputs.size(); ++i) {
    if (inputs[i] != nullptr && inputs[i]->value == nullptr) {
      return absl::UnimplementedError(
          absl::StrCat("Resize input ", i, " (roi / scales / sizes) must be known at load time"));
    }
  }
  std::vector<int64_t> axes;
  for (int64_t a : node.GetInts("axes")) {
    ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(a, static_cast<int64_t>(rank)));
    axes.push_back(axis);
  }
  if (axes.empty()) {
    for (size_t d = 0; d < rank; ++d) axes.push_back(static_cast<int64_t>(d));
  }
  const size_t n = axes.size();
  plan.input = x.shape;
  plan.output = x.shape;
  plan.scales.assign(rank, 1.0f);
  plan.roi_start.assign(rank, 0.0f);
  plan.roi_end.assign(rank, 1.0f);

  const HostTensor* roi = node.opset >= 11 ? NonEmptyHostInput(inputs, 1) : nullptr;
  const HostTensor* scales = NonEmptyHostInput(inputs, node.opset >= 11 ? 2 : 1);
  const HostTensor* sizes = node.opset >= 11 ? NonEmptyHostInput(inputs, 3) : nullptr;
  if ((scales == nullptr) == (sizes == nullptr)) {
    return absl::InvalidArgumentError("Resize needs exactly one of scales and sizes");
  }
  if (roi != nullptr && plan.attrs.coord == Coord::kTfCropAndResize) {
    if (roi->num_elements() != static_cast<int64_t>(2 * n)) {
      return absl::InvalidArgumentError(
          absl::StrCat("roi has ", roi->num_elements(), " values; expected ", 2 * n));
    }
    for (size_t i = 0; i < n; ++i) {
      plan.roi_start[axes[i]] = static_cast<float>(roi->GetDouble(i));
      plan.roi_end[axes[i]] = static_cast<float>(roi->GetDouble(n + i));
    }
  }
  if (scales != nullptr) {
    if (scales->num_elements() != static_cast<int64_t>(n)) {
      return absl::InvalidArgumentError(
          absl::StrCat("scales has ", scales->num_elements(), " values; expected ", n));
    }
    for (size_t i = 0; i < n; ++i) {
      const float s = static_cast<float>(scales->GetDouble(i));
      if (!(s > 0)) return absl::InvalidArgumentError("scales must be positive");
      const int64_t axis = axes[i];
      plan.scales[axis] = s;
      plan.output[axis] = static_cast<int64_t>(static_cast<float>(x.shape[axis]) * s);
    }
  } else {
    if (sizes->num_elements() != static_cast<int64_t>(n)) {
      return absl::InvalidArgumentError(
          absl::StrCat("sizes has ", sizes->num_elements(), " values; expected ", n));
    }
    const std::vector<int64_t> size_values = sizes->ToInts();
    for (size_t i = 0; i < n; ++i) {
      const int64_t axis = axes[i];
      if (size_values[i] <= 0 || x.shape[axis] <= 0) {
        return absl::InvalidArgumentError("sizes and input dimensions must be positive");
      }
      plan.output[axis] = size_values[i];
      plan.scales[axis] = static_cast<float>(size_values[i]) / static_cast<float>(x.shape[axis]);
    }
    if (plan.attrs.keep_aspect_ratio != "stretch") {
      float s = plan.scales[axes[0]];
      for (int64_t axis : axes) {
        s = plan.attrs.keep_aspect_ratio == "not_larger" ? std::min(s, plan.scales[axis])
                                                         : std::max(s, plan.scales[axis]);
      }
      for (int64_t axis : axes) {
        plan.scales[axis] = s;
        plan.output[axis] = static_cast<int64_t>(std::round(s * static_cast<float>(x.shape[axis])));
      }
    }
  }
  for (size_t d = 0; d < rank; ++d) {
    if (plan.output[d] < 0) return absl::InvalidArgumentError("negative Resize output size");
  }
  return plan;
}

// ONNX Runtime's get_original_coordinate, in fp32.
float OriginalCoordinate(Coord coord, float x, float scale, float out_len, float in_len,
                         float roi_start, float roi_end) {
  switch (coord) {
    case Coord::kHalfPixel:
      return (x + 0.5f) / scale - 0.5f;
    case Coord::kHalfPixelSymmetric: {
      const float adjustment = out_len / (scale * in_len);
      const float offset = in_len / 2 * (1 - adjustment);
      return offset + (x + 0.5f) / scale - 0.5f;
    }
    case Coord::kPytorchHalfPixel:
      return out_len > 1 ? (x + 0.5f) / scale - 0.5f : 0.0f;
    case Coord::kAlignCorners:
      return out_len == 1 ? 0.0f : x * (in_len - 1) / (out_len - 1);
    case Coord::kAsymmetric:
      return x / scale;
    case Coord::kTfHalfPixelForNn:
      return (x + 0.5f) / scale;
    case Coord::kTfCropAndResize:
      return out_len > 1
                 ? static_cast<float>(roi_start * (in_len - 1) +
                                      (x * (roi_end - roi_start) * (in_len - 1)) / (out_len - 1))
                 : static_cast<float>(0.5 * (roi_start + roi_end) * (in_len - 1));
  }
  return x;
}

int64_t NearestIndex(Nearest mode, float x, bool downsample) {
  switch (mode) {
    case Nearest::kRoundPreferFloor:
      if (x == static_cast<float>(static_cast<int64_t>(x)) + 0.5f) {
        return static_cast<int64_t>(std::floor(x));
      }
      return static_cast<int64_t>(std::round(x));
    case Nearest::kRoundPreferCeil:
      return static_cast<int64_t>(std::round(x));
    case Nearest::kFloor:
      return static_cast<int64_t>(std::floor(x));
    case Nearest::kCeil:
      return static_cast<int64_t>(std::ceil(x));
    case Nearest::kTruncate:
      return downsample ? static_cast<int64_t>(std::ceil(x)) : static_cast<int64_t>(x);
  }
  return 0;
}

struct Tap {
  int32_t index;
  float weight;
};

// The taps of one axis: `taps` per output coordinate. Index -1 in the first
// tap marks extrapolation.
std::vector<Tap> AxisTaps(const ResizePlan& plan, size_t d, int taps) {
  const ResizeAttrs& a = plan.attrs;
  const int64_t in = plan.input[d];
  const int64_t out = plan.output[d];
  const float scale = plan.scales[d];
  const bool extrapolate = a.coord == Coord::kTfCropAndResize;
  std::vector<Tap> result;
  result.reserve(out * taps);
  auto clamp = [in](int64_t i) { return static_cast<int32_t>(std::clamp<int64_t>(i, 0, in - 1)); };
  for (int64_t o = 0; o < out; ++o) {
    // An axis of scale 1 maps each coordinate to itself in every mode, as
    // ONNX Runtime does (so tf_half_pixel_for_nn's + 0.5 and a crop box's
    // roi leave an unscaled axis alone).
    float x = static_cast<float>(o);
    if (scale != 1.0f) {
      x = OriginalCoordinate(a.coord, x, scale, static_cast<float>(out), static_cast<float>(in),
                             plan.roi_start[d], plan.roi_end[d]);
    }
    if (extrapolate && (x < 0 || x > static_cast<float>(in - 1))) {
      for (int t = 0; t < taps; ++t) result.push_back({-1, 0.0f});
      continue;
    }
    if (a.mode == ResizeMode::kNearest) {
      result.push_back({clamp(NearestIndex(a.nearest, x, scale < 1.0f)), 1.0f});
    } else if (a.mode == ResizeMode::kLinear) {
      x = std::max(0.0f, std::min(x, static_cast<float>(in - 1)));
      const int64_t i1 = std::min<int64_t>(static_cast<int64_t>(x), in - 1);
      const int64_t i2 = std::min<int64_t>(i1 + 1, in - 1);
      float w1 = std::fabs(x - static_cast<float>(i2));  // weight of i1
      float w2 = std::fabs(x - static_cast<float>(i1));  // weight of i2
      if (i1 == i2) w1 = w2 = 0.5f;
      result.push_back({static_cast<int32_t>(i1), w1});
      result.push_back({static_cast<int32_t>(i2), w2});
    } else {
      const float base = std::floor(x);
      const float s = x - base;
      const float A = a.cubic_a;
      float c[4] = {((A * (s + 1) - 5 * A) * (s + 1) + 8 * A) * (s + 1) - 4 * A,
                    ((A + 2) * s - (A + 3)) * s * s + 1,
                    ((A + 2) * (1 - s) - (A + 3)) * (1 - s) * (1 - s) + 1,
                    ((A * (2 - s) - 5 * A) * (2 - s) + 8 * A) * (2 - s) - 4 * A};
      const int64_t first = static_cast<int64_t>(base) - 1;
      if (a.exclude_outside) {
        float sum = 0;
        for (int t = 0; t < 4; ++t) {
          if (first + t < 0 || first + t >= in) c[t] = 0;
          sum += c[t];
        }
        for (float& v : c) v = sum != 0 ? v / sum : 0;
      }
      for (int t = 0; t < 4; ++t) result.push_back({clamp(first + t), c[t]});
    }
  }
  return result;
}

// The widest antialiasing filter (in input pixels either side) vkserve
// builds tables for: 2 * 31 + 1 taps per output coordinate and axis.
constexpr float kMaxAntialiasSupport = 31.0f;

// ONNX Runtime's (Pillow's) antialiasing filters: the triangle for linear,
// the cubic convolution kernel with cubic_coeff_a for cubic.
float AntialiasFilter(const ResizeAttrs& a, float x) {
  x = std::fabs(x);
  if (a.mode == ResizeMode::kLinear) return x < 1.0f ? 1.0f - x : 0.0f;
  if (x < 1.0f) return ((a.cubic_a + 2.0f) * x - (a.cubic_a + 3.0f)) * x * x + 1.0f;
  if (x < 2.0f) return (((x - 5.0f) * x + 8.0f) * x - 4.0f) * a.cubic_a;
  return 0.0f;
}

// The antialiased taps of axis d, per output coordinate (ONNX Runtime's
// arithmetic, in fp32): the filter's support grows by 1 / scale when
// downsampling; taps outside the input read the edge pixel (or, with
// exclude_outside, are left out); weights are normalized by their sum. A
// single tap of index -1 marks extrapolation.
absl::StatusOr<std::vector<std::vector<Tap>>> AntialiasTaps(const ResizePlan& plan, size_t d) {
  const ResizeAttrs& a = plan.attrs;
  const int64_t in = plan.input[d];
  const int64_t out = plan.output[d];
  const float rscale = plan.scales[d];
  const float scale = 1.0f / rscale;
  const float half_support = a.mode == ResizeMode::kLinear ? 1.0f : 2.0f;
  const float support = scale >= 1.0f ? half_support * scale : half_support;
  if (!(support <= kMaxAntialiasSupport)) {
    return absl::UnimplementedError(absl::StrCat(
        "Resize with antialias downscaling by ", scale, " (at most ", kMaxAntialiasSupport,
        " for linear, ", kMaxAntialiasSupport / 2, " for cubic)"));
  }
  const int64_t window = static_cast<int64_t>(std::ceil(support)) * 2 + 1;
  const float inv_scale = scale >= 1.0f ? 1.0f / scale : 1.0f;
  std::vector<std::vector<Tap>> result(out);
  for (int64_t o = 0; o < out; ++o) {
    const float center =
        0.5f + (rscale == 1.0f ? static_cast<float>(o)
                               : OriginalCoordinate(a.coord, static_cast<float>(o), rscale,
                                                    static_cast<float>(out), static_cast<float>(in),
                                                    plan.roi_start[d], plan.roi_end[d]));
    if (a.coord == Coord::kTfCropAndResize &&
        (center - 0.5f < 0 || center - 0.5f > static_cast<float>(in - 1))) {
      result[o] = {{-1, 0.0f}};
      continue;
    }
    // NaN or far outside (a crop box from untrusted roi values): no input
    // pixel, and nothing to convert to an index.
    if (!(std::fabs(center) < 1e9f)) continue;
    int64_t lo = static_cast<int64_t>(std::floor(center - support + 0.5f));
    int64_t hi = static_cast<int64_t>(std::floor(center + support + 0.5f));
    hi = lo + std::clamp<int64_t>(hi - lo, 0, window);
    const int64_t lo_cut = std::clamp<int64_t>(lo, 0, in);
    const int64_t hi_cut = std::clamp<int64_t>(hi, 0, in);
    if (a.exclude_outside) lo = lo_cut, hi = hi_cut;
    if (lo_cut >= hi_cut) continue;  // no input pixel: 0, as ONNX Runtime
    float total = 0.0f;
    std::vector<Tap>& taps = result[o];
    for (int64_t i = lo; i < hi; ++i) {
      const float w = AntialiasFilter(a, (static_cast<float>(i) - center + 0.5f) * inv_scale);
      taps.push_back({static_cast<int32_t>(std::clamp<int64_t>(i, 0, in - 1)), w});
      total += w;
    }
    const float inv_total = total == 0.0f ? 1.0f : 1.0f / total;
    for (Tap& t : taps) t.weight *= inv_total;
  }
  return result;
}

// The taps of axis d per output coordinate.
absl::StatusOr<std::vector<std::vector<Tap>>> AxisTapLists(const ResizePlan& plan, size_t d) {
  if (plan.attrs.antialias) return AntialiasTaps(plan, d);
  const int per = plan.attrs.mode == ResizeMode::kNearest  ? 1
                  : plan.attrs.mode == ResizeMode::kLinear ? 2
                                                           : 4;
  const std::vector<Tap> flat = AxisTaps(plan, d, per);
  std::vector<std::vector<Tap>> lists(plan.output[d]);
  for (size_t o = 0; o < lists.size(); ++o) {
    lists[o].assign(flat.begin() + o * per, flat.begin() + (o + 1) * per);
  }
  return lists;
}

// True when every output coordinate reads exactly its own input coordinate.
bool IsIdentity(const std::vector<std::vector<Tap>>& taps, int64_t in) {
  if (static_cast<int64_t>(taps.size()) != in) return false;
  for (size_t o = 0; o < taps.size(); ++o) {
    float sum = 0;
    for (const Tap& tap : taps[o]) {
      if (tap.weight != 0 && tap.index != static_cast<int32_t>(o)) return false;
      sum += tap.weight;
    }
    if (sum != 1.0f) return false;
  }
  return true;
}

class ResizeOp : public Op {
 public:
  absl::Status Validate(const Node& node) const override {
    for (const char* name :
         {"mode", "coordinate_transformation_mode", "nearest_mode", "keep_aspect_ratio_policy"}) {
      RETURN_IF_ERROR(CheckAttributeType(node, name, Attribute::Type::kString));
    }
    for (const char* name : {"cubic_coeff_a", "extrapolation_value"}) {
      RETURN_IF_ERROR(CheckAttributeType(node, name, Attribute::Type::kFloat));
    }
    for (const char* name : {"exclude_outside", "antialias"}) {
      RETURN_IF_ERROR(CheckAttributeType(node, name, Attribute::Type::kInt));
    }
    RETURN_IF_ERROR(CheckAttributeType(node, "axes", Attribute::Type::kInts));
    return GetAttrs(node).status();
  }

  bool IsHostInput(const Node& /*node*/, size_t i) const override { return i >= 1; }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(ResizePlan plan, ResolveResize(ctx.node, ctx.inputs));
    ctx.outputs.resize(1);
    ctx.outputs[0].dtype = DataType::kFloat;
    ctx.outputs[0].shape = plan.output;
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    std::vector<const TensorDesc*> inputs;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) inputs.push_back(ctx.input(i));
    ASSIGN_OR_RETURN(ResizePlan plan, ResolveResize(ctx.node(), inputs));
    const int64_t total = NumElements(plan.output);
    if (total >= (int64_t{1} << 32) || NumElements(plan.input) >= (int64_t{1} << 32)) {
      return absl::UnimplementedError("Resize tensors of 2^32 elements or more are not supported");
    }
    const size_t rank = plan.input.size();
    const std::vector<int64_t> strides = Strides(plan.input);
    // Each resized axis's taps, padded with zero-weight taps to the widest
    // list: the shader visits `taps` per axis and output coordinate.
    std::vector<std::vector<std::vector<Tap>>> axes(rank);
    uint32_t mask = 0;
    size_t taps = 1;
    for (size_t d = 0; d < rank; ++d) {
      ASSIGN_OR_RETURN(axes[d], AxisTapLists(plan, d));
      if (IsIdentity(axes[d], plan.input[d])) continue;
      mask |= 1u << d;
      for (const std::vector<Tap>& list : axes[d]) taps = std::max(taps, list.size());
    }
    std::vector<uint32_t> words;
    std::vector<uint32_t> offsets(kMaxResizeRank, 0);
    for (size_t d = 0; d < rank; ++d) {
      if ((mask & (1u << d)) == 0) continue;
      offsets[d] = static_cast<uint32_t>(words.size() / 2);
      for (const std::vector<Tap>& list : axes[d]) {
        for (size_t t = 0; t < taps; ++t) {
          const int32_t pad_index = list.empty() ? 0 : std::max(0, list[0].index);
          const Tap tap = t < list.size() ? list[t] : Tap{pad_index, 0.0f};
          uint32_t w;
          std::memcpy(&w, &tap.weight, 4);
          words.push_back(static_cast<uint32_t>(tap.index));
          words.push_back(w);
        }
      }
    }
    if (words.empty()) words.assign(2, 0);  // keep the binding non-empty
    std::vector<uint8_t> bytes(words.size() * 4);
    std::memcpy(bytes.data(), words.data(), bytes.size());
    const uint32_t table = ctx.AddConstant(std::move(bytes));

    PushConstants pc;
    pc.U32(static_cast<uint32_t>(rank)).U32(static_cast<uint32_t>(total));
    pc.F32(plan.attrs.extrapolation).U32(mask);
    for (size_t i = 0; i < kMaxResizeRank; ++i) {
      pc.U32(i < rank ? static_cast<uint32_t>(plan.output[i]) : 1);
    }
    for (size_t i = 0; i < kMaxResizeRank; ++i) {
      pc.U32(i < rank ? static_cast<uint32_t>(strides[i]) : 0);
    }
    for (size_t i = 0; i < kMaxResizeRank; ++i) pc.U32(offsets[i]);
    constexpr uint32_t kLocal = 128;
    ASSIGN_OR_RETURN(auto pipeline, ctx.GetPipeline("ops/resize", 3, pc.size(), {kLocal, 1, 1},
                                                    {static_cast<uint32_t>(taps)}));
    if (total == 0 || NumElements(plan.input) == 0) {
      return MakeEmptyKernel();
    }
    return MakeDispatchKernel(
        {std::move(pipeline),
         {BufferRef::Input(0), BufferRef::Constant(table), BufferRef::Output(0)},
         std::move(pc),
         GroupsFor(total, kLocal, ctx.device())});
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Resize", 10, 27, ResizeOp);

}  // namespace vkserve
