# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Attention between the exporters' head-splitting and head-merging
# Transposes (runtime/attention_layout.h), against onnxruntime running the
# unfused graph: projections [B, S, H*E] -> Reshape [B, S, H, E] ->
# Transpose(0, 2, 1, 3) for Q and V (K as Transpose(0, 2, 3, 1), its
# transposed form), the scores scaled, masked and soft-maxed, and the result
# Transpose(0, 2, 1, 3) -> Reshape [B, S, H*E]. After the attention fusion
# the kernel must read and write the 3-D layout itself ("absent_op":
# Transpose), with and without a key-padding mask, cross attention
# (S != T) and head sizes 32/64/80; a head-merging Transpose with a second reader must stay, and the result
# still match.
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


def cases():
    yield _case("bert_e64", 2, 13, 13, 4, 64)
    yield _case("cross_e32_nomask", 1, 5, 11, 2, 32, mask=False)
    yield _case("odd_e80", 3, 7, 7, 3, 80)
    # The merged output is also a graph output: the Transposes stay.
    yield _case("output_read_elsewhere", 1, 6, 6, 2, 32, leak_output=True)
