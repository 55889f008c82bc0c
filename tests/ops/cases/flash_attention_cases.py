# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# The fused attention kernel (runtime/ops/flash_attention.h) through the ONNX
# Attention op (opset 23), against onnxruntime: head sizes 32, 64, 80 and 128
# at query lengths 1 (against 9 keys, as in decoding), 7, 13 and 127 (odd ones straddle the key tiles and the
# workgroup's rows), each with one of the masks serving models use: none,
# additive float key padding [B, 1, 1, T], bool key padding, causal, causal
# with bool key padding, a float [S, T] mask; 3-D [B, S, H * E] and 4-D
# [B, H, S, E] layouts, grouped-query heads, cross attention (S != T), an
# explicit scale, and past keys with present outputs (the kernel behind the
# copies into present_*). Sizes keep each case well under a second on
# lavapipe.
import numpy as np
from onnx import TensorProto, helper

_RNG = np.random.default_rng(20261124)
_MASKS = ("none", "pad_float", "pad_bool", "causal", "causal_pad_bool", "float_st")


def _case(name, node, inputs, outputs):
    elem = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.bool_): TensorProto.BOOL}
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info(n, elem[a.dtype], list(a.shape)) for n, a in inputs.items()],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in outputs])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 23)])
    model.ir_version = 8
    return {"name": name, "model": model, "inputs": inputs, "atol": 2e-4}


def _padding(b, s, t):
    """[B, 1, S, T] True where a key is real: each batch keeps a random prefix
    (>= 1) of its keys. Exporters write [B, 1, 1, T]; onnxruntime 1.30 takes
    only the full query dim, so the rows repeat."""
    keep = _RNG.integers(1, t + 1, size=(b,))
    pad = np.arange(t)[None, :] < keep[:, None]
    return np.ascontiguousarray(np.broadcast_to(pad[:, None, None, :], (b, 1, s, t)))


def _attention(name, b, hq, hkv, s, t, e, mask, three_d, past=0, scale=None):
    rand = lambda *shape: _RNG.standard_normal(shape).astype(np.float32)
    if three_d:
        q, k, v = rand(b, s, hq * e), rand(b, t, hkv * e), rand(b, t, hkv * e)
        attrs = {"q_num_heads": hq, "kv_num_heads": hkv}
    else:
        q, k, v = rand(b, hq, s, e), rand(b, hkv, t, e), rand(b, hkv, t, e)
        attrs = {}
    if scale is not None:
        attrs["scale"] = scale
    if mask.startswith("causal"):
        attrs["is_causal"] = 1
    inputs = {"Q": q, "K": k, "V": v}
    names = ["Q", "K", "V"]
    total = past + t
    if mask in ("pad_bool", "causal_pad_bool"):
        inputs["M"] = _padding(b, s, total)
    elif mask == "pad_float":
        inputs["M"] = np.where(_padding(b, s, total), 0.0, -1e9).astype(np.float32)
    elif mask == "float_st":
        inputs["M"] = (_RNG.uniform(-2, 0, size=(s, total)) * (_RNG.random((s, total)) < 0.5)).astype(np.float32)
    if "M" in inputs:
        names.append("M")
    outputs = ["Y"]
    if past:
        names += [""] * (4 - len(names)) + ["pk", "pv"]
        inputs["pk"] = rand(b, hkv, past, e)
        inputs["pv"] = rand(b, hkv, past, e)
        outputs += ["present_key", "present_value"]
    node = helper.make_node("Attention", names, outputs, **attrs)
    return _case(f"flash_attention_{name}", node, inputs, outputs)


def cases():
    n = 0
    for e in (32, 64, 80, 128):
        for s in (1, 7, 13, 127):
            mask = _MASKS[n % len(_MASKS)]
            three_d = n % 2 == 1
            hq, hkv = (4, 2) if n % 3 == 0 else (2, 2)
            yield _attention(f"e{e}_s{s}_{mask}_{'3d' if three_d else '4d'}", 2 if s < 127 else 1,
                             hq, hkv, s, s if s > 1 else 9, e, mask, three_d)
            n += 1
    yield _attention("cross_s7_t13_float_st", 2, 3, 3, 7, 13, 64, "float_st", False)
    yield _attention("cross_s13_t127_pad_bool_3d", 2, 2, 1, 13, 127, 32, "pad_bool", True)
    yield _attention("scale_causal", 1, 2, 2, 9, 9, 80, "causal", True, scale=0.05)
    yield _attention("past_causal_present", 2, 2, 2, 5, 5, 64, "causal", False, past=11)
    yield _attention("past_pad_float_present", 1, 4, 2, 1, 1, 128, "pad_float", False, past=30)
