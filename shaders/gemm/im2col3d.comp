// SPDX-License-Identifier: Apache-2.0
// The im2col matrix of a 3-D convolution, or of a slab of it, written out
// (runtime/ops/nn/conv3d.h) for the GEMM engine to read as a plain pointwise
// operand. For the images [image0, image0 + images) and the output depth
// slices [z0, z0 + chunk_pixels / out_hw) of NCDHW X:
//   M[image][k][pixel] = X[image0 + image][ci][oz * SD + kz * DD - pad_front]
//                         [oy * SH + ky * DH - pad_top][ox * SW + kx * DW - pad_left]
// with k = ((ci * KD + kz) * KH + ky) * KW + kx, pixel = (oz - z0, oy, ox) and
// 0 where the window leaves X. Bits are moved, never converted (ELEM_BYTES 2
// or 4; 2 needs 16-bit storage buffers, as every fp16 GEMM does); each
// invocation writes one 32-bit word of M (two fp16 elements), so neighbours
// never share a word. Divisions by sizes known only at run time are
// multiplications by host-computed reciprocals (FastDiv).
#version 450
#extension GL_EXT_shader_16bit_storage : require

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint ELEM_BYTES = 2;
layout(constant_id = 4) const uint KD = 3;
layout(constant_id = 5) const uint KH = 3;
layout(constant_id = 6) const uint KW = 3;
layout(constant_id = 7) const uint SD = 1;
layout(constant_id = 8) const uint SH = 1;
layout(constant_id = 9) const uint SW = 1;
layout(constant_id = 10) const uint DD = 1;
layout(constant_id = 11) const uint DH = 1;
layout(constant_id = 12) const uint DW = 1;

layout(binding = 0) readonly buffer X { uint x[]; };
// fp16 elements one by one: a 32-bit read of X's last element would cross
// the end of its binding when X has an odd count of them.
layout(binding = 0) readonly buffer X16 { uint16_t x16[]; };
layout(binding = 1) writeonly buffer M { uint m[]; };

layout(push_constant) uniform Params {
  uint words;     // 32-bit words of M written
  uint elements;  // elements of M
  uint c_in;
  uint in_d;
  uint in_h;
  uint in_w;
  uint out_w;
  uint out_hw;
  uint chunk_pixels;  // pixels per image in M: whole output slices
  uint z0;            // the chunk's first output slice
  uint image0;        // the chunk's first image
  int pad_front;
  int pad_top;
  int pad_left;
  // (magic, shift) of chunk_pixels, c_in * KD * KH * KW, out_hw and out_w
  // for FastDiv (plain uints: a uvec2 would be aligned to 8 bytes).
  uint pixels_magic, pixels_shift;
  uint k_total_magic, k_total_shift;
  uint out_hw_magic, out_hw_shift;
  uint out_w_magic, out_w_shift;
} p;

// n / d for n < 2^31, given d's (magic, shift) from the host
// (runtime/kernels/im2col_copy.cc's DivisionMagic); magic 0 stands for d == 1.
uint FastDiv(uint n, uint magic, uint shift) {
  if (magic == 0u) return n;
  uint hi, lo;
  umulExtended(n, magic, hi, lo);
  return hi >> shift;
}

// Element `e` of M (row-major [image][k][pixel]) as bits; 0 past the end.
uint Element(uint e) {
  if (e >= p.elements) return 0u;
  const uint row = FastDiv(e, p.pixels_magic, p.pixels_shift);
  const uint pixel = e - row * p.chunk_pixels;
  const uint taps = KD * KH * KW;
  const uint k_total = p.c_in * taps;
  const uint image = FastDiv(row, p.k_total_magic, p.k_total_shift);
  const uint k = row - image * k_total;
  const uint ci = k / taps;
  uint tap = k - ci * taps;
  const uint kz = tap / (KH * KW);
  tap -= kz * (KH * KW);
  const uint ky = tap / KW;
  const uint kx = tap - ky * KW;
  const uint slice = FastDiv(pixel, p.out_hw_magic, p.out_hw_shift);
  const uint plane = pixel - slice * p.out_hw;
  const uint oy = FastDiv(plane, p.out_w_magic, p.out_w_shift);
  const uint ox = plane - oy * p.out_w;
  const int iz = int((p.z0 + slice) * SD + kz * DD) - p.pad_front;
  const int iy = int(oy * SH + ky * DH) - p.pad_top;
  const int ix = int(ox * SW + kx * DW) - p.pad_left;
  if (iz < 0 || iy < 0 || ix < 0 || iz >= int(p.in_d) || iy >= int(p.in_h) ||
      ix >= int(p.in_w)) {
    return 0u;
  }
  const uint src =
      (((p.image0 + image) * p.c_in + ci) * p.in_d + uint(iz)) * p.in_h * p.in_w +
      uint(iy) * p.in_w + uint(ix);
  if (ELEM_BYTES == 4) return x[src];
  return uint(x16[src]);
}

void main() {
  const uint w =
      gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * gl_WorkGroupSize.x);
  if (w >= p.words) return;
  if (ELEM_BYTES == 4) {
    m[w] = Element(w);
  } else {
    m[w] = Element(2u * w) | (Element(2u * w + 1u) << 16u);
  }
}
