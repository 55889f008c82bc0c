# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# The GEMM engine (runtime/kernels/gemm/gemm_engine.h): every kernel its cost model can
# pick — each tile variant with a strided-matrix B (MatMul, Gemm) and with the
# im2col / pointwise B (Conv), gemv with both B layouts — each with and
# without split-K, at odd sizes (1, 3, 7, 13, 127, 1000) that leave partial
# tiles and take the scalar loads, and at multiples of 4 that take the
# 128-bit paths; plus every epilogue: alpha, beta * C in each broadcast,
# MatMul's fused bias, residual before and after the activation, and every
# activation the fusion pass folds, in the store and in the split-K pass.
#
# The kernel is pinned with the node attribute vkserve_gemm_plan
# ("<BM>x<BN>[/<splits>]" or "gemv[/<splits>]"); onnxruntime runs the same
# graph without it ("reference_model") and provides the expected outputs.
import pathlib
import re

import numpy as np
from onnx import TensorProto, helper, numpy_helper

_RNG = np.random.default_rng(20261124)
_OPSET = 20
_PLAN_ATTR = "vkserve_gemm_plan"


def _tile_table():
    """The scalar tiles of shaders/gemm/gemm_tiles.def: ("<BM>x<BN>", has im2col) per row."""
    path = pathlib.Path(__file__).resolve().parents[3] / "shaders" / "gemm" / "gemm_tiles.def"
    rows = re.findall(r"^VKSERVE_GEMM_TILE\(([^)]*)\)", path.read_text(), re.MULTILINE)
    tiles = []
    for row in rows:
        fields = [f.strip() for f in row.split(",")]
        tiles.append((f"{fields[0]}x{fields[1]}", int(fields[5]) > 0))
    if not tiles:
        raise ValueError(f"{path}: no VKSERVE_GEMM_TILE rows")
    return tiles


# Every tile the planner offers (its table is the same file).
MATRIX_TILES = [name for name, _ in _tile_table()]
IM2COL_TILES = [name for name, im2col in _tile_table() if im2col]


def _rand(*shape, scale=1.0):
    return (_RNG.uniform(-1.0, 1.0, size=shape) * scale).astype(np.float32)


