// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// NCHWc: ONNX Runtime's blocked activation layout, which its NchwcTransformer
// (graph optimization level "all") writes into a model as
// com.microsoft.nchwc ops. A blocked tensor keeps a 4-D shape
// [N, Cp, H, W] whose channel count Cp is padded up to a multiple of the
// block size B (MLAS: 16 with AVX-512, 8 with AVX/AVX2 and NEON), while its
// memory is [N, Cp/B, H, W, B]. The padded channels hold zeros (or an
// activation of zero); weights of later convolutions ignore them, and
// ReorderOutput drops them.
//
// vkserve undoes the blocking at load time: every blocked value becomes a
// plain NCHW tensor of the same logical shape [N, Cp, H, W] (padded channels
// kept, so ONNX-domain nodes that ORT left between nchwc ops — Add, Mul,
// Concat on channels, Relu, the Reshape pairs ORT puts around an Add — still
// compute the same), and the blocked convolution weights are laid out back to
// OIHW. Only the weight layouts depend on B, and B is not stored in the
// file: it is inferred from the shapes the transformer's rules leave behind
// (NchwcBlockSize below).
//
// Pure functions over a Graph; thread-safe.
#ifndef VKSERVE_RUNTIME_LOWERING_NCHWC_NCHWC_LAYOUT_H_
#define VKSERVE_RUNTIME_LOWERING_NCHWC_NCHWC_LAYOUT_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "runtime/ir/graph.h"
#include "runtime/op/rewrite.h"

namespace vkserve {

inline constexpr char kNchwcDomain[] = "com.microsoft.nchwc";

// The block size the model's NCHWc ops were written for, from the shapes of
// its nchwc nodes: convolution weights (output channels padded to B; group 1
// convolutions read a plain NCHW input exactly when their input channels are
// fewer than B), ReorderOutput's channel count against its padded input
// (fewer than B padding channels) and ORT's [0, Cp/B, 0, 0, B] reshapes.
// Candidates are MLAS's block sizes, 8 and 16. INVALID_ARGUMENT when none
// fits the shapes. When both do and the weights cannot tell them apart
// either, this host's own block size decides (HostNchwcBlockSize), as it
// would for ONNX Runtime; UNIMPLEMENTED on a host that has none.
absl::StatusOr<int64_t> NchwcBlockSize(const Graph& graph);

// NchwcBlockSize of the graph being rewritten, derived once per rewrite
// pass: it walks the whole graph and may read every weight, so each nchwc
// node must not pay for it again.
absl::StatusOr<int64_t> NchwcBlockSize(RewriteContext& ctx);

// ONNX Runtime's NCHWc block size on this CPU: 16 with AVX-512F, 8 with
// AVX2, 0 when it would not block at all.
int64_t HostNchwcBlockSize();

// Checks that every ONNX-domain node reading a blocked value computes on the
// un-blocked tensor what ORT computed on the blocked one: element-wise nodes
// whose operands are all blocked alike, Concat on the channel axis of blocked
// tensors, and ORT's Reshape to [0, Cp/B, 0, 0, B] feeding only such
// element-wise nodes and a Reshape back to 4-D. UNIMPLEMENTED, naming the
// node, for anything else (a reduction, a broadcast against a plain tensor,
// a Reshape that exposes the blocks).
absl::Status CheckBlockedConsumers(const Graph& graph);

// The padded channel count Cp of the blocked value `name` when the graph
// fixes it (a convolution's padded output channels, carried through pools,
// element-wise nodes and channel Concats), else -1.
int64_t NchwcPaddedChannels(const Graph& graph, const std::string& name);

// How ORT re-laid out a convolution's OIHW weights [M, I, KH, KW] (M padded
// up to Mp, zero filters appended):
//  - kOIHWBo   [Mp/B][I][KH][KW][B]: depthwise convolutions (I == 1,
//    group == Mp) and group-1 convolutions reading plain NCHW (I < B);
//  - kOIHWBiBo [Mp/B][I/B][KH][KW][B(in)][B(out)]: every other convolution.
enum class NchwcFilterLayout { kOIHWBo, kOIHWBiBo };

// The layout of an nchwc Conv's weights of shape `dims` (rank 4) with
// `group`, for block size `block`. INVALID_ARGUMENT when ORT could not have
// written such weights.
absl::StatusOr<NchwcFilterLayout> NchwcFilterLayoutOf(const std::vector<int64_t>& dims,
                                                      int64_t group, int64_t block);

// `blocked` (float32, rank 4, laid out as `layout`) back in OIHW order, same
// shape. REQUIRES: the shape was accepted by NchwcFilterLayoutOf for `block`.
HostTensor UnblockNchwcFilter(const HostTensor& blocked, NchwcFilterLayout layout, int64_t block);

// Checks that `t` is a float32 rank-4 tensor of positive dims whose data size
// matches its shape; `what` names it in the error.
absl::Status CheckNchwcFilter(const HostTensor& t, const std::string& what);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_LOWERING_NCHWC_NCHWC_LAYOUT_H_
