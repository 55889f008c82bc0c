# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# The ops transformer exports add to the CNN set: Erf (BERT's GELU; also
# fused into Conv/Gemm/MatMul epilogues), Pow (GPT-2's x^3; negative bases,
# zero bases, fractional and negative powers, infinities, integer exponents
# of a float base), the comparisons Greater, Less, GreaterOrEqual,
# LessOrEqual (float with NaN and signed zeros, int32, int64 beyond 32 bits,
# int8), the logic ops And, Or, Xor, Not, the predicates IsNaN and IsInf
# (each detect mode), and GatherElements (axes, ranks 1-4, negative and int32
# indices, 1/2/4/8-byte data, a folded case). Every broadcast shape class,
# odd sizes, each opset variant. Expected outputs come from onnxruntime.
import numpy as np
from onnx import TensorProto, helper
from onnx_case import ELEM_TYPE, make_model

_RNG = np.random.default_rng(20261124)


_NAN, _INF = np.float32(np.nan), np.float32(np.inf)


def _rand(shape, dtype=np.float32, lo=-3.0, hi=3.0):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return _RNG.random(shape) > 0.5
    if dtype == np.int64:  # both words of each element matter
        return _RNG.integers(-(1 << 40), 1 << 40, size=shape).astype(np.int64)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return _RNG.integers(max(info.min, -100), min(info.max, 100), size=shape).astype(dtype)
    return _RNG.uniform(lo, hi, size=shape).astype(dtype)


def _case(name, nodes, inputs, outputs, opset, inits=None, **tol):
    case = {"name": name, "model": make_model(nodes, inputs, outputs, opset, inits), "inputs": inputs}
    case.update(tol)
    return case


_SHAPES = [(1,), (3,), (7, 13), (2, 3, 5, 7), (1, 127, 3)]
# (a shape, b shape) for each broadcast class: same, scalar either side,
# vector over the last dim, both sides broadcasting, rank mismatch.
_BROADCASTS = [((3, 7, 5), (3, 7, 5)), ((3, 7, 5), ()), ((), (13,)), ((3, 7, 5), (5,)),
               ((13, 1), (1, 7)), ((2, 1, 3, 1), (5, 1, 4)), ((127,), (127,))]


