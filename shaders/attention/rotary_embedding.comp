// SPDX-License-Identifier: Apache-2.0
// RotaryEmbedding (opset 23, fp32): element (b, h, s, d) of x, addressed
// through strides (3-D [B, S, H * D] or 4-D [B, H, S, D]), is rotated with
// its partner in the first ROT dims — d and d + ROT/2, or (INTERLEAVED) the
// pair 2i, 2i + 1 — by the angle whose cos/sin sit at the cache row of
// position_ids[b, s] (POSITIONS) or of (b, s); dims past ROT pass through.
// One invocation per element; index as in op_util.h GroupsFor.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const bool INTERLEAVED = false;
layout(constant_id = 4) const bool POSITIONS = true;

layout(binding = 0) readonly buffer X { float x[]; };
layout(binding = 1) readonly buffer Cos { float cos_cache[]; };
layout(binding = 2) readonly buffer Sin { float sin_cache[]; };
layout(binding = 3) readonly buffer Pos { uvec2 positions[]; };  // int64 [B, S]
layout(binding = 4) writeonly buffer Y { float y[]; };

layout(push_constant) uniform Params {
  uint n;
  uint heads, seq, head_dim, rot;
  uint sb, sh, ss;  // strides of b, h, s (d contiguous)
  uint max_pos;     // cache rows (clamp)
} p;

void main() {
  const uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i >= p.n) return;
  const uint d = i % p.head_dim;
  const uint s = (i / p.head_dim) % p.seq;
  const uint h = (i / (p.head_dim * p.seq)) % p.heads;
  const uint b = i / (p.head_dim * p.seq * p.heads);
  const uint base = b * p.sb + h * p.sh + s * p.ss;
  if (d >= p.rot) {
    y[base + d] = x[base + d];
    return;
  }
  const uint half_rot = p.rot / 2u;
  uint pair, partner;
  bool first;
  if (INTERLEAVED) {
    pair = d / 2u;
    first = d % 2u == 0u;
    partner = first ? d + 1u : d - 1u;
  } else {
    pair = d % half_rot;
    first = d < half_rot;
    partner = first ? d + half_rot : d - half_rot;
  }
  const uint row = POSITIONS ? min(positions[b * p.seq + s].x, p.max_pos - 1u) : b * p.seq + s;
  const float c = cos_cache[row * half_rot + pair];
  const float sn = sin_cache[row * half_rot + pair];
  const float v = x[base + d], w = x[base + partner];
  y[base + d] = first ? v * c - w * sn : v * c + w * sn;
}
