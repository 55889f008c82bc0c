// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// StridedCopy on the host and its GPU kernel (shaders/ops/copy_strided.comp,
// and shaders/ops/transpose.comp for tiled transposes).
#include "runtime/kernels/strided_copy.h"

#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr int kMaxCopyRank = 8;
constexpr uint32_t kStridedCopyLocalSize = 256;

// Mirrors the push-constant block of copy_strided.comp.
struct CopyParams {
  uint32_t count;
  uint32_t rank;
  uint32_t src_base;
  uint32_t dst_base;
  uint32_t shape[kMaxCopyRank];
  int32_t src_stride[kMaxCopyRank];
  int32_t dst_stride[kMaxCopyRank];
};
static_assert(sizeof(CopyParams) == 112);

bool FitsU32(int64_t v) { return v >= 0 && v <= std::numeric_limits<uint32_t>::max(); }
bool FitsI32(int64_t v) {
  return v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max();
}

// Regroups a simplified copy of `elem_bytes` elements into the widest unit
// (2, 4, 8 or 16 bytes) its contiguous innermost run allows. Returns the
// unit size in bytes.
uint32_t Widen(StridedCopy* c, uint32_t elem_bytes) {
  const size_t r = c->shape.size();
  if (r == 0 || c->src_strides[r - 1] != 1 || c->dst_strides[r - 1] != 1) return elem_bytes;
  for (uint32_t unit : {16u, 8u, 4u, 2u}) {
    if (unit <= elem_bytes) break;
    const int64_t f = unit / elem_bytes;
    bool ok = c->shape[r - 1] % f == 0 && c->src_base % f == 0 && c->dst_base % f == 0;
    for (size_t k = 0; k + 1 < r && ok; ++k) {
      ok = c->src_strides[k] % f == 0 && c->dst_strides[k] % f == 0;
    }
    if (!ok) continue;
    c->shape[r - 1] /= f;
    c->src_base /= f;
    c->dst_base /= f;
    for (size_t k = 0; k + 1 < r; ++k) {
      c->src_strides[k] /= f;
      c->dst_strides[k] /= f;
    }
    return unit;
  }
  return elem_bytes;
}

// Mirrors the push-constant block of transpose.comp.
struct TileParams {
  uint32_t p_extent;
  uint32_t q_extent;
  uint32_t q_src_stride;
  uint32_t p_dst_stride;
  uint32_t batch_extent[2];
  uint32_t batch_src_stride[2];
  uint32_t batch_dst_stride[2];
  uint32_t src_base;
  uint32_t dst_base;
};

constexpr int64_t kTile = 32;
// transpose_half.comp's tiles are twice as long along Q: 32 words.
constexpr int64_t kHalfTileQ = 64;
constexpr int64_t kMinTiledExtent = 16;

// The tiled-transpose form of a simplified copy, when it has one: the source
// is contiguous along some dim P other than the last, the destination along
// the last dim Q, both are large enough to fill tiles, and at most two other
// dims remain. 2-byte elements also need every destination row to start on
// a 32-bit word and hold whole words (even base, strides and Q), since
// transpose_half.comp writes words of two elements without atomics.
bool TiledForm(const StridedCopy& c, uint32_t elem_bytes, const gpu::Device& device, TileParams* t,
               std::array<uint32_t, 3>* groups) {
  const int r = static_cast<int>(c.shape.size());
  if ((elem_bytes != 2 && elem_bytes != 4 && elem_bytes != 8) || r < 2 || r > 4) return false;
  if (c.dst_strides[r - 1] != 1 || c.src_strides[r - 1] == 1) return false;
  int j = -1;
  for (int k = 0; k < r - 1; ++k) {
    if (c.src_strides[k] == 1) j = k;
  }
  if (j < 0 || c.shape[j] < kMinTiledExtent || c.shape[r - 1] < kMinTiledExtent) return false;
  for (int k = 0; k < r; ++k) {
    if (c.src_strides[k] < 0 || c.dst_strides[k] < 0) return false;
    if (elem_bytes == 2 && c.dst_strides[k] % 2 != 0 && k != r - 1) return false;
  }
  if (elem_bytes == 2 && (c.dst_base % 2 != 0 || c.shape[r - 1] % 2 != 0)) return false;
  std::memset(t, 0, sizeof(*t));
  t->batch_extent[0] = t->batch_extent[1] = 1;
  int b = 2 - (r - 2);  // batch dims fill the slots from the back
  int64_t batch = 1;
  for (int k = 0; k < r - 1; ++k) {
    if (k == j) continue;
    t->batch_extent[b] = static_cast<uint32_t>(c.shape[k]);
    t->batch_src_stride[b] = static_cast<uint32_t>(c.src_strides[k]);
    t->batch_dst_stride[b] = static_cast<uint32_t>(c.dst_strides[k]);
    batch *= c.shape[k];
    ++b;
  }
  t->p_extent = static_cast<uint32_t>(c.shape[j]);
  t->q_extent = static_cast<uint32_t>(c.shape[r - 1]);
  t->q_src_stride = static_cast<uint32_t>(c.src_strides[r - 1]);
  t->p_dst_stride = static_cast<uint32_t>(c.dst_strides[j]);
  t->src_base = static_cast<uint32_t>(c.src_base);
  t->dst_base = static_cast<uint32_t>(c.dst_base);
  const auto& max = device.info().max_workgroup_count;
  const int64_t tile_q = elem_bytes == 2 ? kHalfTileQ : kTile;
  const int64_t gx = (c.shape[r - 1] + tile_q - 1) / tile_q;
  const int64_t gy = (c.shape[j] + kTile - 1) / kTile;
  if (gx > max[0] || gy > max[1] || batch > max[2]) return false;
  *groups = {static_cast<uint32_t>(gx), static_cast<uint32_t>(gy), static_cast<uint32_t>(batch)};
  return true;
}

