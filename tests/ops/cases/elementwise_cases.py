# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Elementwise cases: the activations (Relu, LeakyRelu, PRelu, Clip, Sigmoid,
# HardSigmoid, HardSwish, Tanh), the broadcasting binary ops (Add, Sub, Mul,
# Div) with every broadcast shape class (same shape, scalar, per-channel,
# rank mismatch, both sides broadcasting), Dropout and Identity, across their
# opset variants, on odd sizes. Host-known inputs (Clip's min/max from opset
# 11) are initializers. A few cases compute shape arithmetic (Shape -> Add/
# Sub/Mul/Div on int64) that vkserve folds at plan time. Expected outputs come
# from onnxruntime.
import numpy as np
from onnx import TensorProto, helper
from onnx_case import ELEM_TYPE, make_model

_RNG = np.random.default_rng(20260521)


def _rand(shape, lo=-3.0, hi=3.0):
    return _RNG.uniform(lo, hi, size=shape).astype(np.float32)


def _case(name, nodes, inputs, outputs, opset, inits=None, **tol):
    case = {"name": name, "model": make_model(nodes, inputs, outputs, opset, inits), "inputs": inputs}
    case.update(tol)
    return case


def _unary(name, op, shape, opset, lo=-3.0, hi=3.0, **attrs):
    x = _rand(shape, lo, hi)
    node = helper.make_node(op, ["X"], ["Y"], **attrs)
    return _case(name, [node], {"X": x}, [("Y", TensorProto.FLOAT)], opset)


_ODD_SHAPES = [(1,), (3,), (7, 13), (2, 3, 5, 7), (1, 127, 3), (13, 1, 1, 7, 3)]


def _activation_cases():
    for op, opsets in (("Relu", (7, 13, 14)), ("Sigmoid", (7, 13)), ("Tanh", (7, 13))):
        for opset in opsets:
            yield _unary(f"{op.lower()}_opset{opset}", op, (2, 3, 9, 11), opset)
        for i, shape in enumerate(_ODD_SHAPES):
            yield _unary(f"{op.lower()}_odd{i}", op, shape, 14 if op == "Relu" else 13)
    yield _unary("relu_big", "Relu", (4, 64, 56, 57), 14)
    yield _unary("sigmoid_saturating", "Sigmoid", (3, 257), 13, lo=-100.0, hi=100.0)
    yield _unary("tanh_saturating", "Tanh", (5, 129), 13, lo=-60.0, hi=60.0)
    for opset in (7, 16):
        yield _unary(f"leaky_relu_default_opset{opset}", "LeakyRelu", (2, 5, 7), opset)
        yield _unary(f"leaky_relu_alpha_opset{opset}", "LeakyRelu", (3, 13), opset, alpha=0.2)
    yield _unary("leaky_relu_odd", "LeakyRelu", (1, 127), 16, alpha=-1.5)
    for opset in (7, 21):
        yield _unary(f"hard_sigmoid_default_opset{opset}", "HardSigmoid", (2, 3, 11), opset,
                     lo=-6.0, hi=6.0)
    yield _unary("hard_sigmoid_alpha_beta", "HardSigmoid", (7, 13), 21, lo=-6.0, hi=6.0,
                 alpha=0.3, beta=0.4)
    for i, shape in enumerate([(2, 16, 9, 9), (7,), (3, 13)]):
        yield _unary(f"hard_swish_{i}", "HardSwish", shape, 14, lo=-6.0, hi=6.0)


