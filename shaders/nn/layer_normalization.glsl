// SPDX-License-Identifier: Apache-2.0
// LayerNormalization, the body shared by layer_normalization.comp
// (subgroup reductions) and layer_normalization_shared.comp (shared-memory
// reductions only, for devices without subgroup arithmetic and for rows
// handled by fewer threads than a subgroup). The including file defines
// LN_SUBGROUP as 1 or 0. X, Scale, B and Y are fp32, or fp16 in the "_f16"
// variants (VKSERVE_F16, precision.glsl), whose arithmetic stays fp32;
// Mean and InvStdDev are fp32 either way.
//
// X is a set of `rows` rows of `size` contiguous elements. Each row is
// handled by THREADS (a power of two) threads — a row group: consecutive
// local invocations, or whole subgroups when subgroups reduce — and a
// workgroup of gl_WorkGroupSize.x holds gl_WorkGroupSize.x / THREADS row
// groups; workgroups are numbered across gl_WorkGroupID.x and .y (op_util.h
// GroupsFor with local size 1).
//
// A thread's share of its row is a few "slots" of four elements:
//   VEC4 (size % 4 == 0): slot i holds vec4 unit i * THREADS + lane, so each
//     load is one 16-byte access and a row group reads contiguous memory.
//   else: slot i component j holds element (4 * i + j) * THREADS + lane, so
//     neighbouring threads still read neighbouring addresses.
// SLOTS > 0: the row is read from memory once and kept in registers for the
// statistics and the output (SLOTS * 4 * THREADS >= size). SLOTS == 0
// (rows too long for registers): the row is streamed three times.
//
// Statistics are computed relative to the row's first element x0 (exact for
// values near it, so a common offset much larger than the spread costs no
// precision), in two passes: the mean of x - x0, then the mean of squared
// deviations from it (not E[x^2] - E[x]^2, which cancels).
//
// RMS (RMSNorm, ONNX Runtime's SimplifiedLayerNormalization): the statistics
// are about zero instead of the mean — x0 and the offset are 0, pass 1 is
// skipped — so inv_std is 1 / sqrt(mean(x^2) + epsilon) and Mean reads 0.
//
// Scale and B: element e of a row reads param[e] when DIRECT, else
// param[(e / inner) % period] — the trailing-dims and per-block broadcasts
// of a parameter that is not a constant (constants are expanded on the host).

#include "precision.glsl"

#if VKSERVE_F16
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define LN_T float16_t
#define LN_T4 f16vec4
#else
#define LN_T float
#define LN_T4 vec4
#endif

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint THREADS = 32;  // per row, a power of two
layout(constant_id = 4) const uint SLOTS = 1;     // vec4 registers per thread (<= kMaxSlots); 0 streams
layout(constant_id = 5) const bool VEC4 = false;
layout(constant_id = 6) const bool HAS_BIAS = false;
layout(constant_id = 7) const bool SCALE_DIRECT = true;
layout(constant_id = 8) const bool BIAS_DIRECT = true;
layout(constant_id = 9) const bool WRITE_MEAN = false;
layout(constant_id = 10) const bool WRITE_INV_STD = false;
layout(constant_id = 11) const bool RMS = false;

const uint kMaxSlots = 8;

layout(binding = 0) readonly buffer XBuf { LN_T x[]; };
layout(binding = 0) readonly buffer X4Buf { LN_T4 x4[]; };
layout(binding = 1) readonly buffer ScaleBuf { LN_T scale[]; };
layout(binding = 1) readonly buffer Scale4Buf { LN_T4 scale4[]; };
layout(binding = 2) readonly buffer BiasBuf { LN_T bias[]; };
layout(binding = 2) readonly buffer Bias4Buf { LN_T4 bias4[]; };
layout(binding = 3) writeonly buffer YBuf { LN_T y[]; };
layout(binding = 3) writeonly buffer Y4Buf { LN_T4 y4[]; };
layout(binding = 4) writeonly buffer MeanBuf { float mean_out[]; };
layout(binding = 5) writeonly buffer InvStdBuf { float inv_std_out[]; };

