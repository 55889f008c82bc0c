# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# The fused attention kernel (runtime/kernels/attention/flash_attention.h) through the ONNX
# Attention op (opset 23), against onnxruntime: head sizes 32, 64, 80 and 128
# at query lengths 1 (against 9 keys, as in decoding), 7, 13 and 127 (odd ones straddle the key tiles and the
# workgroup's rows), each with one of the masks serving models use: none,
# additive float key padding [B, 1, 1, T], bool key padding, causal, causal
# with bool key padding, a float [S, T] mask; 3-D [B, S, H * E] and 4-D
# [B, H, S, E] layouts, grouped-query heads, cross attention (S != T), an
# explicit scale, and past keys with present outputs (the kernel behind the
# copies into present_*). Each node is pinned to the fused kernel;
# attention_pick_cases.py runs both kernels. Sizes keep each case well under a second on
# lavapipe.
import numpy as np
from onnx import TensorProto, helper

from attention_case import MASKS, attention_problem

_RNG = np.random.default_rng(20261124)


def _case(name, make_node, inputs, outputs):
    """The node pinned to the fused kernel (vkserve_attention_kernel: the
    larger cases would take the unfused path, runtime/kernels/attention/attention_choice.h);
    onnxruntime runs it without the pin."""
    elem = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.bool_): TensorProto.BOOL}

    def model(node):
        graph = helper.make_graph(
            [node], "g",
            [helper.make_tensor_value_info(n, elem[a.dtype], list(a.shape)) for n, a in inputs.items()],
            [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in outputs])
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 23)])
        m.ir_version = 8
        return m
    return {"name": name, "model": model(make_node(vkserve_attention_kernel="fused")), "inputs": inputs,
            "reference_model": model(make_node()), "atol": 2e-4, "kernel": "fused"}


def _attention(name, b, hq, hkv, s, t, e, mask, three_d, past=0, scale=None):
    inputs, names, outputs, attrs = attention_problem(_RNG, b, hq, hkv, s, t, e, mask, three_d, past, scale)
    make_node = lambda **pin: helper.make_node("Attention", names, outputs, **attrs, **pin)
    return _case(f"flash_attention_{name}", make_node, inputs, outputs)


def cases():
    n = 0
    for e in (32, 64, 80, 128):
        for s in (1, 7, 13, 127):
            mask = MASKS[n % len(MASKS)]
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
    yield from tiling_cases()
    yield from unfused_cases()


# The tiled kernel's edges: query and key counts that are not multiples of
# its row and key tiles (1, 33, 65, 129), a head size that is not a multiple
# of 4, and grids large enough that the planner takes its 64- and 32-row
# tiles rather than the 8-row ones short problems get (the row tile depends
# on batch * heads * query tiles; on lavapipe's 32 KiB, 64 rows of 64-wide
# heads and 32 of 128-wide ones take the 16-key tiles with 4 column groups). Every online-softmax rescale is
# exercised: 129 keys span several key tiles.
def tiling_cases():
    for name, b, hq, hkv, s, t, e, mask, three_d in (
            ("s33_e32_pad_float_gqa", 2, 4, 2, 33, 33, 32, "pad_float", False),
            ("s65_e64_causal_3d", 2, 2, 2, 65, 65, 64, "causal", True),
            ("s129_e80_pad_bool_gqa", 1, 2, 1, 129, 129, 80, "pad_bool", False),
            ("s65_e128_causal_pad_bool", 2, 2, 2, 65, 65, 128, "causal_pad_bool", False),
            ("s1_t129_e64_pad_float_3d", 3, 4, 2, 1, 129, 64, "pad_float", True),
            ("s129_t33_e128_float_st_3d", 1, 2, 2, 129, 33, 128, "float_st", True),
            ("s33_t65_e6_pad_bool", 2, 2, 2, 33, 65, 6, "pad_bool", False),
            ("grid_br64_e32_causal_pad_bool", 2, 16, 4, 129, 129, 32, "causal_pad_bool", True),
            ("grid_br64_e64_pad_bool", 2, 16, 16, 129, 129, 64, "pad_bool", True),
            ("grid_br16_e64_none", 1, 12, 12, 129, 129, 64, "none", False),
            ("grid_br32_e64_pad_float", 2, 16, 16, 65, 65, 64, "pad_float", False),
            ("grid_br32_e128_causal_gqa", 2, 16, 8, 65, 65, 128, "causal", False),
            ("grid_br32_e80_float_st", 2, 16, 16, 129, 129, 80, "float_st", False)):
        yield _attention(f"tile_{name}", b, hq, hkv, s, t, e, mask, three_d)
    yield _attention("tile_past_causal_s33_gqa", 2, 4, 2, 33, 33, 64, "causal", False, past=40)
    yield _attention("tile_past_causal_pad_bool_s7", 2, 2, 2, 7, 7, 80, "causal_pad_bool", True, past=65)


