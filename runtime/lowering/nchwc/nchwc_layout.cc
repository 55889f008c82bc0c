// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/lowering/nchwc/nchwc_layout.h"

#include <cstring>
#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace vkserve {
namespace {

// MLAS's NCHWc block sizes (platform.cpp: 8 for AVX/AVX2 and NEON, 16 for
// AVX-512F).
constexpr int64_t kBlockSizes[] = {8, 16};

// What the walk knows of a value: whether it is blocked and its padded
// channel count (-1 when not fixed by the graph).
struct ValueFacts {
  bool blocked = false;
  int64_t channels = -1;
};
using Facts = std::map<std::string, ValueFacts>;

bool IsNchwc(const Node& n, const char* op) { return n.domain == kNchwcDomain && n.op_type == op; }

ValueFacts FactsOf(const Facts& facts, const std::string& name) {
  auto it = facts.find(name);
  return it == facts.end() ? ValueFacts{} : it->second;
}

// The weights of an nchwc Conv when they are a well-formed initializer.
const HostTensor* ConvWeights(const Graph& graph, const Node& conv) {
  if (conv.inputs.size() < 2) return nullptr;
  auto it = graph.initializers.find(conv.inputs[1]);
  if (it == graph.initializers.end() || !CheckNchwcFilter(it->second, "W").ok()) return nullptr;
  return &it->second;
}

int64_t DeclaredChannels(const Graph& graph, const std::string& name, bool channels_last) {
  for (const auto* list : {&graph.inputs, &graph.value_info, &graph.outputs}) {
    for (const ValueInfo& v : *list) {
      if (v.name != name || !v.type.has_shape || v.type.shape.size() != 4) continue;
      const Dim& d = v.type.shape[channels_last ? 3 : 1];
      return d.is_fixed() ? d.value : -1;
    }
  }
  return -1;
}

// Checks an nchwc Conv's weights against `block`; its output is blocked
// with the weights' padded output channels.
absl::Status WalkConv(const Graph& graph, const Node& n, int64_t block, const ValueFacts& input,
                      ValueFacts* out) {
  out->blocked = true;
  const HostTensor* w = ConvWeights(graph, n);
  if (w == nullptr) return absl::OkStatus();  // the Conv's rewrite reports it
  out->channels = w->shape[0];
  if (block == 0) return absl::OkStatus();
  ASSIGN_OR_RETURN(NchwcFilterLayout layout,
                   NchwcFilterLayoutOf(w->shape, n.GetInt("group", 1), block));
  // Group-1 convolutions read NCHW exactly when their weights are OIHWBo.
  const bool reads_plain = layout == NchwcFilterLayout::kOIHWBo && n.GetInt("group", 1) == 1;
  if (reads_plain == input.blocked) {
    return absl::InvalidArgumentError(absl::StrCat("nchwc Conv '", n.name, "' with ", w->shape[1],
                                                   " input channels reads a ",
                                                   input.blocked ? "blocked" : "plain", " tensor"));
  }
  if (input.blocked && input.channels > 0 && input.channels != w->shape[1] * n.GetInt("group", 1)) {
    return absl::InvalidArgumentError(absl::StrCat("nchwc Conv '", n.name, "' reads ",
                                                   input.channels, " channels, its weights expect ",
                                                   w->shape[1] * n.GetInt("group", 1)));
  }
  return absl::OkStatus();
}

absl::Status CheckAligned(const Node& n, int64_t channels, int64_t block) {
  if (block != 0 && channels > 0 && channels % block != 0) {
    return absl::InvalidArgumentError(absl::StrCat("nchwc ", n.op_type, " '", n.name, "' reads ",
                                                   channels, " channels, not a multiple of ",
                                                   block));
  }
  return absl::OkStatus();
}

absl::Status WalkReorderOutput(const Node& n, int64_t block, const ValueFacts& input) {
  const int64_t channels = n.GetInt("channels", 0);
  if (block == 0 || input.channels <= 0) return absl::OkStatus();
  RETURN_IF_ERROR(CheckAligned(n, input.channels, block));
  if (channels > input.channels || input.channels - channels >= block) {
    return absl::InvalidArgumentError(absl::StrCat("ReorderOutput '", n.name, "' keeps ", channels,
                                                   " of ", input.channels, " padded channels"));
  }
  return absl::OkStatus();
}

// An ONNX-domain node reading a blocked value: ORT only lets element-wise
// nodes, channel Concats and its own Reshape pairs around an Add do so.
absl::Status WalkPlainNode(const Graph& graph, const Node& n, int64_t block, const Facts& facts,
                           ValueFacts* out) {
  out->blocked = true;
  if (n.op_type == "Reshape" && n.inputs.size() >= 2) {
    auto it = graph.initializers.find(n.inputs[1]);
    if (it == graph.initializers.end() || it->second.dtype != DataType::kInt64 ||
        it->second.shape.size() != 1 || it->second.num_elements() > 5) {
      return absl::OkStatus();
    }
    const std::vector<int64_t> shape = it->second.ToInts();
    // ORT's split to [N, Cp/B, H, W, B] names the block size outright.
    if (shape.size() == 5 && block != 0 && shape[4] != block) {
      return absl::InvalidArgumentError(
          absl::StrCat("Reshape '", n.name, "' splits channels into blocks of ", shape[4]));
    }
    if (shape.size() == 4 && shape[1] > 0) out->channels = shape[1];
    return absl::OkStatus();
  }
  if (n.op_type == "Concat") {
    int64_t sum = 0;
    for (const std::string& in : n.inputs) {
      ValueFacts f = FactsOf(facts, in);
      if (!f.blocked || f.channels <= 0) return absl::OkStatus();
      sum += f.channels;
    }
    out->channels = sum;
    return absl::OkStatus();
  }
  for (const std::string& in : n.inputs) {
    ValueFacts f = FactsOf(facts, in);
    if (f.blocked) {
      out->channels = f.channels;
      break;
    }
  }
  return absl::OkStatus();
}

// Follows blocked values through the graph in node order, recording their
// facts; with `block` != 0 also checks every shape against that block size.
absl::Status Walk(const Graph& graph, int64_t block, Facts* facts) {
  for (const Node& n : graph.nodes) {
    if (n.outputs.empty()) continue;
    const ValueFacts input = n.inputs.empty() ? ValueFacts{} : FactsOf(*facts, n.inputs[0]);
    ValueFacts out;
    if (IsNchwc(n, "Conv")) {
      RETURN_IF_ERROR(WalkConv(graph, n, block, input, &out));
    } else if (IsNchwc(n, "ReorderInput")) {
      out.blocked = true;
      const int64_t c = n.inputs.empty()
                            ? -1
                            : DeclaredChannels(graph, n.inputs[0], n.GetInt("channels_last", 0));
      if (block != 0 && c > 0) out.channels = (c + block - 1) / block * block;
    } else if (IsNchwc(n, "ReorderOutput")) {
      RETURN_IF_ERROR(WalkReorderOutput(n, block, input));
    } else if (n.domain == kNchwcDomain) {  // pools, Upsample: channels unchanged
      RETURN_IF_ERROR(CheckAligned(n, input.channels, block));
      out = {true, input.channels};
    } else {
      bool reads_blocked = false;
      for (const std::string& in : n.inputs) reads_blocked |= FactsOf(*facts, in).blocked;
      if (reads_blocked) RETURN_IF_ERROR(WalkPlainNode(graph, n, block, *facts, &out));
    }
    for (const std::string& o : n.outputs) {
      if (!o.empty()) (*facts)[o] = out;
    }
  }
  return absl::OkStatus();
}

// Whether the last output filter of `w`, read with `layout` and `block`, is
// all zeros: the sign of a convolution whose output channels ORT padded.
bool LastFilterIsZero(const HostTensor& w, NchwcFilterLayout layout, int64_t block) {
  const int64_t out = w.shape[0], in = w.shape[1], k = w.shape[2] * w.shape[3];
  const float* p = reinterpret_cast<const float*>(w.data.data());
  const int64_t ob = (out - 1) / block, bo = (out - 1) % block;
  for (int64_t i = 0; i < in; ++i) {
    for (int64_t t = 0; t < k; ++t) {
      const int64_t s = layout == NchwcFilterLayout::kOIHWBo
                            ? ((ob * in + i) * k + t) * block + bo
                            : ((ob * (in / block) + i / block) * k + t) * block * block +
                                  (i % block) * block + bo;
      if (p[s] != 0.0f) return false;
    }
  }
  return true;
}

// How many nchwc convolutions end in a zero filter when read with `block`.
// Padding filters are whole output channels only with the right block size;
// with the other they scatter over several channels.
int CountZeroPaddedConvs(const Graph& graph, int64_t block) {
  int count = 0;
  for (const Node& n : graph.nodes) {
    if (!IsNchwc(n, "Conv")) continue;
    const HostTensor* w = ConvWeights(graph, n);
    if (w == nullptr) continue;
    auto layout = NchwcFilterLayoutOf(w->shape, n.GetInt("group", 1), block);
    if (layout.ok() && LastFilterIsZero(*w, *layout, block)) ++count;
  }
  return count;
}

// How far apart spatially adjacent taps of the un-blocked filters are,
// relative to their size: about 1 for taps that do not belong together, well
// below 1 for trained filters, which are smooth. Samples the first
// convolutions with spatial kernels (bounded work: it runs per nchwc node).
double FilterRoughness(const Graph& graph, int64_t block) {
  constexpr int64_t kMaxSampled = 1 << 20;
  double diff = 0, norm = 0;
  int64_t sampled = 0;
  for (const Node& n : graph.nodes) {
    if (!IsNchwc(n, "Conv") || sampled >= kMaxSampled) continue;
    const HostTensor* w = ConvWeights(graph, n);
    if (w == nullptr || w->shape[3] < 2) continue;
    auto layout = NchwcFilterLayoutOf(w->shape, n.GetInt("group", 1), block);
    if (!layout.ok()) continue;
    const HostTensor plain = UnblockNchwcFilter(*w, *layout, block);
    const float* p = reinterpret_cast<const float*>(plain.data.data());
    const int64_t kw = w->shape[3];
    const int64_t taps = plain.num_elements();
    for (int64_t i = 0; i + 1 < taps; ++i) {
      if ((i + 1) % kw == 0) continue;  // pairs stay inside one kernel row
      const double a = p[i], b = p[i + 1];
      diff += (a - b) * (a - b);
      norm += a * a + b * b;
    }
    sampled += taps;
  }
  return norm > 0 ? diff / norm : 1.0;
}

// ONNX-domain ops that act element by element, so any consistent
// permutation of their operands' elements (the blocking) commutes with them:
// with all data operands blocked alike, or (unary) with scalar parameters.
bool IsOneOf(const std::string& op, std::initializer_list<const char*> ops) {
  for (const char* o : ops) {
    if (op == o) return true;
  }
  return false;
}
bool IsElementwiseNary(const std::string& op) {
  return IsOneOf(op, {"Add", "Sum", "Mul", "Sub", "Div", "Max", "Min"});
}
// Includes the activations ONNX Runtime's fusions write between nchwc nodes:
// QuickGelu (x * sigmoid(alpha * x), EfficientNet's SiLU) and Gelu.
bool IsElementwiseUnary(const std::string& op) {
  return IsOneOf(op, {"Relu", "Sigmoid", "Tanh", "LeakyRelu", "Clip", "HardSigmoid", "HardSwish",
                      "Identity", "QuickGelu", "Gelu", "Erf"});
}

// How a blocked value is shaped: 4-D [N, Cp, H, W] or ORT's 5-D split.
enum class Blocked { kNo, kNchw, kSplit };

absl::StatusOr<Blocked> ReshapedBlocked(const Graph& graph, const Node& n, Blocked in) {
  auto it = n.inputs.size() == 2 ? graph.initializers.find(n.inputs[1]) : graph.initializers.end();
  const bool ints = it != graph.initializers.end() && it->second.dtype == DataType::kInt64 &&
                    it->second.shape.size() == 1 && it->second.num_elements() <= 5;
  const std::vector<int64_t> shape = ints ? it->second.ToInts() : std::vector<int64_t>{};
  if (in == Blocked::kNchw && shape.size() == 5 && shape[0] == 0 && shape[2] == 0 &&
      shape[3] == 0) {
    return Blocked::kSplit;
  }
  if (in == Blocked::kSplit && shape.size() == 4 && shape[0] == 0 && shape[2] == 0 &&
      shape[3] == 0) {
    return Blocked::kNchw;
  }
  return absl::UnimplementedError(absl::StrCat("Reshape '", n.name,
                                               "' of a tensor in ONNX Runtime's NCHWc ",
                                               "layout depends on that layout"));
}

// What the plain node `n` makes of its operands' layouts `ins`.
absl::StatusOr<Blocked> PlainNodeOutput(const Graph& graph, const Node& n,
                                        const std::vector<Blocked>& ins) {
  bool all_same = !ins.empty(), params_plain = !ins.empty();
  for (Blocked b : ins) all_same &= b == ins[0];
  for (size_t i = 1; i < ins.size(); ++i) params_plain &= ins[i] == Blocked::kNo;
  if (n.op_type == "Reshape" && !ins.empty()) return ReshapedBlocked(graph, n, ins[0]);
  if (all_same && IsElementwiseNary(n.op_type)) return ins[0];
  if (params_plain && IsElementwiseUnary(n.op_type)) return ins[0];
  if (all_same && ins[0] == Blocked::kNchw && n.op_type == "Concat" && n.GetInt("axis", 0) == 1) {
    return Blocked::kNchw;
  }
  return absl::UnimplementedError(absl::StrCat(n.op_type, " '", n.name,
                                               "' reads a tensor in ONNX Runtime's ",
                                               "NCHWc layout in a way vkserve does not un-block"));
}

}  // namespace