layout(push_constant) uniform Params {
  uint rows;
  uint size;  // elements per row
  uint scale_inner;
  uint scale_period;
  uint bias_inner;
  uint bias_period;
  float epsilon;
} p;

// Shared-memory reductions: one float per thread per statistic (separate
// arrays, so that the second reduction needs no barrier before it reuses
// the first one's storage).
shared float red_sum[gl_WorkGroupSize.x];
shared float red_sq[gl_WorkGroupSize.x];

// Which row group a thread belongs to and its lane in it; see main().
uint g_lane;

// Element index of component j of slot i, and whether it is in the row.
uint ElementOf(uint i, uint j) {
  return VEC4 ? 4 * (i * THREADS + g_lane) + j : (4 * i + j) * THREADS + g_lane;
}

vec4 SlotMask(uint i) {
  if (VEC4) return vec4((i * THREADS + g_lane) * 4 < p.size ? 1.0 : 0.0);
  vec4 m;
  for (uint j = 0; j < 4; ++j) m[j] = ElementOf(i, j) < p.size ? 1.0 : 0.0;
  return m;
}

// Elements outside the row read as 0.
vec4 LoadSlot(uint base, uint i) {
  if (VEC4) {
    const uint u = i * THREADS + g_lane;
    return u * 4 < p.size ? vec4(x4[base / 4 + u]) : vec4(0.0);
  }
  vec4 v;
  for (uint j = 0; j < 4; ++j) {
    const uint e = ElementOf(i, j);
    v[j] = e < p.size ? float(x[base + e]) : 0.0;
  }
  return v;
}

void StoreSlot(uint base, uint i, vec4 v) {
  if (VEC4) {
    const uint u = i * THREADS + g_lane;
    if (u * 4 < p.size) y4[base / 4 + u] = LN_T4(v);
    return;
  }
  for (uint j = 0; j < 4; ++j) {
    const uint e = ElementOf(i, j);
    if (e < p.size) y[base + e] = LN_T(v[j]);
  }
}

vec4 ScaleSlot(uint i) {
  if (VEC4 && SCALE_DIRECT) {
    const uint u = i * THREADS + g_lane;
    return u * 4 < p.size ? vec4(scale4[u]) : vec4(0.0);
  }
  vec4 v;
  for (uint j = 0; j < 4; ++j) {
    const uint e = ElementOf(i, j);
    v[j] = e >= p.size ? 0.0 : float(scale[SCALE_DIRECT ? e : (e / p.scale_inner) % p.scale_period]);
  }
  return v;
}

vec4 BiasSlot(uint i) {
  if (VEC4 && BIAS_DIRECT) {
    const uint u = i * THREADS + g_lane;
    return u * 4 < p.size ? vec4(bias4[u]) : vec4(0.0);
  }
  vec4 v;
  for (uint j = 0; j < 4; ++j) {
    const uint e = ElementOf(i, j);
    v[j] = e >= p.size ? 0.0 : float(bias[BIAS_DIRECT ? e : (e / p.bias_inner) % p.bias_period]);
  }
  return v;
}

#if LN_SUBGROUP
// Set in main(): the row groups are whole subgroups (THREADS a multiple of
// gl_SubgroupSize, and every subgroup full), so subgroupAdd reduces within
// one row.
bool g_use_subgroups;
uint g_subgroups_per_row;
uint g_first_subgroup;  // of this thread's row group
#endif
uint g_group_base;  // first thread (local index) of this thread's row group

// The sum of `v` over the thread's row group; every thread of it gets it.
// Called by every thread of the workgroup, in uniform control flow.
float RowSum(float v, bool second) {
#if LN_SUBGROUP
  if (g_use_subgroups) {
    const float s = subgroupAdd(v);
    if (g_subgroups_per_row == 1) return s;
    if (subgroupElect()) {
      if (second) {
        red_sq[gl_SubgroupID] = s;
      } else {
        red_sum[gl_SubgroupID] = s;
      }
    }
    barrier();
    float total = 0.0;
    for (uint k = 0; k < g_subgroups_per_row; ++k) {
      total += second ? red_sq[g_first_subgroup + k] : red_sum[g_first_subgroup + k];
    }
    return total;
  }
#endif
  const uint tid = g_group_base + g_lane;
  if (second) {
    red_sq[tid] = v;
  } else {
    red_sum[tid] = v;
  }
  barrier();
  for (uint half_size = THREADS / 2; half_size > 0; half_size >>= 1) {
    if (g_lane < half_size) {
      if (second) {
        red_sq[tid] += red_sq[tid + half_size];
      } else {
        red_sum[tid] += red_sum[tid + half_size];
      }
    }
    barrier();
  }
  return second ? red_sq[g_group_base] : red_sum[g_group_base];
}