# The exporters' unfused attention, which runtime/passes/attention_fusion.h rewrites
# into one Attention node: MatMul(Q, Kt) -> Div/Mul scale -> Add mask or
# Where(bool, ., very negative) -> Softmax -> MatMul(., V).
def _unfused(name, q_shape, kv_shape, kt_style, scale_op, mask, mask_shape=None, fused=True):
    rand = lambda *shape: _RNG.standard_normal(shape).astype(np.float32)
    q, k, v = rand(*q_shape), rand(*kv_shape), rand(*kv_shape)
    rank = len(q_shape)
    inits = []
    nodes = []
    if kt_style == "swap":  # K [.., T, E] -> [.., E, T]
        perm = list(range(rank - 2)) + [rank - 1, rank - 2]
        nodes.append(helper.make_node("Transpose", ["K"], ["Kt"], perm=perm))
    else:  # "heads": K [B, T, N, E] -> [B, N, E, T], V [B, T, N, E] -> [B, N, T, E]
        b, t, n, e = kv_shape
        nodes.append(helper.make_node("Transpose", ["K"], ["Kt"], perm=[0, 2, 3, 1]))
        nodes.append(helper.make_node("Transpose", ["V"], ["Vh"], perm=[0, 2, 1, 3]))
    e = q_shape[-1]
    c = np.sqrt(e) if scale_op == "Div" else 1.0 / np.sqrt(e)
    inits.append(helper.make_tensor("c", TensorProto.FLOAT, [], [float(c)]))
    nodes += [helper.make_node("MatMul", ["Q", "Kt"], ["S"]), helper.make_node(scale_op, ["S", "c"], ["Ss"])]
    inputs = {"Q": q, "K": k, "V": v}
    scores = "Ss"
    if mask == "add":
        keep = _RNG.random(mask_shape) < 0.8
        keep[..., 0] = True
        inputs["M"] = np.where(keep, 0.0, -10000.0).astype(np.float32)
        nodes.append(helper.make_node("Add", ["Ss", "M"], ["Sm"]))
        scores = "Sm"
    elif mask == "where_causal":
        s_len, t_len = mask_shape[-2], mask_shape[-1]
        causal = np.tril(np.ones((s_len, t_len), bool)).reshape(mask_shape)
        inits.append(helper.make_tensor("causal", TensorProto.BOOL, list(mask_shape), causal.ravel()))
        inits.append(helper.make_tensor("fill", TensorProto.FLOAT, [], [float(np.finfo(np.float32).min)]))
        nodes.append(helper.make_node("Where", ["causal", "Ss", "fill"], ["Sm"]))
        scores = "Sm"
    nodes += [helper.make_node("Softmax", [scores], ["P"], axis=-1),
              helper.make_node("MatMul", ["P", "Vh" if kt_style == "heads" else "V"], ["Y"])]
    elem = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.bool_): TensorProto.BOOL}
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info(n, elem[a.dtype], list(a.shape)) for n, a in inputs.items()],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    case = {"name": f"flash_attention_unfused_{name}", "model": model, "inputs": inputs, "atol": 2e-4}
    if fused:  # the test checks the loaded graph holds the fused node
        part = {"add": "Add+", "where_causal": "Where+"}.get(mask, "")
        case["fused_op"] = f"MatMul+{scale_op}+{part}Softmax+MatMul=Attention"
    return case


