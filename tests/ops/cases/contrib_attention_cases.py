# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# ONNX Runtime's com.microsoft attention contrib ops, which vkserve rewrites
# into plain ops (runtime/lowering/contrib/attention.cc, multi_head_attention.cc,
# embed_layer_normalization.cc) plus its AttentionMask op:
#   - Attention: batch 1-3, odd and even sequence lengths (1 included), 1 to
#     12 heads (onnxruntime's CPU kernel crashes without a bias, so every
#     case has one), every mask_index form ORT's CPU kernel
#     runs ([B] lengths, [2B] end/start, [B, T] and [B, S, T] 0/1 masks, the
#     [B, 1] dummy), unidirectional alone and with a mask, qkv_hidden_sizes
#     with a wider V, the scale and mask_filter_value attributes, past state
#     (empty too) and the present output,
#     attention_bias, and symbolic batch / sequence dims.
#   - MultiHeadAttention: self and cross attention (S != L), with and
#     without bias, key_padding_mask [B], [B, L] and [B, S, L],
#     unidirectional, attention_bias, scale.
#   - EmbedLayerNormalization: with and without segments and mask,
#     position_ids [B, S] and [1, S], the mask_index and embedding_sum
#     outputs, epsilon.
#   - Two-layer BERT encoders as ORT's fusions write them (int64 inputs
#     cast to int32, EmbedLayerNormalization's mask_index feeding Attention).
# Sizes stay small so the cases run quickly on lavapipe. Expected outputs come
# from onnxruntime (CPU), which runs these contrib ops.
import numpy as np
from onnx import TensorProto, helper, numpy_helper

_RNG = np.random.default_rng(20260611)
_MS = "com.microsoft"


def _rand(*shape, scale=1.0):
    return (_RNG.uniform(-1.0, 1.0, size=shape) * scale).astype(np.float32)


def _model(nodes, inputs, outputs, inits):
    graph = helper.make_graph(nodes, "contrib_attention", inputs, outputs, initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                    helper.make_opsetid(_MS, 1)])
    model.ir_version = 8
    return model


def _info(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, list(shape))


def _lengths(b, t):
    return _RNG.integers(1, t + 1, size=(b,)).astype(np.int32)


def _raw_mask(*shape):
    m = (_RNG.uniform(size=shape) < 0.7).astype(np.int32)
    m[..., 0] = 1  # every query sees at least one key
    return m


def _mask(form, b, s, t):
    """An int32 mask_index of `form` for batch b, sequence s, total t."""
    if form == "1d":
        return _lengths(b, t)
    if form == "1d_start":
        ends = _RNG.integers(2, t + 1, size=(b,))
        starts = _RNG.integers(0, 2, size=(b,))
        starts = np.minimum(starts, ends - 1)
        return np.concatenate([ends, starts]).astype(np.int32)
    if form == "2d":
        return _raw_mask(b, t)
    if form == "3d":
        return _raw_mask(b, s, t)
    if form == "dummy":
        return np.ones((b, 1), np.int32)
    raise ValueError(form)