float Sum4(vec4 v) { return (v.x + v.y) + (v.z + v.w); }

void main() {
  const uint groups_per_wg = gl_WorkGroupSize.x / THREADS;
  uint group;
#if LN_SUBGROUP
  g_use_subgroups = gl_SubgroupSize <= THREADS && THREADS % gl_SubgroupSize == 0 &&
                    gl_NumSubgroups * gl_SubgroupSize == gl_WorkGroupSize.x;
  if (g_use_subgroups) {
    // Row groups from subgroup ids, which assumes nothing about how the
    // driver maps invocations to subgroups.
    g_subgroups_per_row = THREADS / gl_SubgroupSize;
    group = gl_SubgroupID / g_subgroups_per_row;
    g_first_subgroup = group * g_subgroups_per_row;
    g_lane = (gl_SubgroupID % g_subgroups_per_row) * gl_SubgroupSize + gl_SubgroupInvocationID;
  } else
#endif
  {
    group = gl_LocalInvocationID.x / THREADS;
    g_lane = gl_LocalInvocationID.x % THREADS;
  }
  g_group_base = group * THREADS;

  const uint wg = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  const uint row = wg * groups_per_wg + group;
  // Rows past the end still take part in the barriers; they read and
  // write nothing.
  const bool in_range = row < p.rows;
  const uint base = in_range ? row * p.size : 0;
  const float n = float(p.size);
  const float x0 = in_range && !RMS ? float(x[base]) : 0.0;
  const uint slots = SLOTS > 0 ? SLOTS : (p.size + 4 * THREADS - 1) / (4 * THREADS);

  // Pass 1: the mean of x - x0.
  vec4 cache[kMaxSlots];
  float s = 0.0;
  if (SLOTS > 0) {
    for (uint i = 0; i < SLOTS; ++i) {
      cache[i] = in_range ? (LoadSlot(base, i) - x0) * SlotMask(i) : vec4(0.0);
      s += Sum4(cache[i]);
    }
  } else if (in_range && !RMS) {
    for (uint i = 0; i < slots; ++i) s += Sum4((LoadSlot(base, i) - x0) * SlotMask(i));
  }
  const float offset = RMS ? 0.0 : RowSum(s, false) / n;  // mean - x0

  // Pass 2: the variance, as the mean of squared deviations.
  float d2 = 0.0;
  if (SLOTS > 0) {
    for (uint i = 0; i < SLOTS; ++i) {
      const vec4 d = (cache[i] - offset) * SlotMask(i);
      cache[i] = d;
      d2 += dot(d, d);
    }
  } else if (in_range) {
    for (uint i = 0; i < slots; ++i) {
      const vec4 d = (LoadSlot(base, i) - x0 - offset) * SlotMask(i);
      d2 += dot(d, d);
    }
  }
  const float inv_std = inversesqrt(RowSum(d2, true) / n + p.epsilon);

  if (!in_range) return;  // no barriers follow
  for (uint i = 0; i < slots; ++i) {
    const vec4 d = SLOTS > 0 ? cache[i] : LoadSlot(base, i) - x0 - offset;
    vec4 v = d * inv_std * ScaleSlot(i);
    if (HAS_BIAS) v += BiasSlot(i);
    StoreSlot(base, i, v);
  }
  if (g_lane == 0) {
    if (WRITE_MEAN) mean_out[row] = x0 + offset;
    if (WRITE_INV_STD) inv_std_out[row] = inv_std;
  }
}