def _erf_cases():
    for opset in (9, 13):
        for i, shape in enumerate(_SHAPES):
            x = _rand(shape, lo=-4.0, hi=4.0)
            yield _case(f"erf_opset{opset}_{i}", [helper.make_node("Erf", ["X"], ["Y"])], {"X": x},
                        [("Y", TensorProto.FLOAT)], opset, atol=2e-7, rtol=1e-6)
    special = np.array([0.0, -0.0, 1e-3, -1e-3, 0.49, 0.5, 0.51, 1.0, 2.5, 3.0, 5.9, 6.0, 7.0, -7.0,
                        _INF, -_INF, _NAN], np.float32)
    yield _case("erf_special_values", [helper.make_node("Erf", ["X"], ["Y"])], {"X": special},
                [("Y", TensorProto.FLOAT)], 13, atol=2e-7, rtol=1e-6)
    # BERT's exact GELU: x * 0.5 * (1 + erf(x / sqrt(2))).
    x = _rand((2, 16, 512))
    nodes = [helper.make_node("Div", ["X", "sqrt2"], ["d"]), helper.make_node("Erf", ["d"], ["e"]),
             helper.make_node("Add", ["e", "one"], ["a"]), helper.make_node("Mul", ["X", "a"], ["m"]),
             helper.make_node("Mul", ["m", "half"], ["Y"])]
    yield _case("erf_gelu", nodes, {"X": x}, [("Y", TensorProto.FLOAT)], 13,
                {"sqrt2": np.array(1.4142135, np.float32), "one": np.array(1.0, np.float32),
                 "half": np.array(0.5, np.float32)}, atol=1e-6, rtol=1e-5)
    # Erf fused into a producer's epilogue (runtime/passes/fusion.cc): Conv (im2col
    # GEMM, 1x1, depthwise), Conv -> Erf -> residual Add, Gemm, MatMul -> bias
    # Add -> Erf (the BERT intermediate layer's shape).
    def conv(name, x_shape, w_shape, group=1, residual=False, **attrs):
        x = _rand(x_shape, lo=-1.0, hi=1.0)
        w = _rand(w_shape, lo=-1.0, hi=1.0)
        b = _rand((w_shape[0],), lo=-1.0, hi=1.0)
        nodes = [helper.make_node("Conv", ["X", "W", "B"], ["c"], group=group, **attrs),
                 helper.make_node("Erf", ["c"], ["e" if residual else "Y"])]
        feeds = {"X": x}
        if residual:
            feeds["R"] = _rand((x_shape[0], w_shape[0]) + x_shape[2:])
            nodes.append(helper.make_node("Add", ["e", "R"], ["Y"]))
        return _case(name, nodes, feeds, [("Y", TensorProto.FLOAT)], 13, {"W": w, "B": b},
                     atol=1e-6, rtol=1e-5)

    yield conv("erf_fused_conv3x3", (1, 3, 13, 7), (5, 3, 3, 3), pads=[1, 1, 1, 1])
    yield conv("erf_fused_conv1x1", (2, 8, 7, 7), (16, 8, 1, 1))
    yield conv("erf_fused_depthwise", (1, 7, 13, 13), (7, 1, 3, 3), group=7, pads=[1, 1, 1, 1])
    yield conv("erf_fused_conv_residual", (1, 4, 7, 13), (4, 4, 3, 3), residual=True, pads=[1, 1, 1, 1])
    a, w, b = _rand((3, 13)), _rand((13, 7), lo=-1.0, hi=1.0), _rand((7,))
    yield _case("erf_fused_gemm", [helper.make_node("Gemm", ["A", "W", "B"], ["g"]),
                                   helper.make_node("Erf", ["g"], ["Y"])],
                {"A": a}, [("Y", TensorProto.FLOAT)], 13, {"W": w, "B": b}, atol=1e-6, rtol=1e-5)
    x, w, b = _rand((2, 7, 32), lo=-1.0, hi=1.0), _rand((32, 127), lo=-0.5, hi=0.5), _rand((127,))
    yield _case("erf_fused_matmul_bias", [helper.make_node("MatMul", ["X", "W"], ["m"]),
                                          helper.make_node("Add", ["m", "B"], ["a"]),
                                          helper.make_node("Erf", ["a"], ["Y"])],
                {"X": x}, [("Y", TensorProto.FLOAT)], 13, {"W": w, "B": b}, atol=1e-6, rtol=1e-5)


