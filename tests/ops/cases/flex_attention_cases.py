# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# ai.onnx.preview FlexAttention against float64 numpy (onnxruntime 1.30 has
# no kernel for it; the ONNX suite's 11 cases run in
# runtime_onnx_conformance_test): without hooks (the fused Attention path)
# at the sizes of a real head (S 128, E 64) and with grouped heads; with a
# causal score_mod, a soft-capping score_mod, a prob_mod, both hooks, and a
# score_mod that reads a bias from the main graph (outer scope).
import numpy as np
from onnx import TensorProto, helper, numpy_helper

_RNG = np.random.default_rng(20261128)


def _hook(name, x, y, nodes, inits=None):
    return helper.make_graph(
        nodes, name, [helper.make_tensor_value_info(x, TensorProto.FLOAT, None)],
        [helper.make_tensor_value_info(y, TensorProto.FLOAT, None)],
        initializer=[numpy_helper.from_array(np.asarray(v), n) for n, v in (inits or {}).items()])


def _causal(scores):
    s = scores.shape[-1]
    keep = np.arange(scores.shape[-2])[:, None] >= np.arange(s)[None, :]
    return np.where(keep, scores, -np.inf)


def _causal_hook():
    # The mask from the scores' own shape, as exporters write it.
    nodes = [helper.make_node("Shape", ["s"], ["dims"]),
             helper.make_node("Gather", ["dims", "i2"], ["l"]), helper.make_node("Gather", ["dims", "i3"], ["n"]),
             helper.make_node("Range", ["zero", "l", "one"], ["lq"]),
             helper.make_node("Range", ["zero", "n", "one"], ["lk"]),
             helper.make_node("Unsqueeze", ["lq", "ax1"], ["q"]),
             helper.make_node("GreaterOrEqual", ["q", "lk"], ["keep"]),
             helper.make_node("Where", ["keep", "s", "ninf"], ["out"])]
    inits = {"i2": np.array(2, np.int64), "i3": np.array(3, np.int64), "zero": np.array(0, np.int64),
             "one": np.array(1, np.int64), "ax1": np.array([1], np.int64), "ninf": np.array(-np.inf, np.float32)}
    return _hook("causal", "s", "out", nodes, inits), _causal


def _cap_hook(cap):
    nodes = [helper.make_node("Div", ["s", "cap"], ["d"]), helper.make_node("Tanh", ["d"], ["t"]),
             helper.make_node("Mul", ["t", "cap"], ["out"])]
    return _hook("cap", "s", "out", nodes, {"cap": np.array(cap, np.float32)}), lambda s: cap * np.tanh(s / cap)


def _case(name, b, hq, hkv, length, s, e, ev, score=None, prob=None, scale=None, outer_bias=False, atol=1e-4):
    f32 = np.float32
    inputs = {"Q": _RNG.standard_normal((b, hq, length, e)).astype(f32),
              "K": _RNG.standard_normal((b, hkv, s, e)).astype(f32),
              "V": _RNG.standard_normal((b, hkv, s, ev)).astype(f32)}
    attrs = {}
    if scale is not None:
        attrs["scale"] = scale
    score_fn = prob_fn = None
    if outer_bias:
        inputs["bias"] = _RNG.standard_normal((length, s)).astype(f32)
        attrs["score_mod"] = _hook("bias", "s", "out", [helper.make_node("Add", ["s", "bias"], ["out"])])
        score_fn = lambda x: x + inputs["bias"]  # noqa: E731
    elif score is not None:
        attrs["score_mod"], score_fn = score
    if prob is not None:
        attrs["prob_mod"], prob_fn = prob
    node = helper.make_node("FlexAttention", ["Q", "K", "V"], ["Y"], domain="ai.onnx.preview", **attrs)
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(a.shape)) for n, a in inputs.items()],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21),
                                                     helper.make_opsetid("ai.onnx.preview", 1)])
    model.ir_version = 8
    # The reference: float64 throughout.
    q, k, v = (inputs[n].astype(np.float64) for n in "QKV")
    k, v = np.repeat(k, hq // hkv, axis=1), np.repeat(v, hq // hkv, axis=1)
    scores = q @ np.swapaxes(k, -1, -2) * (scale if scale is not None else 1 / np.sqrt(e))
    if score_fn is not None:
        scores = score_fn(scores)
    p = np.exp(scores - scores.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    if prob_fn is not None:
        p = prob_fn(p)
    return {"name": f"flex_attention_{name}", "model": model, "inputs": inputs, "atol": atol,
            "expected": [(p @ v).astype(f32)]}


def cases():
    yield _case("plain_s128_e64", 1, 4, 4, 128, 128, 64, 64)
    yield _case("gqa", 2, 6, 2, 5, 9, 16, 8, scale=0.3)
    yield _case("causal", 1, 2, 2, 7, 7, 8, 8, score=_causal_hook())
    yield _case("causal_gqa", 2, 4, 1, 6, 6, 16, 16, score=_causal_hook())
    yield _case("soft_cap", 1, 2, 2, 5, 11, 8, 12, score=_cap_hook(2.0), scale=1.5)
    sharpen = (_hook("sharpen", "p", "out", [helper.make_node("Mul", ["p", "p"], ["out"])]), lambda p: p * p)
    yield _case("prob_mod", 2, 3, 3, 4, 6, 8, 8, prob=sharpen)
    yield _case("both_hooks", 1, 4, 2, 8, 8, 16, 16, score=_causal_hook(), prob=sharpen)
    yield _case("outer_scope_bias", 1, 2, 2, 6, 10, 8, 8, outer_bias=True)
