// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Building blocks shared by the rewrites of ONNX Runtime's attention contrib
// ops (attention.cc, multi_head_attention.cc, embed_layer_normalization.cc in
// this directory): checked attribute reads, host-side column slices of
// weights, and the scaled-dot-product core that both attention ops lower to:
//
//   Q [B,S,N*H] --Reshape/Transpose--> [B,N,S,H] --MatMul--> scores [B,N,S,T]
//   K [B,T,N*H] --Reshape/Transpose--> [B,N,H,T] --'
//   scores (+ attention_bias) --AttentionMask--> --Softmax(-1)--> probs
//   V [B,T,N*Hv] --Reshape/Transpose--> [B,N,T,Hv]; probs x V --> [B,N,S,Hv]
//   --Transpose/Reshape--> output [B,S,N*Hv]
//
// or, where nothing but an attention_bias masks it, one ONNX Attention node
// (AddFused) that runs vkserve's fused attention kernel.
//
// The scale is applied before the core (folded into Q's weights where they
// are initializers), so the core never multiplies the larger score tensor.
#ifndef VKSERVE_RUNTIME_LOWERING_CONTRIB_ATTENTION_UTIL_H_
#define VKSERVE_RUNTIME_LOWERING_CONTRIB_ATTENTION_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/op/rewrite.h"

namespace vkserve {
namespace attention {

// Checked attribute reads: the default when absent, INVALID_ARGUMENT when the
// attribute has another type.
absl::StatusOr<int64_t> IntAttr(const Node& node, const std::string& name, int64_t default_value);
absl::StatusOr<float> FloatAttr(const Node& node, const std::string& name, float default_value);
absl::StatusOr<std::vector<int64_t>> IntsAttr(const Node& node, const std::string& name);

// num_heads: required, positive, and small enough that head counts never
// overflow a shape.
absl::StatusOr<int64_t> NumHeads(const Node& node);

// A 0/1 attribute (unidirectional, do_rotary, ...); INVALID_ARGUMENT otherwise.
absl::StatusOr<bool> BoolAttr(const Node& node, const std::string& name);

// True when something reads `name`: a node of the stored graph or a graph output.
bool IsRead(const Graph& graph, const std::string& name);

// UNIMPLEMENTED naming `what` when input `index` of the node is present.
absl::Status RefuseInput(const RewriteContext& ctx, size_t index, const std::string& what);
// UNIMPLEMENTED naming `what` when output `index` is present and read.
absl::Status RefuseOutput(const RewriteContext& ctx, size_t index, const std::string& what);

// UNIMPLEMENTED when `name`'s declared type (graph input, value_info) has a
// rank other than 3 (packed QKV / KV, heads-first BNSH layouts); OK when the
// rank is not declared, where SplitHeads' check at planning catches it.
absl::Status CheckDeclaredRank3(const RewriteContext& ctx, const std::string& name,
                                const std::string& what);

// A float initializer's elements, checked to be float with `rank` dims and a
// byte size matching its shape.
absl::StatusOr<const HostTensor*> FloatInitializer(const RewriteContext& ctx,
                                                   const std::string& name, size_t rank,
                                                   const std::string& what);

// Columns [begin, end) of the 2-D float tensor `t`, times `scale`.
HostTensor ColumnSlice(const HostTensor& t, int64_t begin, int64_t end, float scale);

// Elements [begin, end) of the 1-D float tensor `t`, times `scale`.
HostTensor RangeSlice(const HostTensor& t, int64_t begin, int64_t end, float scale);

// An int64 initializer holding `values` (Reshape shapes, Slice bounds).
std::string AddInts(RewriteContext& ctx, const std::string& hint,
                    const std::vector<int64_t>& values);
// A one-element float initializer.
std::string AddScalar(RewriteContext& ctx, const std::string& hint, float value);

// Elements [begin, end) of the 1-D value `name` (a bias that is not an
// initializer), by a Slice node; times `scale` by a Mul node unless it is 1.
std::string SliceValue(RewriteContext& ctx, const std::string& name, int64_t begin, int64_t end,
                       float scale, const std::string& hint);

// Shape(x) with opset 15's start and end: a 1-D int64 value, folded at plan time.
std::string Shape(RewriteContext& ctx, const std::string& x, int64_t start, int64_t end,
                  const std::string& hint);

// [B, L, N*H] -> [B, N, L, H] (`perm` {0,2,1,3}) or [B, N, H, L] ({0,2,3,1}).
// Planning fails unless x has 3 dims.
std::string SplitHeads(RewriteContext& ctx, const std::string& x, int64_t num_heads,
                       const std::vector<int64_t>& perm, const std::string& hint);

// A Transpose of `x` by `perm`; returns its output.
std::string Transpose(RewriteContext& ctx, const std::string& x, const std::vector<int64_t>& perm,
                      const std::string& hint);

// A Concat of `parts` along `axis`, into `out` ("" for a new value); returns it.
std::string Concat(RewriteContext& ctx, const std::vector<std::string>& parts, int64_t axis,
                   const std::string& hint, std::string out = "");

struct CoreInputs {
  std::string q;               // [B, N, S, H], already scaled
  std::string k_transposed;    // [B, N, H, T]
  std::string v;               // [B, N, T, Hv]
  std::string mask;            // optional int32 mask in any of AttentionMask's forms
  std::string attention_bias;  // optional, broadcast to [B, N, S, T]
  bool unidirectional = false;
  // The causal mask lets query s see keys up to s + T - S (keys are a past
  // state's followed by the queries' own, as in Attention); else up to s.
  bool past_from_shapes = false;
  float mask_filter_value = -10000.0f;
  std::string output;  // [B, S, N*Hv]
};

// Adds the nodes from the scores to the output (see the file comment).
void AddCore(RewriteContext& ctx, const CoreInputs& in);

// The attention as one ONNX Attention node (opset 23), which runs the fused
// kernel (runtime/kernels/attention/flash_attention.h) where it fits: for Q [B, S, N*H]
// (already scaled), K [B, T, N*H] and V [B, T, N*Hv] not yet split into
// heads, no past state, and no mask but `attention_bias` (the contrib ops'
// int32 mask forms stay with AttentionMask in AddCore). Each of Q, K, V
// passes through a Reshape that fails at planning unless it has 3 dims, as
// SplitHeads does. Returns false, adding nothing, when `in` does not fit.
struct FusedInputs {
  std::string q, k, v;  // 3-D
  int64_t num_heads = 0;
};
bool AddFused(RewriteContext& ctx, const CoreInputs& in, const FusedInputs& fused);

}  // namespace attention
}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_LOWERING_CONTRIB_ATTENTION_UTIL_H_
