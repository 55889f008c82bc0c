# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Large integer tensors on the GPU: int64/int32 Add, Sub, Mul, Div (with
# numpy broadcasting), Equal, Where and Gather over more than 65,536 elements
# — beyond host folding's limit, where a large batch's position and mask
# indices end up (bert_tiny at [520,128]) — and over 2^24 elements, whose
# dispatches need more than 65,535 workgroups in x. Values use both 32-bit
# words of an int64 (negative, beyond 2^32) so carries and sign extension
# show. Int64 tensors stop at 2^24 elements: lavapipe binds at most 128 MiB
# per storage buffer. Also host-known int64 tensors above the folding limit
# (computed from initializers and shapes), which become plan constants read
# by GPU kernels. Expected outputs come from onnxruntime.
import numpy as np
from onnx import TensorProto, helper
from onnx_case import ELEM_TYPE, make_model

_RNG = np.random.default_rng(20260601)


def _case(name, nodes, inputs, outputs, opset=17, inits=None):
    return {"name": name, "model": make_model(nodes, inputs, outputs, opset, inits), "inputs": inputs,
            "rtol": 0.0, "atol": 0.0}


def _ints(shape, dtype=np.int64, big=True):
    """Random integers; int64 ones spread over +-2^40 so both words matter."""
    if dtype == np.int64 and big:
        return _RNG.integers(-(1 << 40), 1 << 40, size=shape, dtype=np.int64)
    info = np.iinfo(dtype)
    return _RNG.integers(info.min // 2, info.max // 2, size=shape, dtype=dtype)


def _nonzero(shape, dtype=np.int64):
    v = _RNG.integers(1, 1 << 20, size=shape).astype(dtype)
    return np.where(_RNG.random(shape) < 0.5, -v, v).astype(dtype)


def _binary(name, op, a, b):
    out = ELEM_TYPE[np.result_type(a, b)]
    node = helper.make_node(op, ["A", "B"], ["C"])
    return _case(name, [node], {"A": a, "B": b}, [("C", out)])


def _binary_cases():
    # 300 x 257 = 77,100 elements: above 65,536, odd.
    for op in ("Add", "Sub", "Mul"):
        yield _binary(f"int64_large_{op.lower()}_same", op, _ints((300, 257)), _ints((300, 257)))
        yield _binary(f"int32_large_{op.lower()}_same", op, _ints((300, 257), np.int32),
                      _ints((300, 257), np.int32))
    # Mul wraps modulo 2^64 (products of +-2^40 values overflow).
    yield _binary("int64_large_mul_broadcast", "Mul", _ints((300, 1, 257)), _ints((1, 3, 257)))
    yield _binary("int64_large_add_scalar", "Add", _ints((77101,)), np.array([-(1 << 33)], np.int64))
    yield _binary("int64_large_add_vector", "Add", _ints((257, 300)), _ints((300,)))
    yield _binary("int64_large_div", "Div", _ints((300, 257)), _nonzero((300, 257)))
    yield _binary("int64_large_div_small", "Div", _ints((300, 257), big=False),
                  _nonzero((1, 257)))
    yield _binary("int32_large_div", "Div", _ints((300, 257), np.int32),
                  _nonzero((300, 257), np.int32))


def _select_cases():
    n = 77_003
    node = helper.make_node("Where", ["C", "X", "Y"], ["Z"])
    yield _case("int64_large_where", [node],
                {"C": _RNG.random((n,)) < 0.5, "X": _ints((n,)), "Y": _ints((1,))},
                [("Z", TensorProto.INT64)])
    node = helper.make_node("Equal", ["A", "B"], ["C"])
    a = _ints((300, 257))
    b = np.where(_RNG.random((300, 257)) < 0.5, a, a + (1 << 32))  # equal low words
    yield _case("int64_large_equal", [node], {"A": a, "B": b}, [("C", TensorProto.BOOL)])
    # Gather of int64 rows by int64 indices, and of int64 values by a large
    # int64 index tensor.
    node = helper.make_node("Gather", ["D", "I"], ["Y"], axis=0)
    yield _case("int64_large_gather", [node],
                {"D": _ints((1000, 77)), "I": _RNG.integers(-1000, 1000, size=(3, 400))},
                [("Y", TensorProto.INT64)])
    yield _case("int64_large_gather_indices", [node],
                {"D": _ints((5000,)), "I": _RNG.integers(0, 5000, size=(70_001,))},
                [("Y", TensorProto.INT64)])


def _host_known_cases():
    # bert's attention-mask indices: row offsets (Range(N) * S) + column
    # (Range(S)), all known at plan time, [N,1,1,S] with N*S = 66,560, then a
    # Gather of the flattened mask by them.
    n, s = 520, 128
    mk = helper.make_node
    nodes = [
        mk("Range", ["zero", "n", "one"], ["rows"]),
        mk("Range", ["zero", "s", "one"], ["cols"]),
        mk("Unsqueeze", ["rows", "axes_r"], ["rows4"]),
        mk("Unsqueeze", ["cols", "axes_c"], ["cols4"]),
        mk("Mul", ["rows4", "s"], ["offsets"]),
        mk("Add", ["cols4", "offsets"], ["index"]),
        mk("Flatten", ["M"], ["flat"], axis=0),
        mk("Reshape", ["flat", "minus1"], ["flat1"]),
        mk("Gather", ["flat1", "index"], ["Y"], axis=0),
        mk("Add", ["index", "X"], ["Z"]),
    ]
    inits = {"zero": np.array(0, np.int64), "one": np.array(1, np.int64),
             "n": np.array(n, np.int64), "s": np.array(s, np.int64),
             "axes_r": np.array([1, 2, 3], np.int64), "axes_c": np.array([0, 1, 2], np.int64),
             "minus1": np.array([-1], np.int64)}
    yield _case("int64_large_host_known_indices", nodes,
                {"M": _RNG.random((n, s)) < 0.75, "X": _ints((1, 1, 1, s))},
                [("Y", TensorProto.BOOL), ("Z", TensorProto.INT64)], inits=inits)


def _huge_cases():
    # 2^24 int64 outputs (128 MiB, lavapipe's largest binding) and > 2^24
    # bool ones: 65,536 or more workgroups, spread over x and y.
    yield _binary("int64_huge_add_broadcast", "Add", _ints((4096, 1)), _ints((1, 4096)))
    node = helper.make_node("Equal", ["A", "B"], ["C"])
    yield _case("int64_huge_equal_broadcast", [node],
                {"A": _RNG.integers(0, 64, size=(4099, 1)), "B": _RNG.integers(0, 64, size=(1, 4099))},
                [("C", TensorProto.BOOL)])
    yield _binary("int32_huge_mul_broadcast", "Mul", _ints((4099, 1), np.int32),
                  _ints((1, 4099), np.int32))


def cases():
    yield from _binary_cases()
    yield from _select_cases()
    yield from _host_known_cases()
    yield from _huge_cases()
