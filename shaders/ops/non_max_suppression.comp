// SPDX-License-Identifier: Apache-2.0
// NonMaxSuppression at a sync point (runtime/sync_split.h). One workgroup;
// invocation t handles the (batch, class) pairs t, t + LOCAL, ...: greedy
// selection by descending score (ties: lower box index first) among boxes
// scoring above score_threshold, each pick removing the boxes overlapping
// it by IoU > iou_threshold, up to max_output_boxes_per_class picks. Then
// invocation 0 writes the picks as int64 rows [batch, class, box] in
// (batch, class, pick) order, densely, and their number into `count`.
// The three scalars are read here, on the GPU (HAS_* say which are given).
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
const uint LOCAL = 64;  // the workgroup size the kernel dispatches

layout(binding = 0) readonly buffer Boxes { float boxes[]; };     // [B, N, 4]
layout(binding = 1) readonly buffer Scores { float scores[]; };   // [B, C, N]
layout(binding = 2) readonly buffer MaxOut { uint max_out[]; };   // int64 scalar
layout(binding = 3) readonly buffer Iou { float iou_threshold[]; };
layout(binding = 4) readonly buffer ScoreThr { float score_threshold[]; };
layout(binding = 5) buffer Removed { uint removed[]; };           // [B * C * N]
layout(binding = 6) buffer Picks { uint picks[]; };               // [B * C * N]
layout(binding = 7) buffer Picked { uint picked[]; };             // [B * C]
layout(binding = 8) writeonly buffer Y { uint y[]; };             // int64 [rows, 3]
layout(binding = 9) writeonly buffer Count { uint count[]; };

layout(push_constant) uniform Params {
  uint batches;
  uint classes;
  uint n;               // boxes per batch
  uint center_point;    // center_point_box
  uint has_max_out;
  uint has_iou;
  uint has_score;
} p;

// Box i of batch b as (y1, x1, y2, x2) with y1 <= y2 and x1 <= x2.
vec4 corners(uint b, uint i) {
  const uint at = (b * p.n + i) * 4;
  const vec4 v = vec4(boxes[at], boxes[at + 1], boxes[at + 2], boxes[at + 3]);
  if (p.center_point != 0u) {  // (x_center, y_center, width, height)
    return vec4(v.y - v.w / 2, v.x - v.z / 2, v.y + v.w / 2, v.x + v.z / 2);
  }
  return vec4(min(v.x, v.z), min(v.y, v.w), max(v.x, v.z), max(v.y, v.w));
}

bool overlaps(uint b, uint i, uint j, float threshold) {
  const vec4 a = corners(b, i), c = corners(b, j);
  const float area_a = (a.z - a.x) * (a.w - a.y);
  const float area_c = (c.z - c.x) * (c.w - c.y);
  if (area_a <= 0.0 || area_c <= 0.0) return false;
  const float h = max(0.0, min(a.z, c.z) - max(a.x, c.x));
  const float w = max(0.0, min(a.w, c.w) - max(a.y, c.y));
  const float inter = h * w;
  const float uni = area_a + area_c - inter;
  return uni > 0.0 && inter / uni > threshold;
}

void main() {
  const uint t = gl_LocalInvocationID.x;
  const uint pairs = p.batches * p.classes;
  uint limit = 0u;
  if (p.has_max_out != 0u) {
    const uint lo = max_out[0], hi = max_out[1];
    limit = int(hi) < 0 ? 0u : (hi != 0u ? p.n : min(lo, p.n));
  }
  const float iou = p.has_iou != 0u ? iou_threshold[0] : 0.0;
  const bool thresholded = p.has_score != 0u;
  const float floor_score = thresholded ? score_threshold[0] : 0.0;
  for (uint pair = t; pair < pairs; pair += LOCAL) {
    const uint b = pair / p.classes;
    const uint base = pair * p.n;
    for (uint i = 0; i < p.n; ++i) {
      removed[base + i] = (thresholded && !(scores[base + i] > floor_score)) ? 1u : 0u;
    }
    uint k = 0;
    for (; k < limit; ++k) {
      uint best = p.n;
      float best_score = 0.0;
      for (uint i = 0; i < p.n; ++i) {
        if (removed[base + i] != 0u) continue;
        const float s = scores[base + i];
        if (best == p.n || s > best_score) {
          best = i;
          best_score = s;
        }
      }
      if (best == p.n) break;
      picks[base + k] = best;
      removed[base + best] = 1u;
      for (uint j = 0; j < p.n; ++j) {
        if (removed[base + j] == 0u && overlaps(b, best, j, iou)) removed[base + j] = 1u;
      }
    }
    picked[pair] = k;
  }
  memoryBarrierBuffer();
  barrier();
  if (t != 0u) return;
  uint row = 0;
  for (uint pair = 0; pair < pairs; ++pair) {
    for (uint k = 0; k < picked[pair]; ++k, ++row) {
      const uint at = row * 6;
      y[at] = pair / p.classes;
      y[at + 1] = 0u;
      y[at + 2] = pair % p.classes;
      y[at + 3] = 0u;
      y[at + 4] = picks[pair * p.n + k];
      y[at + 5] = 0u;
    }
  }
  count[0] = row;
  count[1] = 0u;
}
