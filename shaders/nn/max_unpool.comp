// SPDX-License-Identifier: Apache-2.0
// MaxUnpool's scatter (fp32 values, int64 indices as (lo, hi) words): one
// invocation per input element writes Y[I[i]] = X[i]; the kernel fills Y
// with zeros first. I holds flat indices into the whole of Y (batch and
// channel included), as MaxPool's Indices output. An index outside Y
// (negative, or >= total) writes nothing: a shader cannot report it, and
// the contract (indices from a MaxPool of matching geometry) excludes it.
// Equal indices race, as in every implementation (ONNX leaves it undefined).
// Element index as in op_util.h GroupsFor.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(binding = 0) readonly buffer XBuf { float x[]; };
layout(binding = 1) readonly buffer IBuf { uvec2 indices[]; };
layout(binding = 2) buffer YBuf { float y[]; };

layout(push_constant) uniform Params {
  uint n;      // input elements
  uint total;  // output elements
} p;

void main() {
  const uint i =
      gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i >= p.n) return;
  const uvec2 at = indices[i];
  if (at.y != 0u || at.x >= p.total) return;
  y[at.x] = x[i];
}
