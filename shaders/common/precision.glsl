// SPDX-License-Identifier: Apache-2.0
// The precision switches of the shader variants, one spelling each
// (shaders/CMakeLists.txt passes them as -D<SWITCH>=1; docs/shaders.md):
//   VKSERVE_F16  the "_f16" variants: the tensors are stored in fp16 (models
//                in float16, FP16 precision's activations); the arithmetic
//                stays fp32 unless the kernel says otherwise.
//   VKSERVE_B16  the GEMM's "_b16" variants: fp32 tensors, but operand B
//                alone stored in fp16 (FP16 precision's weights).
// Each is 0 unless defined, so a shader tests it with #if.
#ifndef VKSERVE_PRECISION_GLSL_
#define VKSERVE_PRECISION_GLSL_

#ifndef VKSERVE_F16
#define VKSERVE_F16 0
#endif
#ifndef VKSERVE_B16
#define VKSERVE_B16 0
#endif

#endif  // VKSERVE_PRECISION_GLSL_