def _clip_cases():
    # Opsets 6-10: min/max attributes.
    yield _unary("clip6_both", "Clip", (2, 3, 7, 7), 6, min=-1.0, max=1.5)
    yield _unary("clip6_min_only", "Clip", (3, 13), 6, min=0.0)
    yield _unary("clip6_max_only", "Clip", (3, 13), 6, max=0.5)
    yield _unary("clip6_relu6", "Clip", (1, 32, 15, 15), 6, lo=-8.0, hi=8.0, min=0.0, max=6.0)
    yield _unary("clip6_none", "Clip", (5, 7), 6)
    # Opsets 11+: optional min/max inputs (initializers), possibly omitted.
    for opset in (11, 12, 13, 21):
        for lo, hi in ((-1.0, 2.0), (None, 1.0), (0.5, None), (None, None)):
            inputs = ["X", "" if lo is None else "min", "" if hi is None else "max"]
            while inputs[-1] == "":
                inputs.pop()
            inits = {}
            if lo is not None:
                inits["min"] = np.array(lo, dtype=np.float32)
            if hi is not None:
                inits["max"] = np.array(hi, dtype=np.float32)
            tag = f"{'min' if lo is not None else ''}{'max' if hi is not None else ''}" or "none"
            node = helper.make_node("Clip", inputs, ["Y"])
            yield _case(f"clip{opset}_{tag}", [node], {"X": _rand((2, 3, 5, 7))},
                        [("Y", TensorProto.FLOAT)], opset, inits)
    node = helper.make_node("Clip", ["X", "min", "max"], ["Y"])
    yield _case("clip13_relu6_big", [node], {"X": _rand((1, 96, 28, 27), -9.0, 9.0)},
                [("Y", TensorProto.FLOAT)], 13,
                {"min": np.array(0.0, np.float32), "max": np.array(6.0, np.float32)})


def _prelu_cases():
    for name, x_shape, slope_shape, opset in (
            ("prelu_per_channel", (2, 5, 7, 9), (5, 1, 1), 9),
            ("prelu_per_channel_opset16", (1, 13, 3, 3), (13, 1, 1), 16),
            ("prelu_scalar", (3, 13), (1,), 9),
            ("prelu_same_shape", (2, 3, 7), (2, 3, 7), 7),
            ("prelu_last_dim", (4, 3, 127), (127,), 16),
            ("prelu_rank_mismatch", (2, 3, 4, 5), (4, 1), 16)):
        x = _rand(x_shape)
        slope = _RNG.uniform(-0.5, 0.5, size=slope_shape).astype(np.float32)
        node = helper.make_node("PRelu", ["X", "slope"], ["Y"])
        yield _case(name, [node], {"X": x}, [("Y", TensorProto.FLOAT)], opset,
                    {"slope": slope})
    # The slope as a graph input too.
    x = _rand((2, 7, 5))
    slope = _RNG.uniform(-0.5, 0.5, size=(7, 1)).astype(np.float32)
    node = helper.make_node("PRelu", ["X", "slope"], ["Y"])
    yield _case("prelu_slope_input", [node], {"X": x, "slope": slope},
                [("Y", TensorProto.FLOAT)], 16)


# (name, a shape, b shape): every class the binary kernel distinguishes.
_BROADCASTS = [
    ("same", (2, 3, 7, 13), (2, 3, 7, 13)),
    ("same_odd", (127,), (127,)),
    ("scalar_b", (3, 5, 7), ()),
    ("scalar_a", (), (3, 5, 7)),
    ("one_elem_b", (2, 13), (1, 1)),
    ("per_channel", (2, 16, 9, 7), (1, 16, 1, 1)),
    ("per_channel_rank3", (2, 16, 9, 7), (16, 1, 1)),
    ("per_channel_a", (1, 13, 1, 1), (3, 13, 5, 5)),
    ("last_dim_bias", (2, 7, 96), (96,)),
    ("squeeze_excite", (2, 16, 7, 7), (2, 16, 1, 1)),
    ("rank_mismatch", (3, 4, 5), (4, 1)),
    ("both_sides", (3, 1, 5), (1, 4, 1)),
    ("both_sides_outer", (7, 1), (1, 13)),
    ("middle", (2, 3, 4, 5), (3, 1, 5)),
    ("rank6", (2, 3, 1, 4, 1, 5), (1, 3, 2, 1, 3, 1)),
    ("rank8_ones", (1, 2, 1, 3, 1, 2, 1, 3), (2, 1, 1, 3, 1, 1, 1, 1)),
]