class StridedCopyKernel : public Kernel {
 public:
  struct Step {
    StridedCopy::Source source;
    int src_index;
    int dst_index;
    std::shared_ptr<const gpu::Pipeline> pipeline;
    std::vector<uint8_t> push_constants;
    std::array<uint32_t, 3> groups;
  };
  explicit StridedCopyKernel(std::vector<Step> steps) : steps_(std::move(steps)) {}

  absl::Status Record(const RecordContext& ctx) const override {
    for (const Step& s : steps_) {
      const auto& sources = s.source == StridedCopy::Source::kInput ? ctx.inputs : ctx.constants;
      if (static_cast<size_t>(s.src_index) >= sources.size() ||
          static_cast<size_t>(s.dst_index) >= ctx.outputs.size()) {
        return absl::InternalError("strided copy: missing buffer");
      }
      const gpu::Binding bindings[] = {
          {WordRange(sources[s.src_index]), gpu::Access::kRead},
          {WordRange(ctx.outputs[s.dst_index]), gpu::Access::kReadWrite},
      };
      RETURN_IF_ERROR(
          ctx.command_buffer.Dispatch(s.pipeline, bindings, s.push_constants, s.groups, ctx.label));
    }
    return absl::OkStatus();
  }

 private:
  std::vector<Step> steps_;
};

template <typename T>
std::vector<uint8_t> Bytes(const T& v) {
  const auto* p = reinterpret_cast<const uint8_t*>(&v);
  return std::vector<uint8_t>(p, p + sizeof(T));
}

}  // namespace

int64_t StridedCopy::num_elements() const { return NumElements(shape); }

void StridedCopy::Simplify() { SimplifyStrides(&shape, {&src_strides, &dst_strides}); }

void StridedCopy::RunOnHost(const HostTensor& src, HostTensor* dst) const {
  const int64_t n = num_elements();
  if (n == 0) return;
  const int r = static_cast<int>(shape.size());
  const size_t size = DataTypeSize(src.dtype);
  std::vector<int64_t> idx(r, 0);
  int64_t s = src_base;
  int64_t d = dst_base;
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(dst->data.data() + d * size, src.data.data() + s * size, size);
    for (int k = r - 1; k >= 0; --k) {  // odometer step
      s += src_strides[k];
      d += dst_strides[k];
      if (++idx[k] < shape[k]) break;
      s -= src_strides[k] * shape[k];
      d -= dst_strides[k] * shape[k];
      idx[k] = 0;
    }
  }
}

StridedCopy ContiguousCopy(int64_t n) {
  StridedCopy c;
  c.shape = {n};
  c.src_strides = {1};
  c.dst_strides = {1};
  return c;
}

StridedCopy TransposeCopy(const std::vector<int64_t>& shape, const std::vector<int64_t>& perm) {
  const std::vector<int64_t> in_strides = Strides(shape);
  StridedCopy c;
  for (int64_t p : perm) {
    c.shape.push_back(shape[p]);
    c.src_strides.push_back(in_strides[p]);
  }
  c.dst_strides = Strides(c.shape);
  return c;
}

std::vector<int64_t> BroadcastStrides(const std::vector<int64_t>& shape,
                                      const std::vector<int64_t>& out_shape) {
  std::vector<int64_t> strides(out_shape.size(), 0);
  const std::vector<int64_t> in_strides = Strides(shape);
  const size_t offset = out_shape.size() - shape.size();
  for (size_t i = 0; i < shape.size(); ++i) {
    strides[offset + i] = shape[i] == 1 ? 0 : in_strides[i];
  }
  return strides;
}

StridedCopy BroadcastCopy(const std::vector<int64_t>& shape,
                          const std::vector<int64_t>& out_shape) {
  StridedCopy c;
  c.shape = out_shape;
  c.src_strides = BroadcastStrides(shape, out_shape);
  c.dst_strides = Strides(out_shape);
  return c;
}

