// SPDX-License-Identifier: Apache-2.0
// RoiAlign of fp32 X [N, C, H, W] over rois [R, 4] (x1, y1, x2, y2) with
// int64 batch_indices [R]: output [R, C, out_h, out_w], each bin the mean
// (MAX: the largest) of grid_h x grid_w bilinear samples, as ONNX Runtime
// computes them (samples outside [-1, H] x [-1, W] count as 0). One
// invocation per output element. Index as in op_util.h GroupsFor.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const bool MAX = false;

layout(binding = 0) readonly buffer X { float x[]; };
layout(binding = 1) readonly buffer Rois { float rois[]; };
layout(binding = 2) readonly buffer Batch { uint batch[]; };  // int64 as (lo, hi)
layout(binding = 3) writeonly buffer Y { float y[]; };

layout(push_constant) uniform Params {
  uint total;
  uint n, c, h, w;
  uint out_h, out_w;
  uint sampling_ratio;  // 0: adaptive
  float spatial_scale;
  float offset;         // 0.5 for half_pixel, else 0
  uint clamp_size;      // output_half_pixel: rois at least 1 x 1
} p;

// The bilinear sample at (yy, xx) of plane `base`, weighted as ORT does.
float sample_at(uint base, float yy, float xx) {
  if (yy < -1.0 || yy > float(p.h) || xx < -1.0 || xx > float(p.w)) return 0.0;
  yy = max(yy, 0.0);
  xx = max(xx, 0.0);
  uint y0 = uint(yy), x0 = uint(xx), y1, x1;
  if (y0 >= p.h - 1) { y0 = y1 = p.h - 1; yy = float(y0); } else { y1 = y0 + 1; }
  if (x0 >= p.w - 1) { x0 = x1 = p.w - 1; xx = float(x0); } else { x1 = x0 + 1; }
  const float ly = yy - float(y0), lx = xx - float(x0), hy = 1.0 - ly, hx = 1.0 - lx;
  const float a = hy * hx * x[base + y0 * p.w + x0], b = hy * lx * x[base + y0 * p.w + x1];
  const float c = ly * hx * x[base + y1 * p.w + x0], d = ly * lx * x[base + y1 * p.w + x1];
  return MAX ? max(max(a, b), max(c, d)) : a + b + c + d;
}

void main() {
  const uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i >= p.total) return;
  const uint pw = i % p.out_w, ph = (i / p.out_w) % p.out_h;
  const uint ch = (i / (p.out_w * p.out_h)) % p.c, r = i / (p.out_w * p.out_h * p.c);
  const uint b = min(batch[2 * r], p.n - 1);
  const float sw = rois[4 * r] * p.spatial_scale - p.offset, sh = rois[4 * r + 1] * p.spatial_scale - p.offset;
  float rw = rois[4 * r + 2] * p.spatial_scale - p.offset - sw;
  float rh = rois[4 * r + 3] * p.spatial_scale - p.offset - sh;
  if (p.clamp_size != 0u) {
    rw = max(rw, 1.0);
    rh = max(rh, 1.0);
  }
  const float bin_h = rh / float(p.out_h), bin_w = rw / float(p.out_w);
  const uint gh = p.sampling_ratio > 0u ? p.sampling_ratio : uint(ceil(rh / float(p.out_h)));
  const uint gw = p.sampling_ratio > 0u ? p.sampling_ratio : uint(ceil(rw / float(p.out_w)));
  const uint base = (b * p.c + ch) * p.h * p.w;
  float acc = 0.0;
  bool first = true;
  for (uint iy = 0; iy < gh; ++iy) {
    const float yy = sh + float(ph) * bin_h + (float(iy) + 0.5) * bin_h / float(gh);
    for (uint ix = 0; ix < gw; ++ix) {
      const float xx = sw + float(pw) * bin_w + (float(ix) + 0.5) * bin_w / float(gw);
      const float v = sample_at(base, yy, xx);
      if (MAX) {
        acc = first ? v : max(acc, v);
        first = false;
      } else {
        acc += v;
      }
    }
  }
  y[i] = MAX ? acc : acc / float(max(gh * gw, 1u));
}