def _binary_cases():
    for op in ("Add", "Sub", "Mul", "Div"):
        for tag, a_shape, b_shape in _BROADCASTS:
            a = _rand(a_shape)
            b = _rand(b_shape)
            if op == "Div":
                b = np.where(np.abs(b) < 0.25, 0.5, b).astype(np.float32)
            node = helper.make_node(op, ["A", "B"], ["C"])
            yield _case(f"{op.lower()}_{tag}", [node], {"A": a, "B": b},
                        [("C", TensorProto.FLOAT)], 14)
        # Opset variants; B as an initializer (a weight, e.g. a bias).
        for opset in (7, 13, 14):
            node = helper.make_node(op, ["A", "B"], ["C"])
            b = _RNG.uniform(0.5, 2.0, size=(1, 5, 1)).astype(np.float32)
            yield _case(f"{op.lower()}_opset{opset}_init", [node], {"A": _rand((3, 5, 11))},
                        [("C", TensorProto.FLOAT)], opset, {"B": b})
        # The same value on both sides.
        node = helper.make_node(op, ["A", "A"], ["C"])
        yield _case(f"{op.lower()}_self", [node], {"A": _rand((4, 33))},
                    [("C", TensorProto.FLOAT)], 14)
    a = _rand((4, 64, 56, 56))
    node = helper.make_node("Add", ["A", "B"], ["C"])
    yield _case("add_big_residual", [node], {"A": a, "B": _rand((4, 64, 56, 56))},
                [("C", TensorProto.FLOAT)], 14)
    node = helper.make_node("Div", ["A", "B"], ["C"])
    yield _case("div_by_zero", [node],
                {"A": np.array([1.0, -1.0, 0.0, 2.0], np.float32),
                 "B": np.array([0.0, 0.0, 0.0, 4.0], np.float32)},
                [("C", TensorProto.FLOAT)], 14)


def _fold_cases():
    """Shape arithmetic on int64 and int32, folded at plan time."""
    x = _rand((2, 3, 8, 12))
    for op, const in (("Add", [1, 0, 2, -3]), ("Sub", [1, 1, 1, 1]), ("Mul", [2, 3, 1, 2]),
                      ("Div", [2, 3, 3, 5])):
        nodes = [helper.make_node("Shape", ["X"], ["s"]),
                 helper.make_node(op, ["s", "k"], ["Y"])]
        yield _case(f"fold_{op.lower()}_int64", nodes, {"X": x}, [("Y", TensorProto.INT64)], 14,
                    {"k": np.array(const, np.int64)})
    # Scalar broadcast, negative integer division (truncates toward zero).
    nodes = [helper.make_node("Shape", ["X"], ["s"]),
             helper.make_node("Sub", ["s", "ten"], ["neg"]),
             helper.make_node("Div", ["neg", "three"], ["Y"])]
    yield _case("fold_div_negative", nodes, {"X": x}, [("Y", TensorProto.INT64)], 14,
                {"ten": np.array(10, np.int64), "three": np.array(3, np.int64)})
    # int32 and float shape arithmetic through Cast.
    nodes = [helper.make_node("Shape", ["X"], ["s"]),
             helper.make_node("Cast", ["s"], ["s32"], to=TensorProto.INT32),
             helper.make_node("Mul", ["s32", "k"], ["Y"])]
    yield _case("fold_mul_int32", nodes, {"X": x}, [("Y", TensorProto.INT32)], 14,
                {"k": np.array([3], np.int32)})
    nodes = [helper.make_node("Shape", ["X"], ["s"]),
             helper.make_node("Cast", ["s"], ["sf"], to=TensorProto.FLOAT),
             helper.make_node("Div", ["sf", "k"], ["Y"])]
    yield _case("fold_div_float", nodes, {"X": x}, [("Y", TensorProto.FLOAT)], 14,
                {"k": np.array(3.0, np.float32)})
    # Folded and then used on the GPU: X * (1 / X.shape[3]).
    nodes = [helper.make_node("Shape", ["X"], ["s"], start=3),
             helper.make_node("Cast", ["s"], ["sf"], to=TensorProto.FLOAT),
             helper.make_node("Div", ["one", "sf"], ["inv"]),
             helper.make_node("Mul", ["X", "inv"], ["Y"])]
    yield _case("fold_then_gpu_mul", nodes, {"X": x}, [("Y", TensorProto.FLOAT)], 15,
                {"one": np.array([1.0], np.float32)})
    # Clip on int64 (index clamping in exported graphs).
    nodes = [helper.make_node("Shape", ["X"], ["s"]),
             helper.make_node("Sub", ["s", "k"], ["d"]),
             helper.make_node("Clip", ["d", "lo", "hi"], ["Y"])]
    yield _case("fold_clip_int64", nodes, {"X": x}, [("Y", TensorProto.INT64)], 13,
                {"k": np.array(5, np.int64), "lo": np.array(0, np.int64),
                 "hi": np.array(4, np.int64)})