def _attention(name, b, s, d_in, heads, qkv=None, bias=True, mask=None, unidirectional=0,
               attention_bias=None, symbolic=False, past=None, present=False, atol=1e-4, **attrs):
    """qkv: (D, D, Dv) hidden sizes (qkv_hidden_sizes when not all equal);
    mask: a _mask form or None; attention_bias: its shape as (b or 1, n or 1);
    past: the past state's length, or None for no past; present: whether the
    present output is read."""
    dq, dk, dv = qkv or (d_in, d_in, d_in)
    x = _rand(b, s, d_in)
    weights = _rand(d_in, dq + dk + dv, scale=1.0 / np.sqrt(d_in))
    inits = [numpy_helper.from_array(weights, "W")]
    node_inputs = ["X", "W", ""]
    if bias:
        inits.append(numpy_helper.from_array(_rand(dq + dk + dv, scale=0.5), "B"))
        node_inputs[2] = "B"
    dims = ["batch", "seq"] if symbolic else [b, s]
    inputs = [_info("X", TensorProto.FLOAT, dims + [d_in])]
    feeds = {"X": x}
    total = s + (past or 0)
    if mask is not None:
        m = _mask(mask, b, s, total)
        inputs.append(_info("M", TensorProto.INT32, m.shape))
        feeds["M"] = m
        node_inputs.append("M")
    if past is not None:
        state = _rand(2, b, heads, past, dq // heads)
        node_inputs += [""] * (4 - len(node_inputs)) + ["P"]
        inputs.append(_info("P", TensorProto.FLOAT, state.shape))
        feeds["P"] = state
    if attention_bias is not None:
        ab = _rand(attention_bias[0], attention_bias[1], s, total, scale=2.0)
        node_inputs += [""] * (5 - len(node_inputs)) + ["AB"]
        inputs.append(_info("AB", TensorProto.FLOAT, ab.shape))
        feeds["AB"] = ab
    if qkv is not None and len({dq, dk, dv}) > 1:
        attrs["qkv_hidden_sizes"] = [dq, dk, dv]
    if unidirectional:
        attrs["unidirectional"] = 1
    outputs = [_info("Y", TensorProto.FLOAT, dims + [dv])]
    if present:
        outputs.append(_info("PR", TensorProto.FLOAT, [2, b, heads, total, dq // heads]))
    node = helper.make_node("Attention", node_inputs, [o.name for o in outputs], domain=_MS,
                            num_heads=heads, **attrs)
    model = _model([node], inputs, outputs, inits)
    return {"name": name, "model": model, "inputs": feeds, "atol": atol}


def _mha(name, b, s, l, d, heads, dv=None, bias=True, mask=None, unidirectional=0,
         attention_bias=None, **attrs):
    dv = dv or d
    feeds = {"Q": _rand(b, s, d), "K": _rand(b, l, d), "V": _rand(b, l, dv)}
    inputs = [_info(n, TensorProto.FLOAT, a.shape) for n, a in feeds.items()]
    node_inputs = ["Q", "K", "V", ""]
    inits = []
    if bias:
        inits.append(numpy_helper.from_array(_rand(2 * d + dv, scale=0.5), "B"))
        node_inputs[3] = "B"
    if mask is not None:
        m = _mask(mask, b, s, l)
        feeds["M"] = m
        inputs.append(_info("M", TensorProto.INT32, m.shape))
        node_inputs.append("M")
    if attention_bias is not None:
        ab = _rand(attention_bias[0], attention_bias[1], s, l, scale=2.0)
        node_inputs += [""] * (5 - len(node_inputs)) + ["AB"]
        feeds["AB"] = ab
        inputs.append(_info("AB", TensorProto.FLOAT, ab.shape))
    if unidirectional:
        attrs["unidirectional"] = 1
    node = helper.make_node("MultiHeadAttention", node_inputs, ["Y"], domain=_MS, num_heads=heads, **attrs)
    model = _model([node], inputs, [_info("Y", TensorProto.FLOAT, [b, s, dv])], inits)
    return {"name": name, "model": model, "inputs": feeds}


def _embed(name, b, s, hidden, segments=True, mask=True, position_ids=None, outputs=("Y", "MI"),
           vocab=50, positions=24, **attrs):
    """position_ids: None, "full" ([B, S]) or "shared" ([1, S]); outputs:
    the node's outputs, "" where omitted."""
    feeds = {"ids": _RNG.integers(0, vocab, size=(b, s)).astype(np.int32)}
    inits = [numpy_helper.from_array(_rand(vocab, hidden), "word"),
             numpy_helper.from_array(_rand(positions, hidden), "pos"),
             numpy_helper.from_array(_rand(hidden, scale=0.5) + 1.0, "gamma"),
             numpy_helper.from_array(_rand(hidden, scale=0.5), "beta")]
    node_inputs = ["ids", "", "word", "pos", "", "gamma", "beta"]
    if segments:
        feeds["seg"] = _RNG.integers(0, 2, size=(b, s)).astype(np.int32)
        inits.append(numpy_helper.from_array(_rand(2, hidden), "seg_table"))
        node_inputs[1] = "seg"
        node_inputs[4] = "seg_table"
    if mask:
        m = np.zeros((b, s), np.int32)
        for row, n in enumerate(_lengths(b, s)):
            m[row, :n] = 1
        if s > 2:
            m[0, 1] = 2  # ORT counts entries equal to 1 only
        feeds["mask"] = m
    node_inputs.append("mask" if mask else "")
    if position_ids is not None:
        rows = b if position_ids == "full" else 1
        feeds["pids"] = _RNG.integers(0, positions, size=(rows, s)).astype(np.int32)
        node_inputs.append("pids")
    inputs = [_info(n, TensorProto.INT32, a.shape) for n, a in feeds.items()]
    node = helper.make_node("EmbedLayerNormalization", node_inputs, list(outputs), domain=_MS, **attrs)
    types = {"Y": (TensorProto.FLOAT, [b, s, hidden]), "MI": (TensorProto.INT32, [b]),
             "SUM": (TensorProto.FLOAT, [b, s, hidden])}
    graph_outputs = [_info(o, *types[o]) for o in outputs if o]
    model = _model([node], inputs, graph_outputs, inits)
    return {"name": name, "model": model, "inputs": feeds, "atol": 1e-4}


def _bert_block(name, b, s, hidden, heads, layers=2, vocab=40, positions=32):
    """What ORT's fusions make of a BERT encoder: int64 inputs cast to int32,
    EmbedLayerNormalization whose mask_index feeds every Attention, then per
    layer the output projection, residual Add and LayerNormalization."""
    feeds = {"input_ids": _RNG.integers(0, vocab, size=(b, s)).astype(np.int64),
             "token_type_ids": _RNG.integers(0, 2, size=(b, s)).astype(np.int64)}
    mask = np.zeros((b, s), np.int64)
    for row, n in enumerate(_lengths(b, s)):
        mask[row, :n] = 1
    feeds["attention_mask"] = mask
    inputs = [_info(n, TensorProto.INT64, ["batch", "seq"]) for n in feeds]
    inits = [numpy_helper.from_array(_rand(vocab, hidden), "word"),
             numpy_helper.from_array(_rand(positions, hidden), "pos"),
             numpy_helper.from_array(_rand(2, hidden), "seg_table"),
             numpy_helper.from_array(_rand(hidden, scale=0.2) + 1.0, "gamma"),
             numpy_helper.from_array(_rand(hidden, scale=0.2), "beta")]
    nodes = [helper.make_node("Cast", [n], [n + "_i32"], to=TensorProto.INT32) for n in feeds]
    nodes.append(helper.make_node(
        "EmbedLayerNormalization",
        ["input_ids_i32", "token_type_ids_i32", "word", "pos", "seg_table", "gamma", "beta",
         "attention_mask_i32"], ["h0", "mask_index"], domain=_MS, epsilon=1e-12))
    for i in range(layers):
        h, out = f"h{i}", f"h{i + 1}"
        inits += [numpy_helper.from_array(_rand(hidden, 3 * hidden, scale=1 / np.sqrt(hidden)), f"qkv_w{i}"),
                  numpy_helper.from_array(_rand(3 * hidden, scale=0.2), f"qkv_b{i}"),
                  numpy_helper.from_array(_rand(hidden, hidden, scale=1 / np.sqrt(hidden)), f"o_w{i}"),
                  numpy_helper.from_array(_rand(hidden, scale=0.2), f"o_b{i}"),
                  numpy_helper.from_array(_rand(hidden, scale=0.2) + 1.0, f"ln_g{i}"),
                  numpy_helper.from_array(_rand(hidden, scale=0.2), f"ln_b{i}")]
        nodes += [
            helper.make_node("Attention", [h, f"qkv_w{i}", f"qkv_b{i}", "mask_index"], [f"att{i}"],
                             domain=_MS, num_heads=heads),
            helper.make_node("MatMul", [f"att{i}", f"o_w{i}"], [f"proj{i}"]),
            helper.make_node("Add", [f"proj{i}", f"o_b{i}"], [f"projb{i}"]),
            helper.make_node("Add", [f"projb{i}", h], [f"res{i}"]),
            helper.make_node("LayerNormalization", [f"res{i}", f"ln_g{i}", f"ln_b{i}"], [out],
                             axis=-1, epsilon=1e-12)]
    model = _model(nodes, inputs, [_info(f"h{layers}", TensorProto.FLOAT, ["batch", "seq", hidden])], inits)
    return {"name": name, "model": model, "inputs": feeds, "atol": 2e-4}


def _attention_cases():
    # Shapes: batch, sequence (odd, even, one), heads.
    for b, s, d, n in ((1, 1, 16, 2), (2, 7, 32, 4), (3, 16, 24, 3), (1, 33, 64, 4), (2, 5, 8, 1)):
        yield _attention(f"attention_b{b}_s{s}_d{d}_n{n}", b, s, d, n)
    for form in ("1d", "1d_start", "2d", "3d", "dummy"):
        yield _attention(f"attention_mask_{form}", 3, 11, 32, 4, mask=form)
    yield _attention("attention_mask_2d_s1", 2, 1, 16, 2, mask="2d")
    yield _attention("attention_mask_1d_symbolic", 2, 13, 32, 4, mask="1d", symbolic=True)
    yield _attention("attention_unidirectional", 2, 9, 32, 4, unidirectional=1)
    yield _attention("attention_unidirectional_s1", 3, 1, 32, 4, unidirectional=1)
    yield _attention("attention_unidirectional_mask_2d", 2, 10, 32, 2, mask="2d", unidirectional=1)
    yield _attention("attention_unidirectional_mask_1d", 2, 10, 32, 2, mask="1d", unidirectional=1)
    yield _attention("attention_qkv_sizes", 2, 6, 20, 2, qkv=(16, 16, 24), mask="1d")
    yield _attention("attention_scale", 2, 5, 32, 4, mask="2d", scale=0.3)
    yield _attention("attention_mask_filter_value", 2, 7, 32, 4, mask="2d", mask_filter_value=-3.0)
    yield _attention("attention_bias_input", 2, 6, 32, 4, mask="1d", attention_bias=(2, 4))
    yield _attention("attention_bias_broadcast", 2, 6, 32, 4, attention_bias=(1, 1))
    # GPT-2 decoding: past state, present output, causal mask over both
    # (onnxruntime requires the present output whenever past is given).
    yield _attention("attention_past_decode", 2, 1, 32, 4, past=5, present=True, unidirectional=1,
                     mask="2d")
    yield _attention("attention_past_prompt", 2, 4, 32, 4, past=3, present=True, unidirectional=1)
    yield _attention("attention_past_mask_1d", 3, 3, 16, 2, past=4, present=True, mask="1d",
                     unidirectional=1)
    yield _attention("attention_past_bidirectional", 1, 2, 16, 2, past=2, present=True)
    yield _attention("attention_present_only", 2, 5, 32, 4, present=True, unidirectional=1)
    yield _attention("attention_past_empty", 2, 3, 16, 2, past=0, present=True, unidirectional=1)
    # BERT-base's shape on a short sequence: 12 heads of 64.
    yield _attention("attention_bert_base", 2, 17, 768, 12, mask="2d", atol=2e-4)


def _mha_cases():
    yield _mha("mha_self", 2, 7, 7, 32, 4)
    yield _mha("mha_cross", 2, 5, 9, 32, 4)
    yield _mha("mha_cross_nobias", 1, 3, 8, 16, 2, bias=False)
    yield _mha("mha_wide_v", 2, 4, 6, 16, 2, dv=24)
    for form in ("1d", "2d", "3d"):
        yield _mha(f"mha_mask_{form}", 3, 5, 8, 32, 4, mask=form)
    yield _mha("mha_unidirectional", 2, 8, 8, 32, 4, unidirectional=1)
    yield _mha("mha_unidirectional_mask", 2, 8, 8, 32, 4, mask="2d", unidirectional=1)
    yield _mha("mha_attention_bias", 2, 5, 6, 32, 4, attention_bias=(1, 4))
    yield _mha("mha_scale", 2, 5, 6, 32, 4, scale=0.5, mask="1d")


def _embed_cases():
    yield _embed("embed_ln_b2_s7", 2, 7, 32)
    yield _embed("embed_ln_b1_s1", 1, 1, 16)
    yield _embed("embed_ln_b3_s16_sum", 3, 16, 32, outputs=("Y", "MI", "SUM"))
    yield _embed("embed_ln_no_segment", 2, 9, 32, segments=False)
    yield _embed("embed_ln_no_mask", 2, 5, 32, mask=False)
    yield _embed("embed_ln_output_only", 2, 5, 32, outputs=("Y", ""))
    yield _embed("embed_ln_sum_only", 2, 5, 32, outputs=("Y", "", "SUM"))
    yield _embed("embed_ln_position_ids", 2, 6, 32, position_ids="full")
    yield _embed("embed_ln_position_ids_shared", 3, 6, 32, position_ids="shared", segments=False)
    yield _embed("embed_ln_epsilon", 2, 5, 32, epsilon=1e-3)
    yield _embed("embed_ln_bert_width", 2, 11, 768, positions=16, vocab=30)


def cases():
    yield _bert_block("attention_bert_block_b2_s9", 2, 9, 32, 4)
    yield _bert_block("attention_bert_block_b3_s16", 3, 16, 64, 2)
    yield from _attention_cases()
    yield from _mha_cases()
    yield from _embed_cases()