void SimplifyStrides(std::vector<int64_t>* shape,
                     const std::vector<std::vector<int64_t>*>& strides) {
  std::vector<int64_t> out_shape;
  std::vector<std::vector<int64_t>> out_strides(strides.size());
  for (size_t k = 0; k < shape->size(); ++k) {
    if ((*shape)[k] == 1) continue;
    bool merge = !out_shape.empty();
    for (size_t j = 0; j < strides.size() && merge; ++j) {
      merge = out_strides[j].back() == (*strides[j])[k] * (*shape)[k];
    }
    if (merge) {
      out_shape.back() *= (*shape)[k];
      for (size_t j = 0; j < strides.size(); ++j) out_strides[j].back() = (*strides[j])[k];
    } else {
      out_shape.push_back((*shape)[k]);
      for (size_t j = 0; j < strides.size(); ++j) out_strides[j].push_back((*strides[j])[k]);
    }
  }
  *shape = std::move(out_shape);
  for (size_t j = 0; j < strides.size(); ++j) *strides[j] = std::move(out_strides[j]);
}

gpu::BufferRange WordRange(const gpu::BufferRange& range) {
  gpu::BufferRange r = range;
  r.size = (r.size + 3) / 4 * 4;
  return r;
}

absl::Status CheckMovableType(DataType dtype) {
  const size_t size = DataTypeSize(dtype);
  if (size == 1 || size == 2 || size == 4 || size == 8) return absl::OkStatus();
  return absl::UnimplementedError(absl::StrCat("tensors of type ", std::string(DataTypeName(dtype)),
                                               " cannot be moved on the GPU"));
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateStridedCopyKernel(KernelContext& ctx, DataType dtype,
                                                                std::vector<StridedCopy> copies) {
  RETURN_IF_ERROR(CheckMovableType(dtype));
  const uint32_t elem_bytes = static_cast<uint32_t>(DataTypeSize(dtype));
  std::vector<StridedCopyKernel::Step> steps;
  for (StridedCopy& c : copies) {
    if (c.num_elements() == 0) continue;
    c.Simplify();
    StridedCopyKernel::Step step;
    step.source = c.source;
    step.src_index = c.src_index;
    step.dst_index = c.dst_index;
    // Index arithmetic is 32-bit: bases and strides in elements must fit.
    bool fits = FitsU32(c.num_elements()) && FitsU32(c.src_base) && FitsU32(c.dst_base);
    for (size_t k = 0; k < c.shape.size(); ++k) {
      fits = fits && FitsI32(c.src_strides[k]) && FitsI32(c.dst_strides[k]);
    }
    if (!fits) {
      return absl::UnimplementedError("strided copy: tensor too large for 32-bit indexing");
    }
    TileParams tile;
    if (TiledForm(c, elem_bytes, ctx.device(), &tile, &step.groups)) {
      ASSIGN_OR_RETURN(step.pipeline, elem_bytes == 2
                                          ? ctx.GetPipeline("ops/transpose_half", 2,
                                                            sizeof(TileParams), {kTile, 8, 1})
                                          : ctx.GetPipeline("ops/transpose", 2, sizeof(TileParams),
                                                            {kTile, 8, 1}, {elem_bytes / 4}));
      step.push_constants = Bytes(tile);
      steps.push_back(std::move(step));
      continue;
    }
    const uint32_t unit = Widen(&c, elem_bytes);
    if (c.shape.size() > kMaxCopyRank) {
      return absl::UnimplementedError(absl::StrCat("a strided copy of rank ", c.shape.size(),
                                                   " (after merging dims) exceeds ", kMaxCopyRank));
    }
    CopyParams p;
    std::memset(&p, 0, sizeof(p));
    const int64_t count = c.num_elements();
    p.count = static_cast<uint32_t>(count);
    p.rank = static_cast<uint32_t>(c.shape.size());
    p.src_base = static_cast<uint32_t>(c.src_base);
    p.dst_base = static_cast<uint32_t>(c.dst_base);
    for (size_t k = 0; k < c.shape.size(); ++k) {
      p.shape[k] = static_cast<uint32_t>(c.shape[k]);
      p.src_stride[k] = static_cast<int32_t>(c.src_strides[k]);
      p.dst_stride[k] = static_cast<int32_t>(c.dst_strides[k]);
    }
    ASSIGN_OR_RETURN(step.pipeline, ctx.GetPipeline("ops/copy_strided", 2, sizeof(CopyParams),
                                                    {kStridedCopyLocalSize, 1, 1}, {unit}));
    step.push_constants = Bytes(p);
    step.groups = GroupsFor(static_cast<uint64_t>(count), kStridedCopyLocalSize, ctx.device());
    steps.push_back(std::move(step));
  }
  return std::make_unique<StridedCopyKernel>(std::move(steps));
}

}  // namespace vkserve
