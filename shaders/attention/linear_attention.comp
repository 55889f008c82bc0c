// SPDX-License-Identifier: Apache-2.0
// LinearAttention (runtime/ops/llm/linear_attention.cc): the recurrent linear
// attention of opset 27 — per (batch, kv head) a state S [DK, dv] that each
// step decays (GATING: by exp(decay), per head or per key dim), corrects
// (DELTA: v <- beta (v - S^T k)), writes (S += k v^T) and reads
// (o = scale q^T S for each query head of the group). Every one of those
// touches a single column of S per value dim m, so an invocation owns one
// column (b, h, m) in registers and walks the T steps itself: no barriers,
// no shared memory. Layouts: q [B, T, Hq DK], k [B, T, Hkv DK],
// v [B, T, Hkv dv], decay [B, T, Hkv (DK)], beta [B, T, Hkv or 1],
// states [B, Hkv, DK, dv], y [B, T, Hq dv]. fp32 throughout.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint DK = 8;
layout(constant_id = 4) const bool GATING = false;
layout(constant_id = 5) const bool DELTA = false;
layout(constant_id = 6) const bool HAS_PAST = false;
layout(constant_id = 7) const bool DECAY_PER_KEY = false;
layout(constant_id = 8) const bool BETA_PER_HEAD = true;
layout(constant_id = 9) const bool WRITE_STATE = true;

layout(binding = 0) readonly buffer Q { float q[]; };
layout(binding = 1) readonly buffer K { float k[]; };
layout(binding = 2) readonly buffer V { float v[]; };
layout(binding = 3) readonly buffer Past { float past[]; };
layout(binding = 4) readonly buffer Decay { float decay[]; };
layout(binding = 5) readonly buffer Beta { float beta[]; };
layout(binding = 6) writeonly buffer Y { float y[]; };
layout(binding = 7) writeonly buffer Present { float present[]; };

layout(push_constant) uniform Params {
  uint count;  // B * Hkv * dv columns
  uint steps;  // T
  uint hq;
  uint hkv;
  uint dv;
  float scale;
} p;

void main() {
  const uint id = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * gl_WorkGroupSize.x);
  if (id >= p.count) return;
  const uint m = id % p.dv;
  const uint h = (id / p.dv) % p.hkv;
  const uint b = id / (p.dv * p.hkv);
  const uint group = p.hq / p.hkv;
  const uint state_base = (b * p.hkv + h) * DK * p.dv + m;  // S[0][m]; rows p.dv apart
  float s[DK];
  for (uint d = 0; d < DK; ++d) s[d] = HAS_PAST ? past[state_base + d * p.dv] : 0.0;
  for (uint t = 0; t < p.steps; ++t) {
    const uint row = b * p.steps + t;  // (b, t)
    const uint head = row * p.hkv + h;  // (b, t, h)
    const uint key = head * DK;
    if (GATING) {
      if (DECAY_PER_KEY) {
        for (uint d = 0; d < DK; ++d) s[d] *= exp(decay[key + d]);
      } else {
        const float g = exp(decay[head]);
        for (uint d = 0; d < DK; ++d) s[d] *= g;
      }
    }
    float value = v[head * p.dv + m];
    if (DELTA) {
      float retrieved = 0.0;
      for (uint d = 0; d < DK; ++d) retrieved += s[d] * k[key + d];
      value = beta[BETA_PER_HEAD ? head : row] * (value - retrieved);
    }
    for (uint d = 0; d < DK; ++d) s[d] += k[key + d] * value;
    for (uint g = 0; g < group; ++g) {
      const uint qh = row * p.hq + h * group + g;  // (b, t, query head)
      float o = 0.0;
      for (uint d = 0; d < DK; ++d) o += q[qh * DK + d] * s[d];
      y[qh * p.dv + m] = p.scale * o;
    }
  }
  if (WRITE_STATE) {
    for (uint d = 0; d < DK; ++d) present[state_base + d * p.dv] = s[d];
  }
}
