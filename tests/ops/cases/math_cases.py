# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# The ONNX math op families against onnxruntime: the unary math ops and
# parameterized activations (each on its own domain), CastLike, every Reduce*
# (attribute axes, axes as an initializer, keepdims, noop_with_empty_axes),
# LogSoftmax and Hardmax, the variadic Min/Max/Sum/Mean with broadcasting, Mod
# (fmod 0 and 1), and the integer binary kernels on 1- and 2-byte types, all
# on odd shapes.
import numpy as np
from onnx import TensorProto, helper
from onnx_case import ELEM_TYPE, make_model

_RNG = np.random.default_rng(20261124)


_ODD = [(7,), (3, 13), (2, 3, 5, 7), (1, 127, 3)]


def _rand(shape, lo=-3.0, hi=3.0):
    return _RNG.uniform(lo, hi, size=shape).astype(np.float32)


def _case(name, nodes, inputs, out_type, opset, inits=None, **tol):
    case = {"name": name, "model": make_model(nodes, inputs, [("Y", out_type)], opset, inits), "inputs": inputs}
    case.update(tol)
    return case


# (op, opset, input range, attributes)
_UNARY = [
    ("Sqrt", 13, (0.0, 9.0), {}), ("Exp", 13, (-8.0, 8.0), {}), ("Log", 13, (0.01, 50.0), {}),
    ("Neg", 13, (-3.0, 3.0), {}), ("Abs", 13, (-3.0, 3.0), {}), ("Reciprocal", 13, (0.2, 4.0), {}),
    ("Floor", 13, (-5.0, 5.0), {}), ("Ceil", 13, (-5.0, 5.0), {}), ("Round", 11, (-5.0, 5.0), {}),
    ("Sign", 13, (-3.0, 3.0), {}), ("Sin", 7, (-6.0, 6.0), {}), ("Cos", 7, (-6.0, 6.0), {}),
    ("Tan", 7, (-1.4, 1.4), {}), ("Asin", 7, (-0.99, 0.99), {}), ("Acos", 7, (-0.99, 0.99), {}),
    ("Atan", 7, (-5.0, 5.0), {}), ("Sinh", 9, (-4.0, 4.0), {}), ("Cosh", 9, (-4.0, 4.0), {}),
    ("Asinh", 9, (-5.0, 5.0), {}), ("Acosh", 9, (1.01, 6.0), {}), ("Atanh", 9, (-0.95, 0.95), {}),
    ("Softplus", 1, (-30.0, 30.0), {}), ("Softsign", 1, (-5.0, 5.0), {}),
    ("Mish", 18, (-12.0, 8.0), {}),
    ("Elu", 6, (-4.0, 4.0), {"alpha": 0.7}), ("Selu", 6, (-4.0, 4.0), {}),
    ("Celu", 12, (-4.0, 4.0), {"alpha": 1.5}), ("ThresholdedRelu", 10, (-3.0, 3.0), {"alpha": 0.4}),
    ("Shrink", 9, (-3.0, 3.0), {"lambd": 0.8, "bias": 0.3}),
]


def _unary_cases():
    for op, opset, (lo, hi), attrs in _UNARY:
        for i, shape in enumerate(_ODD):
            x = _rand(shape, lo, hi)
            if op == "Round":  # halves, where half-to-even matters
                x[..., 0] = np.float32(2.5)
                x = np.round(x * 2) / 2
            node = helper.make_node(op, ["X"], ["Y"], **attrs)
            yield _case(f"math_{op.lower()}_{i}", [node], {"X": x}, TensorProto.FLOAT, opset)


def _cast_like_cases():
    x = _rand((3, 7), -100.0, 100.0)
    like = np.zeros((1,), np.int32)
    node = helper.make_node("CastLike", ["X", "like"], ["Y"])
    yield _case("math_castlike_to_int32", [node], {"X": x, "like": like}, TensorProto.INT32, 15)
    node = helper.make_node("CastLike", ["X", "like"], ["Y"])
    yield _case("math_castlike_from_int64", [node],
                {"X": _RNG.integers(-9, 9, size=(5, 3)).astype(np.int64),
                 "like": np.zeros((2,), np.float32)}, TensorProto.FLOAT, 19)


