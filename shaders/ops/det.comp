// SPDX-License-Identifier: Apache-2.0
// Det (fp32): the determinant of each [n, n] matrix (n <= 16) by Gaussian
// elimination with partial pivoting in registers, one invocation per matrix.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(binding = 0) readonly buffer X { float x[]; };
layout(binding = 1) writeonly buffer Y { float y[]; };

layout(push_constant) uniform Params {
  uint count;
  uint n;
} p;

void main() {
  const uint m = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (m >= p.count) return;
  float a[256];
  const uint n = p.n;
  for (uint k = 0; k < n * n; ++k) a[k] = x[m * n * n + k];
  float det = 1.0;
  for (uint c = 0; c < n; ++c) {
    uint pivot = c;
    for (uint r = c + 1; r < n; ++r) {
      if (abs(a[r * n + c]) > abs(a[pivot * n + c])) pivot = r;
    }
    if (a[pivot * n + c] == 0.0) {
      det = 0.0;
      break;
    }
    if (pivot != c) {
      for (uint k = 0; k < n; ++k) {
        const float t = a[c * n + k];
        a[c * n + k] = a[pivot * n + k];
        a[pivot * n + k] = t;
      }
      det = -det;
    }
    det *= a[c * n + c];
    for (uint r = c + 1; r < n; ++r) {
      const float f = a[r * n + c] / a[c * n + c];
      for (uint k = c; k < n; ++k) a[r * n + k] -= f * a[c * n + k];
    }
  }
  y[m] = det;
}
