# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Attention between the exporters' head-splitting and head-merging
# Transposes (runtime/passes/attention_layout.h), against onnxruntime running the
# unfused graph: projections [B, S, H*E] -> Reshape [B, S, H, E] ->
# Transpose(0, 2, 1, 3) for Q and V (K as Transpose(0, 2, 3, 1), its
# transposed form), the scores scaled, masked and soft-maxed, and the result
# Transpose(0, 2, 1, 3) -> Reshape [B, S, H*E]. After the attention fusion
# the kernel must read and write the 3-D layout itself ("absent_op":
# Transpose), with and without a key-padding mask, cross attention
# (S != T), head sizes 32/64/80, and the dynamo exporter's packed form
# (K' through runtime/passes/transpose_folding.h, the output merged to
# [B*S, H*E]), and BERT's Q/K/V projections of one input (packed into one
# GEMM, runtime/passes/qkv_packing.h; cross attention's are not); a head-merging
# Transpose with a second reader must stay, and the result still match.
import numpy as np
from onnx import TensorProto, helper

_RNG = np.random.default_rng(20261126)


def _ints(name, values):
    return helper.make_tensor(name, TensorProto.INT64, [len(values)], values)


def _case(name, b, s, t, h, e, mask=True, leak_output=False):
    q = _RNG.standard_normal((b, s, h * e)).astype(np.float32)
    k = _RNG.standard_normal((b, t, h * e)).astype(np.float32)
    v = _RNG.standard_normal((b, t, h * e)).astype(np.float32)
    inputs = {"Xq": q, "Xk": k, "Xv": v}
    inits = [_ints("q4", [b, s, h, e]), _ints("kv4", [b, t, h, e]), _ints("y3", [b, s, h * e]),
             helper.make_tensor("scale", TensorProto.FLOAT, [], [float(np.sqrt(e))])]
    nodes = [helper.make_node("Reshape", ["Xq", "q4"], ["q_split"]),
             helper.make_node("Transpose", ["q_split"], ["Q"], perm=[0, 2, 1, 3]),
             helper.make_node("Reshape", ["Xk", "kv4"], ["k_split"]),
             helper.make_node("Transpose", ["k_split"], ["Kt"], perm=[0, 2, 3, 1]),
             helper.make_node("Reshape", ["Xv", "kv4"], ["v_split"]),
             helper.make_node("Transpose", ["v_split"], ["V"], perm=[0, 2, 1, 3])]
    nodes += [helper.make_node("MatMul", ["Q", "Kt"], ["S"]),
              helper.make_node("Div", ["S", "scale"], ["Ss"])]
    scores = "Ss"
    if mask:
        keep = _RNG.integers(1, t + 1, size=(b,))
        pad = (np.arange(t)[None, :] < keep[:, None]).astype(np.float32)
        inputs["mask"] = ((1.0 - pad) * -10000.0).reshape(b, 1, 1, t).astype(np.float32)
        nodes.append(helper.make_node("Add", ["Ss", "mask"], ["Sm"]))
        scores = "Sm"
    nodes += [helper.make_node("Softmax", [scores], ["P"], axis=-1),
              helper.make_node("MatMul", ["P", "V"], ["O"]),
              helper.make_node("Transpose", ["O"], ["O_merge"], perm=[0, 2, 1, 3]),
              helper.make_node("Reshape", ["O_merge", "y3"], ["Y"])]
    outputs = ["Y"] + (["O_merge"] if leak_output else [])
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(a.shape)) for n, a in inputs.items()],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    case = {"name": f"attention_layout_{name}", "model": model, "inputs": inputs, "atol": 2e-4,
            "fused_op": f"MatMul+Div+{'Add+' if mask else ''}Softmax+MatMul=Attention"}
    if not leak_output:
        case["absent_op"] = "Transpose"
    return case


