// SPDX-License-Identifier: Apache-2.0
// NonMaxSuppression at a sync point (runtime/sync_split.h), in passes (the
// PASS specialization constant), each dispatch of runtime/ops/
// non_max_suppression.cc binding the same buffers. For each (batch, class)
// pair of N boxes, the boxes scoring above score_threshold ("valid") are
// ranked by descending score, ties by lower box index (NaN after every
// number), the overlaps among them computed as bit masks in parallel, and a
// greedy pass over the ranked boxes keeps those no kept box overlaps by
// IoU > iou_threshold, up to max_output_boxes_per_class. Picks come out as
// int64 rows [batch, class, box] in (batch, class, pick) order, densely, and
// their number into `count`.
//   0 INIT    per slot: zero the ranks, removed words and per-pair state.
//   1 RANK    per (slot, tile of TILE boxes): count the valid boxes of the
//             tile ranked ahead; add to the slot's rank (atomic).
//   2 ORDER   per slot: a valid box goes to position `rank` of its pair.
//   3 MASK    per (pair, ranked box r, word w): bit k of the word says
//             whether ranked box 32 w + k (after r) overlaps r.
//   4 KEEP    one workgroup per pair, ranked boxes row0 .. row0 + rows - 1
//             (the kernel dispatches it until every box is seen): a kept
//             box ORs its mask row into the removed words.
//   5 OFFSETS one workgroup: each pair's first output row, and the count.
//   6 WRITE   per slot (pair, pick): one output row.
// Every loop runs a bounded number of times (TILE, 32, rows * (2 + words /
// LOCAL), pairs / LOCAL), as llvmpipe (lavapipe) ends an invocation's loops
// after 65,535 iterations; the kernel picks `rows` so. Invocations numbered
// as in op_util.h GroupsFor; workgroups of KEEP likewise.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint PASS = 0;
const uint TILE = 2048;       // RANK: boxes per invocation
const uint MAX_WORDS = 3072;  // KEEP: mask words per row held in shared memory
const uint SCAN = 256;        // OFFSETS: the workgroup size

layout(binding = 0) readonly buffer Boxes { float boxes[]; };     // [B, N, 4]
layout(binding = 1) readonly buffer Scores { float scores[]; };   // [B, C, N]
layout(binding = 2) readonly buffer MaxOut { uint max_out[]; };   // int64 scalar
layout(binding = 3) readonly buffer Iou { float iou_threshold[]; };
layout(binding = 4) readonly buffer ScoreThr { float score_threshold[]; };
layout(binding = 5) buffer Rank { uint rank[]; };                 // [P * N]
layout(binding = 6) buffer Sorted { vec4 sorted[]; };             // [P * N] corners
layout(binding = 7) buffer Order { uint order[]; };               // [P * N] box index
layout(binding = 8) buffer State { uint state[]; };               // [P, 4]: valid, picked, offset
layout(binding = 9) buffer Mask { uint mask[]; };                 // [P * N, words]
layout(binding = 10) buffer Removed { uint removed[]; };          // [P, words]
layout(binding = 11) buffer Picks { uint picks[]; };              // [P * N]
layout(binding = 12) writeonly buffer Y { uint y[]; };            // int64 [rows, 3]
layout(binding = 13) writeonly buffer Count { uint count[]; };

layout(push_constant) uniform Params {
  uint batches;
  uint classes;
  uint n;               // boxes per batch
  uint center_point;    // center_point_box
  uint has_max_out;
  uint has_iou;
  uint has_score;
  uint words;           // ceil(n / 32)
  uint tiles;           // ceil(n / TILE)
  uint row0;            // KEEP: the first ranked box of this dispatch
  uint rows;            // KEEP: ranked boxes per dispatch
} p;

shared uint sh_removed[MAX_WORDS];  // KEEP
shared uint sh_scan[SCAN];          // OFFSETS
shared bool sh_keep;
shared uint sh_picked;

uint Index() {
  return gl_GlobalInvocationID.x +
         gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * gl_WorkGroupSize.x);
}

// Box i of batch b as (y1, x1, y2, x2) with y1 <= y2 and x1 <= x2.
vec4 Corners(uint b, uint i) {
  const uint at = (b * p.n + i) * 4;
  const vec4 v = vec4(boxes[at], boxes[at + 1], boxes[at + 2], boxes[at + 3]);
  if (p.center_point != 0u) {  // (x_center, y_center, width, height)
    return vec4(v.y - v.w / 2, v.x - v.z / 2, v.y + v.w / 2, v.x + v.z / 2);
  }
  return vec4(min(v.x, v.z), min(v.y, v.w), max(v.x, v.z), max(v.y, v.w));
}

bool Overlaps(vec4 a, vec4 c, float threshold) {
  const float area_a = (a.z - a.x) * (a.w - a.y);
  const float area_c = (c.z - c.x) * (c.w - c.y);
  if (area_a <= 0.0 || area_c <= 0.0) return false;
  const float h = max(0.0, min(a.z, c.z) - max(a.x, c.x));
  const float w = max(0.0, min(a.w, c.w) - max(a.y, c.y));
  const float inter = h * w;
  const float uni = area_a + area_c - inter;
  return uni > 0.0 && inter / uni > threshold;
}

bool Valid(float s) {
  return p.has_score == 0u || s > score_threshold[0];
}

