// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ai.onnx.preview FlexAttention (opset 1): softmax(Q Kᵀ · scale) V over 4-D
// [batch, heads, sequence, head size] tensors, key/value heads repeated for
// grouped queries, with two optional hooks given as graphs: score_mod maps
// the [B, Hq, L, S] scores before the softmax and prob_mod the
// probabilities after it. Without hooks it is one ONNX Attention node (the
// fused kernels, grouped heads included). With them it is lowered to plain
// nodes — Q Kᵀ as a MatMul, the scale, score_mod's nodes inlined, Softmax,
// prob_mod's nodes inlined, the MatMul with V — in fp32 (inputs of other
// types are cast, the output cast back to V's type), the scale and the head
// repetition computed from shapes when the model is planned. A hook graph
// must take one tensor and return one, without graphs of its own; values
// it reads from outside are the main graph's. softmax_precision is not
// needed: the softmax is fp32 either way.
#include "absl/strings/str_cat.h"
#include "runtime/lowering/contrib/attention_util.h"
#include "runtime/lowering/rewrite_attributes.h"
#include "runtime/op/rewrite.h"

namespace vkserve {
namespace {

constexpr int64_t kFlexAttentionOpset = 21;  // of the plain nodes added
enum FlexAttentionInput : size_t { kQ, kK, kV };

const Graph* Hook(const Node& node, const char* name) {
  const Attribute* a = node.FindAttribute(name);
  return a != nullptr && a->type == Attribute::Type::kGraph && !a->graphs.empty()
             ? a->graphs[0].get()
             : nullptr;
}

absl::Status CheckHook(const Graph* hook, const char* name) {
  if (hook == nullptr) return absl::OkStatus();
  if (hook->inputs.size() != 1 || hook->outputs.size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(name, " must take one tensor and return one"));
  }
  for (const Node& n : hook->nodes) {
    for (const auto& [attr_name, attr] : n.attributes) {
      if (attr.type == Attribute::Type::kGraph || attr.type == Attribute::Type::kGraphs) {
        return absl::UnimplementedError(
            absl::StrCat(name, "'s node '", n.name.substr(0, 64), "' has a graph of its own"));
      }
    }
  }
  return absl::OkStatus();
}

// Adds `hook`'s nodes reading `x` for its input; returns the name its output
// has in the main graph. Its values and initializers get fresh names.
std::string Inline(RewriteContext& ctx, const Graph& hook, const std::string& x,
                   const std::string& hint) {
  std::map<std::string, std::string> renamed = {{hook.inputs[0].name, x}};
  for (const auto& [name, tensor] : hook.initializers) {
    renamed[name] = ctx.AddInitializer(absl::StrCat(hint, "_", name), tensor);
  }
  auto mapped = [&](const std::string& name) {
    auto it = renamed.find(name);
    return it == renamed.end() ? name : it->second;  // "" (omitted) or the outer scope's
  };
  for (const Node& n : hook.nodes) {
    std::vector<std::string> inputs, outputs;
    for (const std::string& in : n.inputs) inputs.push_back(mapped(in));
    for (const std::string& out : n.outputs) {
      if (!out.empty()) renamed[out] = ctx.NewValueName(absl::StrCat(hint, "_", out));
      outputs.push_back(mapped(out));
    }
    auto import = ctx.graph().opset_imports.find(n.domain);
    const int64_t opset = import != ctx.graph().opset_imports.end() ? import->second : n.opset;
    ctx.AddNode(n.op_type, std::move(inputs), std::move(outputs), opset, n.domain).attributes =
        n.attributes;
  }
  return mapped(hook.outputs[0].name);
}

std::string AddNamed(RewriteContext& ctx, const std::string& op, std::vector<std::string> inputs,
                     const std::string& hint, std::map<std::string, Attribute> attributes = {}) {
  std::string out = ctx.NewValueName(hint);
  ctx.AddNode(op, std::move(inputs), {out}, kFlexAttentionOpset).attributes = std::move(attributes);
  return out;
}

// dims [start, end) of `x`'s shape, as an int64 vector.
std::string Dims(RewriteContext& ctx, const std::string& x, int64_t start, int64_t end,
                 const std::string& hint) {
  return AddNamed(ctx, "Shape", {x}, hint,
                  {{"start", IntAttribute(start)}, {"end", IntAttribute(end)}});
}

// `x` [B, Hkv, S, D] with each head repeated Hq / Hkv times in place:
// [B, Hq, S, D], as np.repeat along axis 1 (Hq read from `q`).
std::string RepeatHeads(RewriteContext& ctx, const std::string& x, const std::string& q,
                        const std::string& hint) {
  const std::string hq = Dims(ctx, q, 1, 2, hint + "_hq");
  const std::string times =
      AddNamed(ctx, "Div", {hq, Dims(ctx, x, 1, 2, hint + "_hkv")}, hint + "_times");
  const std::string ones = attention::AddInts(ctx, hint + "_ones", {1, 1});
  const std::string expand_to = AddNamed(ctx, "Concat", {ones, times, ones}, hint + "_expand_to",
                                         {{"axis", IntAttribute(0)}});
  const std::string x5 =
      AddNamed(ctx, "Unsqueeze", {x, attention::AddInts(ctx, hint + "_axis", {2})}, hint + "_5d");
  const std::string expanded = AddNamed(ctx, "Expand", {x5, expand_to}, hint + "_expanded");
  const std::string to = AddNamed(
      ctx, "Concat", {Dims(ctx, x, 0, 1, hint + "_b"), hq, Dims(ctx, x, 2, 4, hint + "_sd")},
      hint + "_shape", {{"axis", IntAttribute(0)}});
  return AddNamed(ctx, "Reshape", {expanded, to}, hint + "_repeated");
}

std::string ToFloat(RewriteContext& ctx, const std::string& x) {
  const TensorType* t = ctx.declared_type(x);
  if (t != nullptr && t->dtype == DataType::kFloat) return x;
  return AddNamed(ctx, "Cast", {x}, x + "_f32", {{"to", IntAttribute(1)}});
}

class FlexAttentionRewrite : public Rewrite {
 public:
  absl::Status Apply(RewriteContext& ctx) const override {
    const Node& node = ctx.node();
    if (ctx.input(kQ).empty() || ctx.input(kK).empty() || ctx.input(kV).empty() ||
        ctx.output(0).empty()) {
      return absl::InvalidArgumentError("FlexAttention needs Q, K, V and its output");
    }
    for (const FlexAttentionInput i : {kQ, kK, kV}) {
      if (auto shape = ctx.known_shape(ctx.input(i)); shape.has_value() && shape->size() != 4) {
        return absl::InvalidArgumentError("FlexAttention's Q, K and V must be 4-D");
      }
    }
    const Graph* score_mod = Hook(node, "score_mod");
    const Graph* prob_mod = Hook(node, "prob_mod");
    RETURN_IF_ERROR(CheckHook(score_mod, "score_mod"));
    RETURN_IF_ERROR(CheckHook(prob_mod, "prob_mod"));
    const Attribute* scale = node.FindAttribute("scale");
    const TensorType* q_type = ctx.declared_type(ctx.input(kQ));
    const bool exact_type = q_type != nullptr && (q_type->dtype == DataType::kFloat ||
                                                  q_type->dtype == DataType::kFloat16);
    if (score_mod == nullptr && prob_mod == nullptr && exact_type) {
      Node& attention = ctx.AddNode("Attention", {ctx.input(kQ), ctx.input(kK), ctx.input(kV)},
                                    {ctx.output(0)}, 23);
      if (scale != nullptr) attention.attributes["scale"] = *scale;
      return absl::OkStatus();
    }
    const std::string q = ToFloat(ctx, ctx.input(kQ));
    const std::string k = RepeatHeads(ctx, ToFloat(ctx, ctx.input(kK)), q, "k");
    const std::string v = RepeatHeads(ctx, ToFloat(ctx, ctx.input(kV)), q, "v");
    const std::string kt =
        AddNamed(ctx, "Transpose", {k}, "kt", {{"perm", IntsAttribute({0, 1, 3, 2})}});
    std::string factor;
    if (scale != nullptr) {
      factor = attention::AddScalar(ctx, "scale", node.GetFloat("scale", 1.0f));
    } else {  // 1 / sqrt(head size), from Q's shape
      const std::string e = AddNamed(ctx, "Cast", {Dims(ctx, q, 3, 4, "head_size")}, "head_size_f",
                                     {{"to", IntAttribute(1)}});
      factor = AddNamed(ctx, "Reciprocal", {AddNamed(ctx, "Sqrt", {e}, "sqrt_head_size")}, "scale");
    }
    std::string scores =
        AddNamed(ctx, "Mul", {AddNamed(ctx, "MatMul", {q, kt}, "qk"), factor}, "scores");
    if (score_mod != nullptr) scores = Inline(ctx, *score_mod, scores, "score_mod");
    std::string probs = AddNamed(ctx, "Softmax", {scores}, "probs", {{"axis", IntAttribute(-1)}});
    if (prob_mod != nullptr) probs = Inline(ctx, *prob_mod, probs, "prob_mod");
    const TensorType* v_type = ctx.declared_type(ctx.input(kV));
    if (v_type != nullptr && v_type->dtype == DataType::kFloat) {
      ctx.AddNode("MatMul", {probs, v}, {ctx.output(0)}, kFlexAttentionOpset);
    } else {
      ctx.AddNode("CastLike", {AddNamed(ctx, "MatMul", {probs, v}, "y_f32"), ctx.input(kV)},
                  {ctx.output(0)}, kFlexAttentionOpset);
    }
    return absl::OkStatus();
  }
};

}  // namespace

VKSERVE_REGISTER_REWRITE("ai.onnx.preview", "FlexAttention", 1, 1, FlexAttentionRewrite);

}  // namespace vkserve