def _dynamo_case(b=2, s=9, h=2, e=32):
    """The dynamo exporter's form (GPT-2): Q, K and V split from one packed
    [B, S, 3*H*E] projection, K' written as Reshape [B*H, S, E] ->
    Transpose(0, 2, 1) -> Reshape [B, H, E, S] (runtime/passes/transpose_folding.h),
    both operands scaled by sqrt(scale), the NaN guard after the softmax, and
    the output merged straight to [B*S, H*E]."""
    qkv = _RNG.standard_normal((b, s, 3 * h * e)).astype(np.float32)
    root = float(np.sqrt(1.0 / np.sqrt(e)))
    inits = [_ints("split4", [b, s, -1, e]), _ints("flat3", [-1, s, e]), _ints("kt4", [b, h, e, s]),
             _ints("y2", [b * s, h * e]),
             helper.make_tensor("c", TensorProto.FLOAT, [], [root]),
             helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0])]
    nodes = [helper.make_node("Split", ["QKV"], ["xq", "xk", "xv"], axis=2, num_outputs=3)]
    for name in ("q", "k", "v"):
        nodes += [helper.make_node("Reshape", [f"x{name}", "split4"], [f"{name}_split"], allowzero=1),
                  helper.make_node("Transpose", [f"{name}_split"], [f"{name}4"], perm=[0, 2, 1, 3])]
    nodes += [helper.make_node("Reshape", ["k4", "flat3"], ["k_flat"]),
              helper.make_node("Transpose", ["k_flat"], ["kt_flat"], perm=[0, 2, 1]),
              helper.make_node("Reshape", ["kt_flat", "kt4"], ["Kt"]),
              helper.make_node("Mul", ["q4", "c"], ["Qs"]),
              helper.make_node("Mul", ["Kt", "c"], ["Kts"]),
              helper.make_node("MatMul", ["Qs", "Kts"], ["S"]),
              helper.make_node("Softmax", ["S"], ["P"], axis=-1),
              helper.make_node("IsNaN", ["P"], ["nan"]),
              helper.make_node("Where", ["nan", "zero", "P"], ["Pz"]),
              helper.make_node("MatMul", ["Pz", "v4"], ["O"]),
              helper.make_node("Transpose", ["O"], ["O_merge"], perm=[0, 2, 1, 3]),
              helper.make_node("Reshape", ["O_merge", "y2"], ["Y"])]
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("QKV", TensorProto.FLOAT, list(qkv.shape))],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    return {"name": "attention_layout_dynamo_packed", "model": model, "inputs": {"QKV": qkv}, "atol": 2e-4,
            "fused_op": "MatMul+Mul+Mul+Softmax+IsNaN+Where+MatMul=Attention(QKV packed)",
            "absent_op": "Transpose"}


def _projection_case(name, bias=True, cross=False, b=2, s=7, h=3, e=32):
    """BERT's self-attention from its input: Q, K, V as X W (+ b) of one X
    (runtime/passes/qkv_packing.h packs the three into one GEMM) or, for cross
    attention, K and V from another X (not packed)."""
    emb = h * e
    x = _RNG.standard_normal((b, s, emb)).astype(np.float32)
    inputs = {"X": x}
    if cross:
        inputs["M"] = _RNG.standard_normal((b, s, emb)).astype(np.float32)
    inits = [_ints("split4", [b, s, h, e]), _ints("y3", [b, s, emb]),
             helper.make_tensor("scale", TensorProto.FLOAT, [], [float(np.sqrt(e))])]
    nodes = []
    for n in ("q", "k", "v"):
        w = (_RNG.standard_normal((emb, emb)) / np.sqrt(emb)).astype(np.float32)
        inits.append(helper.make_tensor(f"W{n}", TensorProto.FLOAT, [emb, emb], w.ravel()))
        src = "M" if cross and n != "q" else "X"
        out = f"{n}_proj"
        nodes.append(helper.make_node("MatMul", [src, f"W{n}"], [f"{n}_mm" if bias else out]))
        if bias:
            inits.append(helper.make_tensor(f"b{n}", TensorProto.FLOAT, [emb],
                                            _RNG.standard_normal(emb).astype(np.float32)))
            nodes.append(helper.make_node("Add", [f"{n}_mm", f"b{n}"], [out]))
        nodes.append(helper.make_node("Reshape", [out, "split4"], [f"{n}_split"]))
        perm = [0, 2, 3, 1] if n == "k" else [0, 2, 1, 3]
        nodes.append(helper.make_node("Transpose", [f"{n}_split"], ["Kt" if n == "k" else n.upper()], perm=perm))
    keep = _RNG.integers(1, s + 1, size=(b,))
    inputs["mask"] = ((1.0 - (np.arange(s)[None, :] < keep[:, None])) * -10000.0).reshape(b, 1, 1, s).astype(
        np.float32)
    nodes += [helper.make_node("MatMul", ["Q", "Kt"], ["S"]),
              helper.make_node("Div", ["S", "scale"], ["Ss"]),
              helper.make_node("Add", ["Ss", "mask"], ["Sm"]),
              helper.make_node("Softmax", ["Sm"], ["P"], axis=-1),
              helper.make_node("MatMul", ["P", "V"], ["O"]),
              helper.make_node("Transpose", ["O"], ["O_merge"], perm=[0, 2, 1, 3]),
              helper.make_node("Reshape", ["O_merge", "y3"], ["Y"])]
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info(k, TensorProto.FLOAT, list(v.shape)) for k, v in inputs.items()],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    fused = "MatMul+Div+Add+Softmax+MatMul=Attention" + ("" if cross else "(QKV packed)")
    return {"name": f"attention_layout_{name}", "model": model, "inputs": inputs, "atol": 2e-4,
            "fused_op": fused, "absent_op": "Transpose"}