def _model(nodes, inputs, inits, plan):
    """The case's model (plan pinned on nodes[0]) and onnxruntime's copy without it."""
    def build(with_plan):
        ns = []
        for i, n in enumerate(nodes):
            op, ins, outs, attrs = n
            attrs = dict(attrs)
            if i == 0 and with_plan and plan is not None:
                attrs[_PLAN_ATTR] = plan
            ns.append(helper.make_node(op, ins, outs, **attrs))
        graph = helper.make_graph(
            ns, "gemm_engine",
            [helper.make_tensor_value_info(k, TensorProto.FLOAT, list(v.shape))
             for k, v in inputs.items()],
            [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
            initializer=[numpy_helper.from_array(v, k) for k, v in inits.items()])
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", _OPSET)])
        m.ir_version = 9
        return m
    return build(True), build(False)


def _case(name, nodes, inputs, inits=None, plan=None, atol=None):
    model, reference = _model(nodes, inputs, inits or {}, plan)
    case = {"name": name, "model": model, "inputs": inputs, "reference_model": reference}
    if atol is not None:
        case["atol"] = atol
    return case


def _tail(cur, tail, out_shape, inputs, inits):
    """Nodes applying `tail` ("Add" residual, ("Bias",), (op, attrs)) after `cur`."""
    nodes = []
    for i, step in enumerate(tail):
        nxt = f"t{i + 1}"
        if step == "Add":
            inputs[f"R{i}"] = _rand(*out_shape)
            nodes.append(("Add", [cur, f"R{i}"], [nxt], {}))
        elif step == "AddFirst":
            inputs[f"R{i}"] = _rand(*out_shape)
            nodes.append(("Add", [f"R{i}", cur], [nxt], {}))
        elif step == "Bias":
            inits[f"bias{i}"] = _rand(out_shape[-1])
            nodes.append(("Add", [cur, f"bias{i}"], [nxt], {}))
        elif step[0] == "Clip":
            inits[f"lo{i}"] = np.array(step[1], np.float32)
            inits[f"hi{i}"] = np.array(step[2], np.float32)
            nodes.append(("Clip", [cur, f"lo{i}", f"hi{i}"], [nxt], {}))
        else:
            nodes.append((step[0], [cur], [nxt], step[1]))
        cur = nxt
    return nodes


def _finish(nodes):
    last = nodes[-1]
    nodes[-1] = (last[0], last[1], ["Y"], last[3])
    return nodes


def matmul(name, a_shape, b_shape, plan, tail=(), b_const=False):
    a = _rand(*a_shape)
    b = _rand(*b_shape, scale=1.0 / np.sqrt(b_shape[-2] if len(b_shape) > 1 else b_shape[0]))
    inputs, inits = {"A": a}, {}
    if b_const:
        inits["B"] = b
    else:
        inputs["B"] = b
    out_shape = np.matmul(a, b).shape
    nodes = [("MatMul", ["A", "B"], ["t0"], {})]
    nodes += _tail("t0", tail, out_shape, inputs, inits)
    return _case(name, _finish(nodes), inputs, inits, plan)


def gemm(name, m, n, k, plan, trans_a=False, trans_b=False, c_shape=None, alpha=1.0,
         beta=1.0, tail=()):
    a = _rand(*((k, m) if trans_a else (m, k)))
    b = _rand(*((n, k) if trans_b else (k, n)), scale=1.0 / np.sqrt(k))
    inputs, inits = {"A": a, "B": b}, {}
    ins = ["A", "B"]
    if c_shape is not None:
        inputs["C"] = _rand(*c_shape)
        ins.append("C")
    attrs = {"transA": int(trans_a), "transB": int(trans_b), "alpha": alpha, "beta": beta}
    nodes = [("Gemm", ins, ["t0"], attrs)]
    nodes += _tail("t0", tail, (m, n), inputs, inits)
    return _case(name, _finish(nodes), inputs, inits, plan)


def conv(name, x_shape, c_out, kernel, plan, group=1, strides=None, pads=None, dilations=None,
         bias=True, tail=()):
    x = _rand(*x_shape)
    c_in = x_shape[1]
    fan_in = c_in // group * int(np.prod(kernel))
    w = _rand(c_out, c_in // group, *kernel, scale=1.0 / np.sqrt(fan_in))
    inputs, inits = {"X": x}, {"W": w}
    ins = ["X", "W"]
    if bias:
        inits["Bc"] = _rand(c_out)
        ins.append("Bc")
    attrs = {"group": group}
    rank = len(kernel)
    strides = strides or [1] * rank
    dilations = dilations or [1] * rank
    pads = pads or [0] * (2 * rank)
    attrs.update(strides=strides, dilations=dilations, pads=pads)
    out_spatial = [(x_shape[2 + i] + pads[i] + pads[rank + i] - (kernel[i] - 1) * dilations[i] - 1)
                   // strides[i] + 1 for i in range(rank)]
    out_shape = (x_shape[0], c_out, *out_spatial)
    nodes = [("Conv", ins, ["t0"], attrs)]
    nodes += _tail("t0", tail, out_shape, inputs, inits)
    return _case(name, _finish(nodes), inputs, inits, plan)


# Activations the fusion pass folds, with attributes.
ACTIVATIONS = [
    ("Relu", {}), ("LeakyRelu", {"alpha": 0.1}), ("Sigmoid", {}),
    ("HardSigmoid", {"alpha": 0.3, "beta": 0.4}), ("HardSwish", {}), ("Tanh", {}), ("Erf", {}),
    ("Gelu", {}), ("Gelu", {"approximate": "tanh"}), ("Elu", {"alpha": 0.7}),
    ("Selu", {}), ("Celu", {"alpha": 1.3}), ("Softplus", {}), ("Softsign", {}),
    ("ThresholdedRelu", {"alpha": 0.2}), ("Mish", {}), ("Shrink", {"lambd": 0.3, "bias": 0.1}),
    ("Abs", {}), ("Neg", {}), ("Sin", {}), ("Exp", {}),
]


def cases():
    # Matrix B: every tile, unsplit at odd sizes, split-K at odd sizes, and the
    # 128-bit loads and stores with the fused bias + residual epilogue.
    for t in MATRIX_TILES:
        yield matmul(f"gemm_engine_mm_{t}", (127, 13), (13, 7), t)
        yield matmul(f"gemm_engine_mm_{t}_split", (13, 1000), (1000, 127), f"{t}/4")
        yield matmul(f"gemm_engine_mm_{t}_vec_split", (3, 36, 132), (132, 68), f"{t}/2",
                     tail=["Bias", "Add"], b_const=True)
    # Gemm's transposes and C broadcasts (odd and vector sizes), alpha / beta.
    for ta in (False, True):
        for tb in (False, True):
            tag = f"{'t' if ta else 'n'}{'t' if tb else 'n'}"
            yield gemm(f"gemm_engine_gemm_{tag}_odd", 127, 13, 7, "32x64", ta, tb, (13,),
                       alpha=0.5, beta=2.0)
            yield gemm(f"gemm_engine_gemm_{tag}_vec_split", 64, 132, 260, "64x64/4", ta, tb,
                       (64, 132), alpha=1.5, beta=-1.0, tail=[("Relu", {})])
    for c_shape in [(1,), (1, 1000), (3, 1), (3, 1000)]:
        yield gemm(f"gemm_engine_gemm_c{'x'.join(map(str, c_shape))}", 3, 1000, 13, "16x64",
                   c_shape=c_shape, beta=0.5)
    # gemv: M <= 8, both B layouts, with and without split-K.
    for m in (1, 3, 7):
        yield gemm(f"gemm_engine_gemv_m{m}", m, 1000, 127, "gemv", c_shape=(1000,))
        yield gemm(f"gemm_engine_gemv_m{m}_tb_split", m, 127, 1000, "gemv/4", trans_b=True,
                   c_shape=(127,), tail=[("Relu", {})])
        yield matmul(f"gemm_engine_gemv_m{m}_split_act", (m, 1000), (1000, 13), "gemv/4",
                     tail=[("Gelu", {})])
    yield matmul("gemm_engine_gemv_vec", (4, 256), (256, 128), "gemv/2", tail=["Add"])
    # N == 1 (rewritten as one row) and batches: broadcast, strided, folded.
    yield matmul("gemm_engine_n1", (127, 13), (13, 1), None)
    yield matmul("gemm_engine_batch_broadcast", (2, 1, 13, 7), (1, 3, 7, 127), "32x32/2")
    yield matmul("gemm_engine_batch3", (3, 7, 13), (3, 13, 127), "64x32")
    yield matmul("gemm_engine_batch_fold", (3, 13, 127), (127, 7), "64x64/4", tail=["Add"])
    # Im2col B: every tile, 3x3 padded at odd sizes, split-K with the residual
    # and activation in the split-K pass, and the pointwise path (scalar and
    # 128-bit) with groups.
    for t in IM2COL_TILES:
        yield conv(f"gemm_engine_conv_{t}", (2, 7, 13, 13), 127, (3, 3), t, pads=[1, 1, 1, 1])
        yield conv(f"gemm_engine_conv_{t}_split", (1, 13, 7, 7), 13, (3, 3), f"{t}/4",
                   pads=[1, 1, 1, 1], tail=["Add", ("Relu", {})])
        yield conv(f"gemm_engine_conv_{t}_pointwise", (3, 13, 7, 7), 7, (1, 1), t)
        yield conv(f"gemm_engine_conv_{t}_pointwise_vec_split", (1, 64, 8, 8), 24, (1, 1),
                   f"{t}/4", group=2, tail=[("Clip", 0.0, 6.0), "AddFirst"])
    yield conv("gemm_engine_conv_stride_dilation", (1, 3, 13, 13), 7, (3, 3), "16x64/2",
               strides=[2, 2], dilations=[2, 2], pads=[2, 1, 0, 2])
    yield conv("gemm_engine_conv_1d_groups", (3, 12, 127), 8, (7,), "64x32", group=4,
               pads=[3, 3], bias=False, tail=["Add"])
    yield conv("gemm_engine_conv_vec_out_split", (1, 16, 8, 8), 32, (3, 3), "32x64/4",
               pads=[1, 1, 1, 1], tail=[("HardSwish", {}), "Add"])
    # Every activation, in the tile's store and in the split-K pass.
    for i, (op, attrs) in enumerate(ACTIVATIONS):
        tag = op.lower() + ("_tanh" if attrs.get("approximate") == "tanh" else "")
        yield matmul(f"gemm_engine_act_{tag}", (13, 7), (7, 127), "64x32", tail=[(op, attrs)])
        plan = "gemv/4" if i % 2 else "32x64/4"
        yield matmul(f"gemm_engine_act_{tag}_split", (3 if i % 2 else 13, 1000), (1000, 7), plan,
                     tail=["Bias", (op, attrs)])