_REDUCE = ["ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1",
           "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"]


def _reduce_cases():
    # (shape, axes, keepdims): neighbouring axes merged, alternating, all, long rows.
    layouts = [((3, 5, 7), [1], 1), ((2, 3, 4, 5), [0, 2], 0), ((4, 6, 9), None, 1),
               ((3, 1000), [-1], 0), ((2, 300, 5), [1], 1)]
    for op in _REDUCE:
        lo, hi = (0.5, 1.5) if op in ("ReduceProd", "ReduceLogSum") else (-2.0, 2.0)
        for i, (shape, axes, keep) in enumerate(layouts):
            if op == "ReduceProd" and int(np.prod(shape)) > 200:
                continue  # products of hundreds of factors under/overflow
            x = _rand(shape, lo, hi)
            attrs = {"keepdims": keep}
            # Opset 13: axes as an attribute (ReduceSum: an input already).
            if op == "ReduceSum":
                inputs = ["X"] + (["axes"] if axes is not None else [])
                inits = {"axes": np.array(axes, np.int64)} if axes is not None else {}
                node = helper.make_node(op, inputs, ["Y"], **attrs)
                yield _case(f"math_{op.lower()}_13_{i}", [node], {"X": x}, TensorProto.FLOAT, 13,
                            inits, atol=1e-3)
            else:
                if axes is not None:
                    attrs["axes"] = axes
                node = helper.make_node(op, ["X"], ["Y"], **attrs)
                yield _case(f"math_{op.lower()}_13_{i}", [node], {"X": x}, TensorProto.FLOAT, 13,
                            atol=1e-3)
            # Opset 18: axes as an input (an initializer).
            inputs = ["X"] + (["axes"] if axes is not None else [])
            inits = {"axes": np.array(axes, np.int64)} if axes is not None else {}
            node = helper.make_node(op, inputs, ["Y"], keepdims=keep)
            yield _case(f"math_{op.lower()}_18_{i}", [node], {"X": x}, TensorProto.FLOAT, 18,
                        inits, atol=1e-3)
        node = helper.make_node(op, ["X"], ["Y"], noop_with_empty_axes=1)
        yield _case(f"math_{op.lower()}_noop", [node], {"X": _rand((2, 3))}, TensorProto.FLOAT, 18)


def _softmax_family_cases():
    for op in ("LogSoftmax", "Hardmax"):
        for i, (shape, axis) in enumerate([((3, 7), -1), ((2, 5, 9), 1), ((4, 600), 1),
                                           ((2, 3, 300), -1)]):
            x = _rand(shape, -5.0, 5.0)
            if op == "Hardmax":
                x = np.round(x)  # ties: the first maximum wins
            node = helper.make_node(op, ["X"], ["Y"], axis=axis)
            yield _case(f"math_{op.lower()}_{i}", [node], {"X": x}, TensorProto.FLOAT, 13)
        node = helper.make_node(op, ["X"], ["Y"], axis=1)
        yield _case(f"math_{op.lower()}_opset11_coerced", [node], {"X": _rand((2, 3, 4), -5, 5)},
                    TensorProto.FLOAT, 11)