def _pow_cases():
    def pw(name, a, b, opset=15, as_init=False, **tol):
        node = helper.make_node("Pow", ["A", "B"], ["Y"])
        if as_init:
            return _case(name, [node], {"A": a}, [("Y", TensorProto.FLOAT)], opset, {"B": b}, **tol)
        return _case(name, [node], {"A": a, "B": b}, [("Y", TensorProto.FLOAT)], opset, **tol)

    for opset in (7, 12, 13, 15):
        yield pw(f"pow_opset{opset}", _rand((3, 7, 5), lo=0.1, hi=3.0), _rand((3, 7, 5), lo=-2.0, hi=2.0),
                 opset, rtol=1e-5, atol=1e-6)
    for i, (sa, sb) in enumerate(_BROADCASTS):
        yield pw(f"pow_broadcast_{i}", _rand(sa, lo=0.1, hi=2.0), _rand(sb, lo=-2.0, hi=2.0),
                 rtol=1e-5, atol=1e-6)
    # GPT-2's tanh-GELU cube, and squares, roots, reciprocal powers.
    for name, e in (("cube", 3.0), ("square", 2.0), ("sqrt", 0.5), ("one", 1.0), ("zero", 0.0),
                    ("minus_two", -2.0)):
        base = _rand((2, 16, 128), lo=0.05 if e < 1 and e != 0 else -3.0, hi=3.0)
        yield pw(f"pow_scalar_{name}", base, np.array(e, np.float32), as_init=True, rtol=1e-5, atol=1e-6)
    # Negative bases: integer exponents are defined (sign by parity), others NaN.
    base = np.repeat(np.array([-3.0, -2.0, -1.5, -1.0, -0.5], np.float32), 8).reshape(5, 8)
    exps = np.tile(np.array([-3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, 0.5], np.float32), (5, 1))
    yield pw("pow_negative_base", base, exps, rtol=1e-5, atol=1e-6)
    # Zero bases: 0^positive = 0, 0^0 = 1, 0^negative = inf.
    zeros = np.zeros((6,), np.float32)
    yield pw("pow_zero_base", zeros, np.array([2.0, 0.5, 0.0, -1.0, -2.0, 3.0], np.float32))
    nan_inf = np.array([_NAN, _NAN, 2.0, _INF, -_INF, 1.0], np.float32)
    yield pw("pow_nan_inf", nan_inf, np.array([0.0, 2.0, _NAN, 2.0, 3.0, _INF], np.float32))
    # C's infinities: (-1)^+-inf = 1, (-inf)^y for fractional, negative and odd y,
    # 0.5^+-inf, +-inf exponents of negative bases.
    inf_a = np.array([-1.0, -1.0, -_INF, -_INF, -_INF, -_INF, -_INF, 0.5, 0.5, -0.5, -2.0, -2.0, _INF],
                     np.float32)
    inf_b = np.array([_INF, -_INF, 0.5, -0.5, 5.0, -1.0, -2.0, _INF, -_INF, _INF, _INF, -_INF, -0.5],
                     np.float32)
    yield pw("pow_infinities", inf_a, inf_b)
    # A float base with an integer exponent (onnx's T1): converted on the host
    # when known (the usual initializer), by a cast dispatch when computed.
    signed = _rand((3, 7, 5), lo=-3.0, hi=3.0)
    ints = np.array([-3, -2, -1, 0, 1, 2, 3], np.int64)
    for opset in (12, 13, 15):  # T1 (a separate exponent type) is opset 12's
        yield pw(f"pow_int64_exponent_opset{opset}", signed, np.array(3, np.int64), opset, as_init=True,
                 rtol=1e-5, atol=1e-6)
    yield pw("pow_int64_exponent_vector", signed, ints.reshape(7, 1), as_init=True, rtol=1e-5, atol=1e-6)
    yield pw("pow_int32_exponent_init", signed, np.array([2, -1, 3, 0, 1], np.int32), as_init=True,
             rtol=1e-5, atol=1e-6)
    yield pw("pow_int64_exponent_runtime", signed, np.tile(ints, 3).reshape(3, 7, 1), rtol=1e-5, atol=1e-6)
    yield pw("pow_int32_exponent_runtime", _rand((13, 1), lo=-2.0, hi=2.0),
             _RNG.integers(-3, 4, size=(1, 7)).astype(np.int32), rtol=1e-5, atol=1e-6)
    # Folded on the host (shape arithmetic): int64 bases with an int64 and a
    # float exponent make a Reshape's shape, [2, 3]^[2, 1] and [2, 9]^[2, 0.5].
    x = _rand((4, 3))
    for name, e in (("int64", np.array([2, 1], np.int64)), ("float", np.array([2.0, 0.5], np.float32))):
        nodes = [helper.make_node("Pow", ["S", "E"], ["shape"]),
                 helper.make_node("Reshape", ["X", "shape"], ["Y"])]
        base = np.array([2, 3] if name == "int64" else [2, 9], np.int64)
        yield _case(f"pow_folded_int64_base_{name}_exponent", nodes, {"X": x.reshape(12)},
                    [("Y", TensorProto.FLOAT)], 13, {"S": base, "E": e})