// Whether box j (score sj) is ranked ahead of box i (score si).
bool Ahead(float sj, uint j, float si, uint i) {
  const bool nj = isnan(sj), ni = isnan(si);
  if (nj != ni) return ni;
  if (!nj && sj != si) return sj > si;
  return j < i;
}

uint Limit() {
  if (p.has_max_out == 0u) return 0u;
  const uint lo = max_out[0], hi = max_out[1];
  return int(hi) < 0 ? 0u : (hi != 0u ? p.n : min(lo, p.n));
}

void main() {
  const uint pairs = p.batches * p.classes;
  const uint slots = pairs * p.n;
  if (PASS == 0) {
    const uint at = Index();
    if (at < slots) rank[at] = 0u;
    if (at < pairs * p.words) removed[at] = 0u;
    if (at < pairs * 4u) state[at] = 0u;
  } else if (PASS == 1) {
    const uint at = Index();
    if (at >= slots * p.tiles) return;
    const uint slot = at / p.tiles, tile = at % p.tiles;
    const uint base = slot - slot % p.n, i = slot % p.n;
    const float si = scores[slot];
    if (!Valid(si)) return;
    const uint end = min(p.n, (tile + 1u) * TILE);
    uint ahead = 0u;
    for (uint j = tile * TILE; j < end; ++j) {
      const float sj = scores[base + j];
      if (Valid(sj) && Ahead(sj, j, si, i)) ++ahead;
    }
    if (ahead != 0u) atomicAdd(rank[slot], ahead);
    if (tile == 0u) atomicAdd(state[(slot / p.n) * 4u], 1u);
  } else if (PASS == 2) {
    const uint slot = Index();
    if (slot >= slots || !Valid(scores[slot])) return;
    const uint pair = slot / p.n, i = slot % p.n;
    const uint to = pair * p.n + rank[slot];
    order[to] = i;
    sorted[to] = Corners(pair / p.classes, i);
  } else if (PASS == 3) {
    const uint at = Index();
    if (at >= slots * p.words) return;
    const uint slot = at / p.words, w = at % p.words;
    const uint pair = slot / p.n, r = slot % p.n;
    const uint valid = state[pair * 4u];
    if (r >= valid) return;
    const float iou = p.has_iou != 0u ? iou_threshold[0] : 0.0;
    const uint base = pair * p.n;
    const vec4 a = sorted[slot];
    uint bits = 0u;
    const uint first = max(w * 32u, r + 1u), end = min(valid, w * 32u + 32u);
    for (uint j = first; j < end; ++j) {
      if (Overlaps(a, sorted[base + j], iou)) bits |= 1u << (j - w * 32u);
    }
    mask[at] = bits;
  } else if (PASS == 4) {
    const uint pair = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    if (pair >= pairs) return;
    const uint t = gl_LocalInvocationID.x, local = gl_WorkGroupSize.x;
    const uint limit = Limit();
    const uint end = min(p.row0 + p.rows, state[pair * 4u]);
    if (p.row0 >= end || state[pair * 4u + 1u] >= limit) return;
    for (uint w = t; w < p.words; w += local) sh_removed[w] = removed[pair * p.words + w];
    if (t == 0u) sh_picked = state[pair * 4u + 1u];
    memoryBarrierShared();
    barrier();
    for (uint r = p.row0; r < end; ++r) {
      if (t == 0u) {
        sh_keep = (sh_removed[r >> 5] & (1u << (r & 31u))) == 0u;
        if (sh_keep) {
          picks[pair * p.n + sh_picked] = order[pair * p.n + r];
          ++sh_picked;
        }
      }
      memoryBarrierShared();
      barrier();
      const bool full = sh_picked >= limit;
      if (sh_keep && !full) {
        const uint row = (pair * p.n + r) * p.words;
        for (uint w = (r >> 5) + t; w < p.words; w += local) sh_removed[w] |= mask[row + w];
      }
      memoryBarrierShared();
      barrier();
      if (full) break;
    }
    for (uint w = t; w < p.words; w += local) removed[pair * p.words + w] = sh_removed[w];
    if (t == 0u) state[pair * 4u + 1u] = sh_picked;
  } else if (PASS == 5) {
    const uint t = gl_LocalInvocationID.x;
    const uint chunk = (pairs + SCAN - 1u) / SCAN;
    const uint from = min(pairs, t * chunk), to = min(pairs, from + chunk);
    uint sum = 0u;
    for (uint q = from; q < to; ++q) sum += state[q * 4u + 1u];
    sh_scan[t] = sum;
    memoryBarrierShared();
    barrier();
    if (t == 0u) {
      uint total = 0u;
      for (uint u = 0u; u < SCAN; ++u) {
        const uint s = sh_scan[u];
        sh_scan[u] = total;
        total += s;
      }
      count[0] = total;
      count[1] = 0u;
    }
    memoryBarrierShared();
    barrier();
    uint offset = sh_scan[t];
    for (uint q = from; q < to; ++q) {
      state[q * 4u + 2u] = offset;
      offset += state[q * 4u + 1u];
    }
  } else {
    const uint slot = Index();
    if (slot >= slots) return;
    const uint pair = slot / p.n, k = slot % p.n;
    if (k >= state[pair * 4u + 1u]) return;
    const uint at = (state[pair * 4u + 2u] + k) * 6u;
    y[at] = pair / p.classes;
    y[at + 1] = 0u;
    y[at + 2] = pair % p.classes;
    y[at + 3] = 0u;
    y[at + 4] = picks[slot];
    y[at + 5] = 0u;
  }
}
