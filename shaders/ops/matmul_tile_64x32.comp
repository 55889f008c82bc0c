// SPDX-License-Identifier: Apache-2.0
// Gemm/MatMul tiled SGEMM with a 64 x 32 block, BK 16, 4 x 4 outputs per
// thread (see matmul_tile.glsl).
#version 450

const uint BM = 64;
const uint BN = 32;
const uint BK = 16;
const uint TM = 4;
const uint TN = 4;

// A literal workgroup size: the compiler sizes its register budget from it.
layout(local_size_x = 128) in;

#include "matmul_tile.glsl"
