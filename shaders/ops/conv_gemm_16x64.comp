// SPDX-License-Identifier: Apache-2.0
// Conv implicit GEMM with a 16 x 64 tile, 4 x 4 outputs per thread
// (see conv_gemm.glsl).
#version 450

const uint BM = 16;
const uint BN = 64;
const uint BK = 16;
const uint TM = 4;
const uint TN = 4;

// A literal workgroup size: the compiler sizes its register budget from it.
layout(local_size_x = 64) in;

#include "conv_gemm.glsl"