absl::Status CheckBlockedConsumers(const Graph& graph) {
  std::map<std::string, Blocked> layout;
  auto of = [&](const std::string& v) {
    auto it = layout.find(v);
    return it == layout.end() ? Blocked::kNo : it->second;
  };
  for (const Node& n : graph.nodes) {
    std::vector<Blocked> ins;
    bool any = false;
    for (const std::string& in : n.inputs) {
      if (in.empty()) continue;
      ins.push_back(of(in));
      any |= ins.back() != Blocked::kNo;
    }
    Blocked out = Blocked::kNo;
    if (n.domain == kNchwcDomain) {
      for (Blocked b : ins) {
        if (b == Blocked::kSplit) {
          return absl::InvalidArgumentError(
              absl::StrCat("nchwc node '", n.name, "' reads a 5-D tensor"));
        }
      }
      out = n.op_type == "ReorderOutput" ? Blocked::kNo : Blocked::kNchw;
    } else if (any) {
      ASSIGN_OR_RETURN(out, PlainNodeOutput(graph, n, ins));
    }
    for (const std::string& o : n.outputs) {
      if (!o.empty()) layout[o] = out;
    }
  }
  for (const ValueInfo& v : graph.outputs) {
    if (of(v.name) != Blocked::kNo) {
      return absl::UnimplementedError(
          absl::StrCat("graph output '", v.name, "' is in the NCHWc layout"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckNchwcFilter(const HostTensor& t, const std::string& what) {
  if (t.dtype != DataType::kFloat || t.shape.size() != 4) {
    return absl::InvalidArgumentError(absl::StrCat(what, " must be a float32 tensor of rank 4"));
  }
  for (int64_t d : t.shape) {
    if (d <= 0) return absl::InvalidArgumentError(absl::StrCat(what, " has a dimension < 1"));
  }
  const int64_t n = t.num_elements();
  if (n == INT64_MAX || static_cast<uint64_t>(n) * 4 != t.data.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " holds ", t.data.size(), " bytes, not ", "what its shape needs"));
  }
  return absl::OkStatus();
}

absl::StatusOr<NchwcFilterLayout> NchwcFilterLayoutOf(const std::vector<int64_t>& dims,
                                                      int64_t group, int64_t block) {
  if (dims.size() != 4 || group < 1)
    return absl::InvalidArgumentError("bad nchwc Conv weights or group");
  const int64_t out = dims[0], in = dims[1];
  if (out % block != 0) {
    return absl::InvalidArgumentError(absl::StrCat("nchwc Conv weights have ", out,
                                                   " output channels, not a multiple of ", block));
  }
  if (group > 1 && in == 1 && out == group) return NchwcFilterLayout::kOIHWBo;  // depthwise
  if (group == 1 && in < block) return NchwcFilterLayout::kOIHWBo;              // reads NCHW
  if (in % block != 0 || out % group != 0 || (out / group) % block != 0) {
    return absl::InvalidArgumentError(absl::StrCat("nchwc Conv weights [", out, ", ", in,
                                                   ", ...] with group ", group,
                                                   " do not split into blocks of ", block));
  }
  return NchwcFilterLayout::kOIHWBiBo;
}

HostTensor UnblockNchwcFilter(const HostTensor& blocked, NchwcFilterLayout layout, int64_t block) {
  const int64_t out = blocked.shape[0], in = blocked.shape[1];
  const int64_t k = blocked.shape[2] * blocked.shape[3];
  std::vector<float> src(static_cast<size_t>(blocked.num_elements()));
  std::memcpy(src.data(), blocked.data.data(), src.size() * sizeof(float));
  std::vector<float> dst(src.size());
  for (int64_t o = 0; o < out; ++o) {
    const int64_t ob = o / block, bo = o % block;
    for (int64_t i = 0; i < in; ++i) {
      for (int64_t t = 0; t < k; ++t) {
        int64_t s;
        if (layout == NchwcFilterLayout::kOIHWBo) {
          s = ((ob * in + i) * k + t) * block + bo;
        } else {
          const int64_t ib = i / block, bi = i % block;
          s = ((ob * (in / block) + ib) * k + t) * block * block + bi * block + bo;
        }
        dst[(o * in + i) * k + t] = src[s];
      }
    }
  }
  return HostTensor::FromFloats(dst, blocked.shape);
}

int64_t NchwcPaddedChannels(const Graph& graph, const std::string& name) {
  Facts facts;
  if (!Walk(graph, 0, &facts).ok()) return -1;
  ValueFacts f = FactsOf(facts, name);
  return f.blocked ? f.channels : -1;
}

absl::StatusOr<int64_t> NchwcBlockSize(const Graph& graph) {
  std::vector<int64_t> fits;
  std::string why;
  for (int64_t block : kBlockSizes) {
    Facts facts;
    absl::Status s = Walk(graph, block, &facts);
    if (s.ok()) {
      fits.push_back(block);
    } else {
      absl::StrAppend(&why, " block size ", block, ": ", s.message(), ";");
    }
  }
  if (fits.size() == 1) return fits[0];
  if (fits.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("no NCHWc block size fits the model's nchwc nodes:", why));
  }
  // Both fit: every padded channel count is a multiple of 16 and no
  // ReorderOutput drops 8 or more channels. The weight layouts still differ:
  // the right block size gives back whole zero padding filters, and smooth
  // filters when the model is trained.
  const int z8 = CountZeroPaddedConvs(graph, 8), z16 = CountZeroPaddedConvs(graph, 16);
  if (z8 > 0 && z16 == 0) return 8;
  if (z16 > 0 && z8 == 0) return 16;
  const double r8 = FilterRoughness(graph, 8), r16 = FilterRoughness(graph, 16);
  constexpr double kDecisive = 0.85;
  if (r8 < kDecisive * r16) return 8;
  if (r16 < kDecisive * r8) return 16;
  // Last, what ONNX Runtime itself would assume on this host: it blocks
  // and reads NCHWc tensors with its own CPU's block size (MLAS: 16 with
  // AVX-512F, 8 with AVX2), so a file it wrote runs correctly under ONNX
  // Runtime only on a host of the same block size.
  if (const int64_t host = HostNchwcBlockSize(); host > 0) return host;
  return absl::UnimplementedError(absl::StrCat(
      "the NCHWc block size of this model (8 or 16) cannot be told from its shapes or weights "
      "(filter roughness ",
      r8, " vs ", r16,
      "); convert it with ONNX Runtime at optimization "
      "level 'extended' instead of 'all'"));
}

absl::StatusOr<int64_t> NchwcBlockSize(RewriteContext& ctx) {
  constexpr char kKey[] = "nchwc_block_size";
  auto& facts = ctx.pass_facts();
  if (auto it = facts.find(kKey); it != facts.end()) return it->second;
  ASSIGN_OR_RETURN(const int64_t block, NchwcBlockSize(ctx.graph()));
  facts[kKey] = block;
  return block;
}

int64_t HostNchwcBlockSize() {
#if defined(__x86_64__) || defined(__i386__)
  if (__builtin_cpu_supports("avx512f")) return 16;
  if (__builtin_cpu_supports("avx2")) return 8;
#endif
  return 0;
}

}  // namespace vkserve