def _compare_cases():
    def cmp(op, name, a, b, opset):
        return _case(name, [helper.make_node(op, ["A", "B"], ["Y"])], {"A": a, "B": b},
                     [("Y", TensorProto.BOOL)], opset)

    for op, opsets in (("Greater", (7, 9, 13)), ("Less", (7, 9, 13)),
                       ("GreaterOrEqual", (12, 16)), ("LessOrEqual", (12, 16))):
        low = op.lower()
        for opset in opsets:
            a = _RNG.integers(-3, 3, size=(3, 7, 5)).astype(np.float32)
            b = _RNG.integers(-3, 3, size=(3, 7, 5)).astype(np.float32)
            a[0, 0, :4] = [_NAN, 1.0, -0.0, _INF]
            b[0, 0, :4] = [1.0, _NAN, 0.0, _INF]
            yield cmp(op, f"{low}_float_opset{opset}", a, b, opset)
        opset = opsets[-1]
        for i, (sa, sb) in enumerate(_BROADCASTS):
            yield cmp(op, f"{low}_broadcast_{i}", _rand(sa), _rand(sb), opset)
        # int64 values that differ only in the high word, or only in the low.
        a = np.array([1 << 40, -(1 << 40), 5, -5, (1 << 33) + 1, -1, 0, 7], np.int64)
        b = np.array([(1 << 40) + 1, -(1 << 40), -5, 5, (1 << 33), 1, 0, 7], np.int64)
        yield cmp(op, f"{low}_int64", a, b, opset)
        yield cmp(op, f"{low}_int64_broadcast", _rand((13, 1), np.int64), _rand((1, 7), np.int64), opset)
        yield cmp(op, f"{low}_int32", _rand((127,), np.int32), _rand((127,), np.int32), opset)
    yield cmp("Greater", "greater_int8", _rand((3, 13), np.int8), _rand((13,), np.int8), 13)
    yield cmp("Less", "less_uint8", _rand((3, 13), np.uint8), _rand((3, 1), np.uint8), 13)


def _logic_cases():
    for op in ("And", "Or", "Xor"):
        for i, (sa, sb) in enumerate(_BROADCASTS):
            yield _case(f"{op.lower()}_broadcast_{i}", [helper.make_node(op, ["A", "B"], ["Y"])],
                        {"A": _rand(sa, np.bool_), "B": _rand(sb, np.bool_)}, [("Y", TensorProto.BOOL)], 7)
    for i, shape in enumerate(_SHAPES):
        yield _case(f"not_{i}", [helper.make_node("Not", ["X"], ["Y"])], {"X": _rand(shape, np.bool_)},
                    [("Y", TensorProto.BOOL)], 1)
    # BERT's mask: ConstantOfShape(true) And Cast(bool) And GreaterOrEqual.
    m = _RNG.integers(0, 2, size=(2, 16)).astype(np.int64)
    nodes = [helper.make_node("Cast", ["M"], ["mb"], to=TensorProto.BOOL),
             helper.make_node("GreaterOrEqual", ["M", "zero"], ["ge"]),
             helper.make_node("And", ["mb", "ge"], ["both"]),
             helper.make_node("Not", ["both"], ["Y"])]
    yield _case("mask_and_not", nodes, {"M": m}, [("Y", TensorProto.BOOL)], 17,
                {"zero": np.array(1, np.int64)})