def _torchscript_case(b=2, s=9, h=2, e=32):
    """The TorchScript exporter's form (GPT-2 from Hugging Face, opset 17):
    Q, K, V split from one packed projection, each head-splitting Reshape's
    shape computed from Shape nodes reading the Split's outputs, K and V
    passed through one-input Concats (the empty key/value cache,
    runtime/passes/pass_through.h), K' as Transpose(0, 1, 3, 2), both operands
    scaled by sqrt(scale), a causal mask added, the NaN guard, and the
    merged output's Reshape shape again from Shape nodes reading the merging
    Transpose. The Transposes must go (the merging one stays for its Shape
    readers as a Reshape, with no dispatch) and Q/K/V be read packed."""
    qkv = _RNG.standard_normal((b, s, 3 * h * e)).astype(np.float32)
    root = float(np.sqrt(1.0 / np.sqrt(e)))
    causal = np.triu(np.full((s, s), -10000.0, dtype=np.float32), k=1).reshape(1, 1, s, s)
    inits = [_ints("sizes", [h * e] * 3), _ints("ax0", [0]), _ints("he", [h, e]), _ints("hxe", [h * e]),
             helper.make_tensor("i0", TensorProto.INT64, [], [0]),
             helper.make_tensor("i1", TensorProto.INT64, [], [1]),
             helper.make_tensor("c", TensorProto.FLOAT, [], [root]),
             helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0]),
             helper.make_tensor("causal", TensorProto.FLOAT, list(causal.shape), causal.ravel())]
    nodes = [helper.make_node("Split", ["QKV", "sizes"], ["xq", "xk", "xv"], axis=2)]

    def leading_dims(value, tag):
        # [dim 0, dim 1] of `value` as the exporter computes them.
        return [helper.make_node("Shape", [value], [f"{tag}_s0"]),
                helper.make_node("Gather", [f"{tag}_s0", "i0"], [f"{tag}_d0"], axis=0),
                helper.make_node("Shape", [value], [f"{tag}_s1"]),
                helper.make_node("Gather", [f"{tag}_s1", "i1"], [f"{tag}_d1"], axis=0),
                helper.make_node("Unsqueeze", [f"{tag}_d0", "ax0"], [f"{tag}_u0"]),
                helper.make_node("Unsqueeze", [f"{tag}_d1", "ax0"], [f"{tag}_u1"])]
    for name in ("q", "k", "v"):
        nodes += leading_dims(f"x{name}", name)
        nodes += [helper.make_node("Concat", [f"{name}_u0", f"{name}_u1", "he"], [f"{name}_shape"], axis=0),
                  helper.make_node("Reshape", [f"x{name}", f"{name}_shape"], [f"{name}_split"]),
                  helper.make_node("Transpose", [f"{name}_split"], [f"{name}4"], perm=[0, 2, 1, 3])]
    nodes += [helper.make_node("Concat", ["k4"], ["k_cache"], axis=-2),
              helper.make_node("Concat", ["v4"], ["v_cache"], axis=-2),
              helper.make_node("Transpose", ["k_cache"], ["Kt"], perm=[0, 1, 3, 2]),
              helper.make_node("Mul", ["q4", "c"], ["Qs"]),
              helper.make_node("Mul", ["Kt", "c"], ["Kts"]),
              helper.make_node("MatMul", ["Qs", "Kts"], ["S"]),
              helper.make_node("Add", ["S", "causal"], ["Sm"]),
              helper.make_node("Softmax", ["Sm"], ["P"], axis=-1),
              helper.make_node("IsNaN", ["P"], ["nan"]),
              helper.make_node("Where", ["nan", "zero", "P"], ["Pz"]),
              helper.make_node("MatMul", ["Pz", "v_cache"], ["O"]),
              helper.make_node("Transpose", ["O"], ["O_merge"], perm=[0, 2, 1, 3])]
    nodes += leading_dims("O_merge", "o")
    nodes += [helper.make_node("Concat", ["o_u0", "o_u1", "hxe"], ["o_shape"], axis=0),
              helper.make_node("Reshape", ["O_merge", "o_shape"], ["Y"])]
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("QKV", TensorProto.FLOAT, list(qkv.shape))],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return {"name": "attention_layout_torchscript_cache", "model": model, "inputs": {"QKV": qkv},
            "atol": 2e-4, "fused_op": "MatMul+Mul+Mul+Add+Softmax+IsNaN+Where+MatMul=Attention(QKV packed)",
            "absent_op": "Transpose"}


def cases():
    yield _case("bert_e64", 2, 13, 13, 4, 64)
    yield _case("cross_e32_nomask", 1, 5, 11, 2, 32, mask=False)
    yield _case("odd_e80", 3, 7, 7, 3, 80)
    # The merged output is also a graph output: the Transposes stay.
    yield _case("output_read_elsewhere", 1, 6, 6, 2, 32, leak_output=True)
    yield _dynamo_case()
    yield _torchscript_case()
    yield _projection_case("bert_projections")
    yield _projection_case("projections_no_bias", bias=False)
    yield _projection_case("cross_projections_unpacked", cross=True)
