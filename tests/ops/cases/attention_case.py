# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# What the ONNX Attention (opset 23) case modules share: a problem's inputs,
# mask and past keys drawn from the module's generator, and the node's input
# and output names and attributes. flash_attention_cases.py and
# attention_pick_cases.py build their cases from it; each keeps its own
# generator, so its cases do not change when the other gains some.
import numpy as np

MASKS = ("none", "pad_float", "pad_bool", "causal", "causal_pad_bool", "float_st")


def rand(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


def padding(rng, b, s, t):
    """[B, 1, S, T] True where a key is real: each batch keeps a random prefix
    (>= 1) of its keys. Exporters write [B, 1, 1, T]; onnxruntime 1.30 takes
    only the full query dim, so the rows repeat."""
    keep = rng.integers(1, t + 1, size=(b,))
    pad = np.arange(t)[None, :] < keep[:, None]
    return np.ascontiguousarray(np.broadcast_to(pad[:, None, None, :], (b, 1, s, t)))


def attention_problem(rng, b, hq, hkv, s, t, e, mask, three_d, past=0, scale=None):
    """Q, K, V (3-D [B, S, H * E] or 4-D [B, H, S, E]), the mask `mask` names
    (one of MASKS), past keys and values when `past`: returns the inputs by
    name, the node's input and output names, and its attributes."""
    if three_d:
        inputs = {"Q": rand(rng, b, s, hq * e), "K": rand(rng, b, t, hkv * e), "V": rand(rng, b, t, hkv * e)}
        attrs = {"q_num_heads": hq, "kv_num_heads": hkv}
    else:
        inputs = {"Q": rand(rng, b, hq, s, e), "K": rand(rng, b, hkv, t, e), "V": rand(rng, b, hkv, t, e)}
        attrs = {}
    if mask.startswith("causal"):
        attrs["is_causal"] = 1
    if scale is not None:
        attrs["scale"] = scale
    names = ["Q", "K", "V"]
    total = past + t
    if mask in ("pad_bool", "causal_pad_bool"):
        inputs["M"] = padding(rng, b, s, total)
    elif mask == "pad_float":
        inputs["M"] = np.where(padding(rng, b, s, total), 0.0, -1e9).astype(np.float32)
    elif mask == "float_st":
        inputs["M"] = (rng.uniform(-2, 0, size=(s, total)) * (rng.random((s, total)) < 0.5)).astype(np.float32)
    if "M" in inputs:
        names.append("M")
    outputs = ["Y"]
    if past:
        names += [""] * (4 - len(names)) + ["pk", "pv"]
        inputs["pk"] = rand(rng, b, hkv, past, e)
        inputs["pv"] = rand(rng, b, hkv, past, e)
        outputs += ["present_key", "present_value"]
    return inputs, names, outputs, attrs