def _variadic_cases():
    shapes = [[(3, 5, 7)], [(3, 5, 7), (5, 1)], [(2, 1, 7), (1, 4, 1), (7,)],
              [(13,), (13,), (13,), (13,)]]
    for op in ("Min", "Max", "Sum", "Mean"):
        for i, group in enumerate(shapes):
            names = [f"x{k}" for k in range(len(group))]
            inputs = {n: _rand(s) for n, s in zip(names, group)}
            node = helper.make_node(op, names, ["Y"])
            yield _case(f"math_{op.lower()}_{i}", [node], inputs, TensorProto.FLOAT, 13)
    for dtype in (np.int32, np.int64, np.uint8):
        lo = 0 if dtype == np.uint8 else -50
        a = _RNG.integers(lo, 50, size=(3, 7)).astype(dtype)
        b = _RNG.integers(lo, 50, size=(7,)).astype(dtype)
        for op in ("Min", "Max"):
            node = helper.make_node(op, ["a", "b"], ["Y"])
            yield _case(f"math_{op.lower()}_{np.dtype(dtype).name}", [node], {"a": a, "b": b},
                        ELEM_TYPE[np.dtype(dtype)], 13)


def _mod_cases():
    for dtype in (np.int32, np.int64, np.int8, np.uint16):
        signed = np.dtype(dtype).kind == "i"
        a = _RNG.integers(-100 if signed else 0, 100, size=(5, 7)).astype(dtype)
        b = _RNG.integers(1, 13, size=(7,)).astype(dtype)
        if signed:
            b = b * np.where(_RNG.random(7) < 0.5, -1, 1).astype(dtype)
        for fmod in (0, 1):
            node = helper.make_node("Mod", ["a", "b"], ["Y"], fmod=fmod)
            yield _case(f"math_mod_{np.dtype(dtype).name}_fmod{fmod}", [node], {"a": a, "b": b},
                        ELEM_TYPE[np.dtype(dtype)], 13)
    node = helper.make_node("Mod", ["a", "b"], ["Y"], fmod=1)
    yield _case("math_mod_float_fmod1", [node],
                {"a": _rand((3, 11), -20, 20), "b": _rand((11,), 0.5, 4.0)}, TensorProto.FLOAT, 13)


def _small_int_binary_cases():
    for dtype in (np.int8, np.uint8, np.int16, np.uint16):
        signed = np.dtype(dtype).kind == "i"
        for op in ("Add", "Sub", "Mul", "Div"):
            # Odd element counts leave part of the last packed word unused.
            a = _RNG.integers(-60 if signed else 1, 60, size=(3, 5, 7)).astype(dtype)
            b = _RNG.integers(1, 9, size=(5, 1)).astype(dtype)
            node = helper.make_node(op, ["a", "b"], ["Y"])
            yield _case(f"math_{op.lower()}_{np.dtype(dtype).name}", [node], {"a": a, "b": b},
                        ELEM_TYPE[np.dtype(dtype)], 14)


def _float16_cases():
    # The ops/binary_f16 and ops/unary_f16 shader variants; odd counts leave
    # half of the last word unused.
    for op in ("Add", "Sub", "Mul", "Div", "Max", "Min"):
        for i, (sa, sb) in enumerate([((3, 5, 7), (3, 5, 7)), ((2, 9, 5), (5,)), ((7,), ())]):
            a = _rand(sa).astype(np.float16)
            b = _rand(sb, 0.5, 3.0).astype(np.float16)
            node = helper.make_node(op, ["a", "b"], ["Y"])
            yield _case(f"math_f16_{op.lower()}_{i}", [node], {"a": a, "b": b}, TensorProto.FLOAT16, 13,
                        rtol=2e-3, atol=2e-3)
    for op in ("Relu", "Sigmoid", "Exp", "Neg", "Abs", "Sqrt", "Tanh", "Softplus"):
        lo = 0.0 if op == "Sqrt" else -3.0
        x = _rand((3, 11), lo, 3.0).astype(np.float16)
        node = helper.make_node(op, ["X"], ["Y"])
        yield _case(f"math_f16_{op.lower()}", [node], {"X": x}, TensorProto.FLOAT16, 14, rtol=2e-3, atol=2e-3)


def cases():
    yield from _float16_cases()
    yield from _unary_cases()
    yield from _cast_like_cases()
    yield from _reduce_cases()
    yield from _softmax_family_cases()
    yield from _variadic_cases()
    yield from _mod_cases()
    yield from _small_int_binary_cases()