def _predicate_cases():
    x = np.array([0.0, -0.0, 1.0, -1.0, _NAN, _INF, -_INF, 3.4e38, -3.4e38, 1e-45], np.float32)
    for opset in (9, 13, 20):
        yield _case(f"isnan_opset{opset}", [helper.make_node("IsNaN", ["X"], ["Y"])], {"X": x},
                    [("Y", TensorProto.BOOL)], opset)
    big = _rand((7, 13))
    big[::3, ::2] = _NAN
    yield _case("isnan_odd", [helper.make_node("IsNaN", ["X"], ["Y"])], {"X": big},
                [("Y", TensorProto.BOOL)], 13)
    for pos, neg in ((1, 1), (1, 0), (0, 1), (0, 0)):
        yield _case(f"isinf_{pos}{neg}", [helper.make_node("IsInf", ["X"], ["Y"], detect_positive=pos,
                                                           detect_negative=neg)],
                    {"X": x}, [("Y", TensorProto.BOOL)], 10)
    yield _case("isinf_opset20", [helper.make_node("IsInf", ["X"], ["Y"])], {"X": x},
                [("Y", TensorProto.BOOL)], 20)
    # GPT-2's guard: Where(IsNaN(softmax), 0, softmax).
    s = _rand((2, 4, 16, 16))
    s[0, 0, 0, :3] = _NAN
    nodes = [helper.make_node("IsNaN", ["S"], ["n"]), helper.make_node("Where", ["n", "zero", "S"], ["Y"])]
    yield _case("isnan_where_guard", nodes, {"S": s}, [("Y", TensorProto.FLOAT)], 18,
                {"zero": np.array(0.0, np.float32)})


def _gather_elements_cases():
    def ge(name, data, indices, axis, opset=13, folded=False):
        node = helper.make_node("GatherElements", ["D", "I"], ["Y"], axis=axis)
        out = [("Y", ELEM_TYPE[data.dtype])]
        if folded:  # data and indices known at load: folded, then copied out by Identity
            node = helper.make_node("GatherElements", ["D", "I"], ["g"], axis=axis)
            add = helper.make_node("Add", ["g", "X"], ["Y"])
            x = _rand(indices.shape)
            return _case(name, [node, add], {"X": x}, out, opset, {"D": data, "I": indices})
        return _case(name, [node], {"D": data, "I": indices}, out, opset)

    def idx(shape, dim, dtype=np.int64, negative=False):
        lo = -dim if negative else 0
        return _RNG.integers(lo, dim, size=shape).astype(dtype)

    yield ge("gather_elements_opset11", _rand((3, 4)), idx((3, 4), 3), 0, 11)
    yield ge("gather_elements_rank1", _rand((13,)), idx((7,), 13), 0)
    yield ge("gather_elements_axis1", _rand((3, 7, 5)), idx((3, 4, 5), 7), 1)
    yield ge("gather_elements_axis_last", _rand((2, 3, 5, 7)), idx((2, 3, 5, 9), 7), -1)
    yield ge("gather_elements_smaller_indices", _rand((5, 9)), idx((3, 4), 9), 1)
    yield ge("gather_elements_negative", _rand((4, 127)), idx((4, 127), 127, negative=True), 1)
    yield ge("gather_elements_int32_indices", _rand((6, 5)), idx((6, 5), 6, np.int32), 0)
    yield ge("gather_elements_int64_data", _rand((3, 13), np.int64), idx((3, 13), 13), 1)
    yield ge("gather_elements_int32_data", _rand((3, 13), np.int32), idx((3, 7), 13), 1)
    yield ge("gather_elements_fp16_data", _rand((5, 7), np.float16), idx((5, 7), 5), 0)
    yield ge("gather_elements_uint8_data", _rand((5, 7), np.uint8), idx((5, 6), 7), 1)
    yield ge("gather_elements_bool_data", _rand((5, 7), np.bool_), idx((3, 7), 5), 0)
    yield ge("gather_elements_folded", _rand((4, 9)), idx((4, 9), 9), 1, folded=True)


def cases():
    yield from _erf_cases()
    yield from _pow_cases()
    yield from _compare_cases()
    yield from _logic_cases()
    yield from _predicate_cases()
    yield from _gather_elements_cases()
