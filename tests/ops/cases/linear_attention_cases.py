# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# LinearAttention (opset 27) against the recurrence in float64 numpy
# (onnxruntime 1.30 loads no opset-27 model; the ONNX suite's 14 cases run
# in runtime_onnx_conformance_test): each update rule, decay per head and
# per key dim, beta per head and shared, grouped and multi-query heads, a
# past state, head sizes the suite does not reach (d_k 64 and 128, d_v 48),
# longer prefills, a decoding step, and present_state omitted.
import numpy as np
from onnx import TensorProto, helper
from onnx_case import make_model

_RNG = np.random.default_rng(20261128)


def _heads(x, heads):
    """[B, T, H * D] -> [B, H, T, D]"""
    b, t, hd = x.shape
    return x.reshape(b, t, heads, hd // heads).transpose(0, 2, 1, 3)


def _reference(inputs, hq, hkv, dk, dv, scale):
    """The spec's recurrence, step by step in float64: y and the state."""
    q, k, v = (_heads(inputs[n].astype(np.float64), h) for n, h in (("q", hq), ("k", hkv), ("v", hkv)))
    b, _, t, _ = q.shape
    state = inputs["past"].astype(np.float64) if "past" in inputs else np.zeros((b, hkv, dk, dv))
    y = np.zeros((b, hq, t, dv))
    group = hq // hkv
    for i in range(t):
        if "decay" in inputs:
            g = inputs["decay"][:, i, :].astype(np.float64).reshape(b, hkv, -1)  # per head or per key dim
            state = state * np.exp(g)[:, :, :, None]
        vi = v[:, :, i, :]
        if "beta" in inputs:
            beta = inputs["beta"][:, i, :].astype(np.float64)[:, :, None]  # [B, Hkv or 1, 1]
            vi = beta * (vi - np.einsum("bhdm,bhd->bhm", state, k[:, :, i, :]))
        state = state + k[:, :, i, :, None] * vi[:, :, None, :]
        for h in range(hq):
            y[:, h, i, :] = scale * np.einsum("bd,bdm->bm", q[:, h, i, :], state[:, h // group])
    return y.transpose(0, 2, 1, 3).reshape(b, t, hq * dv).astype(np.float32), state.astype(np.float32)


def _case(name, b, t, hq, hkv, dk, dv, rule, past=False, decay_per_key=False, beta_shared=False,
          state_out=True, scale=None, atol=1e-4):
    f32 = np.float32
    inputs = {"q": (_RNG.standard_normal((b, t, hq * dk)) * 0.3).astype(f32),
              "k": (_RNG.standard_normal((b, t, hkv * dk)) / np.sqrt(dk)).astype(f32),
              "v": _RNG.standard_normal((b, t, hkv * dv)).astype(f32)}
    names = ["q", "k", "v", "", "", ""]
    if past:
        inputs["past"] = (_RNG.standard_normal((b, hkv, dk, dv)) * 0.1).astype(f32)
        names[3] = "past"
    if rule in ("gated", "gated_delta"):
        # log-decays in (-0.5, 0): exp() in (0.6, 1)
        inputs["decay"] = -_RNG.uniform(0, 0.5, size=(b, t, hkv * dk if decay_per_key else hkv)).astype(f32)
        names[4] = "decay"
    if rule in ("delta", "gated_delta"):
        inputs["beta"] = _RNG.uniform(0, 1, size=(b, t, 1 if beta_shared else hkv)).astype(f32)
        names[5] = "beta"
    while names[-1] == "":
        names.pop()
    attrs = {"q_num_heads": hq, "kv_num_heads": hkv, "update_rule": rule}
    if scale is not None:
        attrs["scale"] = scale
    outputs = ["y", "state"] if state_out else ["y"]
    node = helper.make_node("LinearAttention", names, outputs, **attrs)
    expected = _reference(inputs, hq, hkv, dk, dv, scale if scale is not None else 1 / np.sqrt(dk))
    return {"name": f"linear_attention_{name}",
            "model": make_model([node], inputs, [(o, TensorProto.FLOAT) for o in outputs], 27),
            "inputs": inputs, "atol": atol, "expected": list(expected[:len(outputs)])}


def cases():
    yield _case("linear", 2, 5, 4, 4, 16, 16, "linear")
    yield _case("gated_head", 1, 7, 2, 2, 32, 24, "gated")
    yield _case("gated_key", 2, 6, 4, 2, 16, 8, "gated", decay_per_key=True)
    yield _case("delta", 2, 9, 3, 3, 8, 8, "delta", past=True)
    yield _case("gated_delta_64", 1, 17, 4, 4, 64, 64, "gated_delta", decay_per_key=True)
    yield _case("gated_delta_gqa_128", 1, 5, 8, 2, 128, 48, "gated_delta", beta_shared=True, scale=0.05)
    yield _case("decode_step", 3, 1, 4, 1, 32, 32, "gated_delta", past=True)
    yield _case("no_state_out", 2, 4, 2, 2, 8, 12, "gated_delta", state_out=False)
