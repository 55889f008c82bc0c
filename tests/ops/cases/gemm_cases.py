# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Gemm and MatMul: odd and aligned sizes in each of M, N, K (exercising the
# tiled kernel's edges, its vector and scalar loads, split-K, and the GEMV
# path for one-row or one-column products), transA / transB, alpha / beta,
# every broadcast of Gemm's C, numpy MatMul of ranks 1-4 with broadcast batch
# dims, weights as initializers and as graph inputs, and the fused epilogues
# (Gemm -> Relu, MatMul -> Add residual, MatMul -> Add bias). Expected outputs
# come from onnxruntime.
import numpy as np
from onnx import TensorProto, helper, numpy_helper

_RNG = np.random.default_rng(20260522)


def _rand(*shape):
    return _RNG.uniform(-1.0, 1.0, size=shape).astype(np.float32)


def _atol(k):
    return float(1e-4 * max(1.0, np.sqrt(k)))


def _model(nodes, inputs, inits, opset):
    graph = helper.make_graph(nodes, "gemm", inputs,
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
                              initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def _gemm(name, m, n, k, trans_a=0, trans_b=0, alpha=None, beta=None, c_shape=(), opset=13,
          b_init=True, c_init=True, tail=()):
    """c_shape: shape of C, or None for no C. tail: ops applied after the Gemm."""
    a = _rand(*((k, m) if trans_a else (m, k)))
    b = (_rand(*((n, k) if trans_b else (k, n))) / np.sqrt(max(k, 1))).astype(np.float32)
    attrs = {}
    if trans_a:
        attrs["transA"] = 1
    if trans_b:
        attrs["transB"] = 1
    if alpha is not None:
        attrs["alpha"] = alpha
    if beta is not None:
        attrs["beta"] = beta
    inputs = [helper.make_tensor_value_info("A", TensorProto.FLOAT, list(a.shape))]
    feeds = {"A": a}
    inits = []
    if b_init:
        inits.append(numpy_helper.from_array(b, "B"))
    else:
        inputs.append(helper.make_tensor_value_info("B", TensorProto.FLOAT, list(b.shape)))
        feeds["B"] = b
    node_inputs = ["A", "B"]
    if c_shape is not None:
        c = _rand(*c_shape)
        if c_init:
            inits.append(numpy_helper.from_array(c, "C"))
        else:
            inputs.append(helper.make_tensor_value_info("C", TensorProto.FLOAT, list(c.shape)))
            feeds["C"] = c
        node_inputs.append("C")
    nodes = [helper.make_node("Gemm", node_inputs, ["Y" if not tail else "g"], **attrs)]
    cur = "g"
    for i, op in enumerate(tail):
        out = "Y" if i == len(tail) - 1 else f"t{i}"
        if op == "Add":
            r = _rand(m, n)
            inputs.append(helper.make_tensor_value_info("R", TensorProto.FLOAT, [m, n]))
            feeds["R"] = r
            nodes.append(helper.make_node("Add", [cur, "R"], [out]))
        else:
            nodes.append(helper.make_node(op, [cur], [out]))
        cur = out
    return {"name": name, "model": _model(nodes, inputs, inits, opset), "inputs": feeds,
            "atol": _atol(k)}


def _matmul(name, a_shape, b_shape, b_init=False, opset=13, tail=(), residual_first=False):
    """tail: ("Add", shape) adds a graph input R of that shape; other strings are unary ops."""
    a = _rand(*a_shape)
    k = a_shape[-1]
    b = (_rand(*b_shape) / np.sqrt(max(k, 1))).astype(np.float32)
    inputs = [helper.make_tensor_value_info("A", TensorProto.FLOAT, list(a_shape))]
    feeds = {"A": a}
    inits = []
    if b_init:
        inits.append(numpy_helper.from_array(b, "B"))
    else:
        inputs.append(helper.make_tensor_value_info("B", TensorProto.FLOAT, list(b_shape)))
        feeds["B"] = b
    nodes = [helper.make_node("MatMul", ["A", "B"], ["Y" if not tail else "mm"])]
    cur = "mm"
    for i, step in enumerate(tail):
        out = "Y" if i == len(tail) - 1 else f"t{i}"
        if isinstance(step, tuple) and step[0] == "Add":
            r = _rand(*step[1])
            rname = f"R{i}"
            if len(step) > 2 and step[2] == "init":
                inits.append(numpy_helper.from_array(r, rname))
            else:
                inputs.append(
                    helper.make_tensor_value_info(rname, TensorProto.FLOAT, list(r.shape)))
                feeds[rname] = r
            ins = [rname, cur] if residual_first else [cur, rname]
            nodes.append(helper.make_node("Add", ins, [out]))
        else:
            nodes.append(helper.make_node(step, [cur], [out]))
        cur = out
    return {"name": name, "model": _model(nodes, inputs, inits, opset), "inputs": feeds,
            "atol": _atol(k)}


def _gemm_cases():
    # Sizes: odd edges around the tiles, aligned (vector loads), skinny.
    sizes = [(1, 1, 1), (3, 7, 13), (7, 13, 3), (13, 3, 7), (127, 129, 65), (64, 64, 64),
             (128, 256, 64), (33, 1, 17), (1, 1000, 2048), (2, 1000, 512), (5, 37, 300),
             (200, 96, 1), (96, 200, 4), (260, 130, 516), (16, 16, 4096)]
    for m, n, k in sizes:
        yield _gemm(f"gemm_{m}x{n}x{k}", m, n, k)
        yield _gemm(f"gemm_{m}x{n}x{k}_tb", m, n, k, trans_b=1)
    for m, n, k in [(3, 7, 13), (127, 129, 65), (64, 64, 64), (1, 1000, 2048), (4, 12, 8)]:
        yield _gemm(f"gemm_{m}x{n}x{k}_ta", m, n, k, trans_a=1)
        yield _gemm(f"gemm_{m}x{n}x{k}_ta_tb", m, n, k, trans_a=1, trans_b=1)
    # Shapes that pick the large tiles on lavapipe (128x64, 64x128, split-K).
    yield _gemm("gemm_384x320x100", 384, 320, 100, c_shape=(320,))
    yield _gemm("gemm_320x384x100_ta_tb", 320, 384, 100, trans_a=1, trans_b=1, c_shape=(384,))
    yield _gemm("gemm_256x256x300_tb", 256, 256, 300, trans_b=1, c_shape=(256,))
    # alpha / beta.
    yield _gemm("gemm_alpha_beta", 37, 41, 29, alpha=0.5, beta=-2.0)
    yield _gemm("gemm_alpha_beta_tb_vec", 64, 48, 32, trans_b=1, alpha=1.5, beta=0.25)
    yield _gemm("gemm_beta0", 9, 10, 11, beta=0.0)
    yield _gemm("gemm_alpha0", 9, 10, 11, alpha=0.0, beta=1.0)
    # Every broadcast of C.
    for label, shape, row_shape in [("scalar", (), ()), ("1", (1,), (1,)), ("n", (24,), (24,)),
                                    ("1n", (1, 24), (1, 24)), ("m1", (20, 1), (1, 1)),
                                    ("mn", (20, 24), (1, 24)), ("11", (1, 1), (1, 1))]:
        yield _gemm(f"gemm_c_{label}", 20, 24, 36, c_shape=shape)
        yield _gemm(f"gemm_c_{label}_gemv", 1, 24, 36, c_shape=row_shape, trans_b=1)
    yield _gemm("gemm_c_n_odd", 5, 7, 9, c_shape=(7,))
    yield _gemm("gemm_c_m1_col", 33, 1, 17, c_shape=(33, 1))
    yield _gemm("gemm_c_mn_col", 33, 1, 17, c_shape=(33, 1), trans_a=1)
    # No C (opset >= 11), C as a graph input, B as a graph input.
    yield _gemm("gemm_no_c", 31, 17, 23, c_shape=None)
    yield _gemm("gemm_no_c_gemv", 1, 100, 64, c_shape=None, trans_b=1)
    yield _gemm("gemm_inputs", 19, 21, 45, b_init=False, c_init=False, c_shape=(21,))
    yield _gemm("gemm_inputs_ta_tb", 19, 21, 45, trans_a=1, trans_b=1, b_init=False,
                c_init=False, c_shape=(19, 21))
    # Older opsets (C required).
    yield _gemm("gemm_opset7", 12, 10, 8, c_shape=(10,), opset=7)
    yield _gemm("gemm_opset9_tb", 12, 10, 8, c_shape=(12, 10), trans_b=1, opset=9)
    # Classifier heads (batch 1 and 8): GEMV and skinny tiled with split-K.
    yield _gemm("gemm_head_b1", 1, 1000, 2048, trans_b=1, c_shape=(1000,))
    yield _gemm("gemm_head_b8", 8, 1000, 2048, trans_b=1, c_shape=(1000,))
    yield _gemm("gemm_head_b3_odd", 3, 999, 1023, trans_b=1, c_shape=(999,))
    # Fused epilogues.
    yield _gemm("gemm_relu", 30, 50, 40, c_shape=(50,), tail=["Relu"])
    yield _gemm("gemm_relu_gemv", 1, 50, 40, c_shape=(50,), trans_b=1, tail=["Relu"])
    yield _gemm("gemm_sigmoid_vec", 32, 64, 48, c_shape=(64,), tail=["Sigmoid"])
    yield _gemm("gemm_add", 30, 50, 40, c_shape=(50,), tail=["Add"])
    yield _gemm("gemm_add_relu_vec", 32, 64, 128, c_shape=(64,), trans_b=1, tail=["Add", "Relu"])
    yield _gemm("gemm_tanh_add_splitk", 8, 24, 2000, c_shape=(24,), tail=["Tanh", "Add"])
    yield _gemm("gemm_relu_gemv_splitk", 1, 8, 4096, c_shape=(8,), tail=["Relu"])


def _matmul_cases():
    # 2-D, odd and aligned sizes, weights as inputs and initializers.
    for m, n, k in [(1, 1, 1), (3, 7, 13), (13, 3, 7), (7, 13, 1), (127, 65, 129),
                    (128, 128, 128), (64, 96, 300), (2, 3, 4096), (1, 768, 768), (300, 1, 64)]:
        yield _matmul(f"matmul_{m}x{n}x{k}", (m, k), (k, n))
        yield _matmul(f"matmul_{m}x{n}x{k}_w", (m, k), (k, n), b_init=True)
    # 1-D operands.
    yield _matmul("matmul_vec_vec", (17,), (17,))
    yield _matmul("matmul_vec_vec_aligned", (64,), (64,))
    yield _matmul("matmul_vec_mat", (13,), (13, 7))
    yield _matmul("matmul_mat_vec", (7, 13), (13,))
    yield _matmul("matmul_mat_vec_aligned", (96, 64), (64,))
    yield _matmul("matmul_vec_batched", (13,), (3, 13, 5))
    yield _matmul("matmul_batched_vec", (2, 3, 5, 13), (13,))
    # Batched, broadcast batch dims (ranks 3 and 4).
    yield _matmul("matmul_b3_w2", (4, 9, 17), (17, 11), b_init=True)
    yield _matmul("matmul_b3_w2_aligned", (2, 64, 128), (128, 256), b_init=True)
    yield _matmul("matmul_b3_b3", (5, 9, 17), (5, 17, 11))
    yield _matmul("matmul_b3_b3_aligned", (3, 32, 64), (3, 64, 48))
    yield _matmul("matmul_b1_b3", (1, 9, 17), (4, 17, 11))
    yield _matmul("matmul_w2_b3", (9, 17), (4, 17, 11))
    yield _matmul("matmul_b4_b4", (2, 3, 7, 5), (2, 3, 5, 6))
    yield _matmul("matmul_b4_bcast", (2, 1, 7, 5), (1, 3, 5, 6))
    yield _matmul("matmul_b4_bcast2", (3, 1, 7, 8), (3, 4, 8, 6))
    yield _matmul("matmul_b4_b3", (2, 3, 7, 5), (3, 5, 6))
    yield _matmul("matmul_b4_w2", (2, 3, 7, 5), (5, 6), b_init=True)
    yield _matmul("matmul_attn_scores", (2, 4, 33, 16), (2, 4, 16, 33))
    yield _matmul("matmul_attn_context", (2, 4, 33, 33), (2, 4, 33, 16))
    yield _matmul("matmul_b4_gemv", (2, 3, 1, 64), (2, 3, 64, 40))
    yield _matmul("matmul_b4_gemv_bcast", (2, 1, 1, 20), (1, 3, 20, 9))
    yield _matmul("matmul_b3_col", (3, 50, 20), (3, 20, 1))
    yield _matmul("matmul_opset1", (5, 6), (6, 7), opset=1)
    yield _matmul("matmul_opset9_b3", (2, 5, 6), (6, 7), opset=9)
    # Transformer-like: [B, S, H] x [H, 4H] with bias / residual adds.
    yield _matmul("matmul_ffn", (2, 33, 64), (64, 256), b_init=True)
    yield _matmul("matmul_large_tile", (3, 128, 100), (100, 320), b_init=True)
    yield _matmul("matmul_bias", (2, 33, 64), (64, 96), b_init=True, tail=[("Add", (96,), "init")])
    yield _matmul("matmul_bias_odd", (3, 7, 13), (13, 5), b_init=True,
                  tail=[("Add", (5,), "init")])
    yield _matmul("matmul_residual", (2, 33, 64), (64, 64), b_init=True,
                  tail=[("Add", (2, 33, 64))])
    yield _matmul("matmul_residual_first", (3, 7, 13), (13, 5), b_init=True,
                  tail=[("Add", (3, 7, 5))], residual_first=True)
    yield _matmul("matmul_residual_relu", (4, 16, 32), (32, 24), b_init=True,
                  tail=[("Add", (4, 16, 24)), "Relu"])
    yield _matmul("matmul_relu_residual", (17, 19), (19, 23), b_init=True,
                  tail=["Relu", ("Add", (17, 23))])
    yield _matmul("matmul_residual_gemv", (1, 768), (768, 64), b_init=True,
                  tail=[("Add", (1, 64))])
    yield _matmul("matmul_residual_splitk", (4, 8, 3000), (3000, 12), b_init=True,
                  tail=[("Add", (4, 8, 12))])
    yield _matmul("matmul_bias_residual", (2, 9, 16), (16, 16), b_init=True,
                  tail=[("Add", (16,), "init"), ("Add", (2, 9, 16))])
    yield _matmul_bias_via_nodes()


def _matmul_bias_via_nodes():
    """The TorchScript exporter's BERT: the bias comes out of Constant -> Identity
    and is added first (Add(bias, mm)), then a residual. vkserve lifts both
    nodes to an initializer and fuses all of it into the MatMul."""
    a = _rand(2, 16, 32)
    b = (_rand(32, 48) / np.sqrt(32)).astype(np.float32)
    bias = _rand(48)
    r = _rand(2, 16, 48)
    nodes = [helper.make_node("Constant", [], ["c"], value=numpy_helper.from_array(bias, "c")),
             helper.make_node("Identity", ["c"], ["bias"]),
             helper.make_node("MatMul", ["A", "B"], ["mm"]),
             helper.make_node("Add", ["bias", "mm"], ["t"]),
             helper.make_node("Add", ["t", "R"], ["Y"])]
    inputs = [helper.make_tensor_value_info("A", TensorProto.FLOAT, [2, 16, 32]),
              helper.make_tensor_value_info("R", TensorProto.FLOAT, [2, 16, 48])]
    return {"name": "matmul_bias_constant_identity",
            "model": _model(nodes, inputs, [numpy_helper.from_array(b, "B")], 13),
            "inputs": {"A": a, "R": r}, "atol": _atol(32)}


def cases():
    yield from _gemm_cases()
    yield from _matmul_cases()