def unfused_cases():
    # BERT (TorchScript exporter): 4-D heads, Div, additive key padding [B, 1, 1, T].
    yield _unfused("bert_div_add", (2, 4, 13, 32), (2, 4, 13, 32), "swap", "Div", "add", (2, 1, 1, 13))
    # GPT-2: causal Where with float32 min, keys transposed from [B, T, N, E].
    yield _unfused("gpt2_where_causal", (2, 3, 7, 64), (2, 7, 3, 64), "heads", "Div", "where_causal",
                   (1, 1, 7, 7))
    # 3-D [B * N, S, E] (one head per batch row), Mul scale, no mask.
    yield _unfused("3d_mul", (6, 127, 80), (6, 127, 80), "swap", "Mul", None)
    # A [S, T] additive mask on 4-D heads, head size 128.
    yield _unfused("mask_st_e128", (1, 2, 9, 128), (1, 2, 9, 128), "swap", "Mul", "add", (9, 9))
    yield from _dynamo_cases()
    yield _fused_matmul_case()
    # Not fused (MatMul broadcasts K and V over the batch): still correct.
    yield _unfused("broadcast_kv", (3, 2, 5, 32), (1, 2, 5, 32), "swap", "Div", None, fused=False)


def _graph_case(name, nodes, inputs, inits, fused_op, opsets=(("", 17),)):
    elem = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.bool_): TensorProto.BOOL}
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info(n, elem[a.dtype], list(a.shape)) for n, a in inputs.items()],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets])
    model.ir_version = 8
    return {"name": f"flash_attention_unfused_{name}", "model": model, "inputs": inputs, "atol": 2e-4,
            "fused_op": fused_op}


def _dynamo_cases():
    """torch.onnx's dynamo SDPA: Q and K' each times sqrt(scale), an additive
    mask made by Where(bool, 0, -inf), and Where(IsNaN(P), 0, P): the first
    batch's mask hides every key from some queries (rows of zeros)."""
    b, n, s, e = 2, 3, 13, 64
    rand = lambda *shape: _RNG.standard_normal(shape).astype(np.float32)
    keep = _RNG.random((b, 1, s, s)) < 0.7
    keep[1, :, :, 0] = True
    keep[0, :, 3, :] = False  # query 3 of batch 0 sees nothing
    inputs = {"Q": rand(b, n, s, e), "K": rand(b, n, s, e), "V": rand(b, n, s, e), "keep": keep}
    root = float(np.sqrt(1.0 / np.sqrt(e)))
    inits = [helper.make_tensor("c", TensorProto.FLOAT, [], [root]),
             helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0]),
             helper.make_tensor("ninf", TensorProto.FLOAT, [], [float("-inf")])]
    nodes = [helper.make_node("Where", ["keep", "zero", "ninf"], ["M"]),
             helper.make_node("Transpose", ["K"], ["Kt"], perm=[0, 1, 3, 2]),
             helper.make_node("Mul", ["Q", "c"], ["Qs"]),
             helper.make_node("Mul", ["Kt", "c"], ["Kts"]),
             helper.make_node("MatMul", ["Qs", "Kts"], ["S"]),
             helper.make_node("Add", ["S", "M"], ["Sm"]),
             helper.make_node("Softmax", ["Sm"], ["P"], axis=-1),
             helper.make_node("IsNaN", ["P"], ["nan"]),
             helper.make_node("Where", ["nan", "zero", "P"], ["Pz"]),
             helper.make_node("MatMul", ["Pz", "V"], ["Y"])]
    yield _graph_case("dynamo_nan_guard", nodes, inputs, inits,
                      "MatMul+Mul+Mul+Add+Softmax+IsNaN+Where+MatMul=Attention")


def _fused_matmul_case():
    """ONNX Runtime's FusedMatMul(Q, K, transB=1, alpha) as the scores."""
    b, n, s, e = 1, 2, 7, 80
    rand = lambda *shape: _RNG.standard_normal(shape).astype(np.float32)
    inputs = {"Q": rand(b, n, s, e), "K": rand(b, n, s, e), "V": rand(b, n, s, e)}
    nodes = [helper.make_node("FusedMatMul", ["Q", "K"], ["S"], domain="com.microsoft", transB=1,
                              alpha=float(1.0 / np.sqrt(e))),
             helper.make_node("Softmax", ["S"], ["P"], axis=-1),
             helper.make_node("MatMul", ["P", "V"], ["Y"])]
    return _graph_case("ort_fused_matmul", nodes, inputs, [], "MatMul+Softmax+MatMul=Attention",
                       opsets=(("", 17), ("com.microsoft", 1)))
