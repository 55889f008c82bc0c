// SPDX-License-Identifier: Apache-2.0
// The GEMM engine's one epilogue, applied where a product element is stored
// (or, with split-K, by gemm_reduce once the partial sums are added up):
//
//   v = alpha * sum;  v += beta * C;  [v += residual];  v = activation(v);
//   [v += residual]
//
// C broadcasts through its strides (a bias is C with c_stride_n = 0 or 1);
// the residual has Y's layout. Stores convert to Y's type (the VKSERVE_F16
// variants' cast); split-K partial sums stay fp32. Needs gemm_interface.glsl.
#ifndef VKSERVE_GEMM_EPILOGUE_GLSL_
#define VKSERVE_GEMM_EPILOGUE_GLSL_

float c_at(uint z, uint row, uint col) {
  return float(c[z * p.c_batch + row * p.c_stride_m + col * p.c_stride_n]);
}

float finish(float v, uint z, uint row, uint col, uint idx) {
  v *= p.alpha;
  if (HAS_C) v += p.beta * c_at(z, row, col);
  if (RESIDUAL == 1u) v += float(res[idx]);
  v = apply_activation(ACTIVATION, v, p.act_alpha, p.act_beta);
  if (RESIDUAL == 2u) v += float(res[idx]);
  return v;
}

// Four consecutive columns; idx is 16-byte aligned (VEC_OUT).
vec4 finish4(vec4 v, uint z, uint row, uint col, uint idx) {
  v *= p.alpha;
  if (HAS_C) {
    v += p.beta * vec4(c_at(z, row, col), c_at(z, row, col + 1u), c_at(z, row, col + 2u),
                       c_at(z, row, col + 3u));
  }
  if (RESIDUAL == 1u) v += vec4(res4[idx / 4u]);
  if (ACTIVATION != ACT_NONE) {
    [[unroll]] for (uint i = 0; i < 4; ++i) {
      v[i] = apply_activation(ACTIVATION, v[i], p.act_alpha, p.act_beta);
    }
  }
  if (RESIDUAL == 2u) v += vec4(res4[idx / 4u]);
  return v;
}

// Stores the sum of element (z, row, col): raw into split's slice of the
// dense partial buffer, or finished into Y's view.
void store1(float v, uint z, uint split, uint row, uint col) {
  if (PARTIAL) {
    part[((split * p.batch + z) * p.m + row) * p.n + col] = v;
  } else {
    const uint idx = output_index(z, row, col);
    y[idx] = IO_T(finish(v, z, row, col, idx));
  }
}

// Four consecutive columns (VEC_OUT: n_inner and Y's strides multiples of 4).
void store4(vec4 v, uint z, uint split, uint row, uint col) {
  if (PARTIAL) {
    part4[(((split * p.batch + z) * p.m + row) * p.n + col) / 4u] = v;
  } else {
    const uint idx = output_index(z, row, col);
    y4[idx / 4u] = IO_T4(finish4(v, z, row, col, idx));
  }
}

// The cores' store of their sums, four consecutive columns at a time: the
// sums v of (row, col .. col + 3), those inside the product. VEC_OUT: one
// 128-bit store (n is then a multiple of 4 and so is col: the four are all
// in or all out); else one store per column.
void store_cols4(vec4 v, uint z, uint split, uint row, uint col) {
  if (row >= p.m) return;
  if (VEC_OUT) {
    if (col < p.n) store4(v, z, split, row, col);
  } else {
    [[unroll]] for (uint c = 0; c < 4; ++c) {
      if (col + c < p.n) store1(v[c], z, split, row, col + c);
    }
  }
}

#endif  // VKSERVE_GEMM_EPILOGUE_GLSL_