def _dropout_identity_cases():
    for opset in (7, 10, 12, 13, 21):
        node = helper.make_node("Dropout", ["X"], ["Y"])
        yield _case(f"dropout_opset{opset}", [node], {"X": _rand((2, 3, 7))},
                    [("Y", TensorProto.FLOAT)], opset)
    node = helper.make_node("Dropout", ["X"], ["Y"], ratio=0.3)
    yield _case("dropout_ratio_attr", [node], {"X": _rand((3, 13))},
                [("Y", TensorProto.FLOAT)], 10)
    node = helper.make_node("Dropout", ["X", "ratio", "training_mode"], ["Y"])
    yield _case("dropout_ratio_training_false", [node], {"X": _rand((5, 7))},
                [("Y", TensorProto.FLOAT)], 13,
                {"ratio": np.array(0.5, np.float32), "training_mode": np.array(False)})
    node = helper.make_node("Dropout", ["X", "ratio"], ["Y", "mask"])
    yield _case("dropout_mask", [node], {"X": _rand((2, 13))},
                [("Y", TensorProto.FLOAT), ("mask", TensorProto.BOOL)], 13,
                {"ratio": np.array(0.1, np.float32)})
    # Dropout feeding a GPU op, and Identity chains.
    nodes = [helper.make_node("Dropout", ["X"], ["d"]), helper.make_node("Relu", ["d"], ["Y"])]
    yield _case("dropout_then_relu", nodes, {"X": _rand((3, 7, 5))},
                [("Y", TensorProto.FLOAT)], 13)
    for opset in (1, 13, 14, 16, 21):
        node = helper.make_node("Identity", ["X"], ["Y"])
        yield _case(f"identity_opset{opset}", [node], {"X": _rand((2, 3, 5))},
                    [("Y", TensorProto.FLOAT)], opset)
    nodes = [helper.make_node("Relu", ["X"], ["r"]), helper.make_node("Identity", ["r"], ["i"]),
             helper.make_node("Add", ["i", "r"], ["Y"])]
    yield _case("identity_between_ops", nodes, {"X": _rand((4, 9))},
                [("Y", TensorProto.FLOAT)], 14)
    node = helper.make_node("Identity", ["X"], ["Y"])
    yield _case("identity_int64", [node], {"X": _RNG.integers(-5, 5, size=(3, 4)).astype(np.int64)},
                [("Y", TensorProto.INT64)], 14)
    nodes = [helper.make_node("Identity", ["W"], ["w"]), helper.make_node("Add", ["X", "w"], ["Y"])]
    yield _case("identity_initializer", nodes, {"X": _rand((3, 5))}, [("Y", TensorProto.FLOAT)],
                14, {"W": _rand((3, 5))})


def cases():
    yield from _activation_cases()
    yield from _clip_cases()
    yield from _prelu_cases()
    yield from _binary_cases()
    yield from _fold_cases()
    yield from _dropout_identity_cases()
