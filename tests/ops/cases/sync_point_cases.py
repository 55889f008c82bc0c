# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Ops whose output shapes depend on data (NonZero, Compress), which run at a
# sync point (runtime/sync_split.h): alone, with nodes after them (the
# suffix, planned for the count read back), with a prefix value the suffix
# also reads, with two sync points in a row, and with a count of zero;
# against onnxruntime.
import numpy as np
from onnx import TensorProto, helper, numpy_helper

_RNG = np.random.default_rng(20261125)

_ELEM = {
    np.dtype(np.float32): TensorProto.FLOAT,
    np.dtype(np.float16): TensorProto.FLOAT16,
    np.dtype(np.float64): TensorProto.DOUBLE,
    np.dtype(np.int64): TensorProto.INT64,
    np.dtype(np.int32): TensorProto.INT32,
    np.dtype(np.int8): TensorProto.INT8,
    np.dtype(np.uint8): TensorProto.UINT8,
    np.dtype(np.int16): TensorProto.INT16,
    np.dtype(np.bool_): TensorProto.BOOL,
}


def _case(name, nodes, inputs, outputs, opset=13, inits=None):
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info(n, _ELEM[a.dtype], list(a.shape)) for n, a in inputs.items()],
        [helper.make_tensor_value_info(n, t, None) for n, t in outputs],
        initializer=[numpy_helper.from_array(np.asarray(v), n) for n, v in (inits or {}).items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return {"name": name, "model": model, "inputs": inputs}


def _sparse(dtype, shape, density=0.4):
    x = _RNG.integers(1, 9, size=shape).astype(dtype)
    x[_RNG.random(shape) > density] = 0
    return x


def _nonzero_cases():
    for dtype, shape in ((np.float32, (3, 5)), (np.int64, (2, 3, 4)), (np.bool_, (7,)), (np.uint8, (5, 9)),
                         (np.float16, (4, 3)), (np.int32, (2, 2, 2, 3)), (np.float32, (300,))):
        x = _sparse(dtype, shape)
        node = helper.make_node("NonZero", ["X"], ["Y"])
        yield _case(f"sync_nonzero_{np.dtype(dtype).name}_{len(shape)}d", [node], {"X": x},
                    [("Y", TensorProto.INT64)])
    x = np.array([[0.0, -0.0, 1.5], [np.nan, 0.0, -2.0]], np.float32)  # -0.0 is zero, NaN is not
    yield _case("sync_nonzero_signed_zero", [helper.make_node("NonZero", ["X"], ["Y"])], {"X": x},
                [("Y", TensorProto.INT64)])
    yield _case("sync_nonzero_none", [helper.make_node("NonZero", ["X"], ["Y"])],
                {"X": np.zeros((4, 6), np.float32)}, [("Y", TensorProto.INT64)])
    # A suffix: the coordinates transposed and gathered from, as torch's
    # nonzero() exports (ONNX NonZero -> Transpose).
    x = _sparse(np.float32, (6, 7))
    nodes = [helper.make_node("NonZero", ["X"], ["nz"]),
             helper.make_node("Transpose", ["nz"], ["Y"], perm=[1, 0]),
             helper.make_node("GatherND", ["X", "Y"], ["V"])]
    yield _case("sync_nonzero_transpose_gathernd", nodes, {"X": x},
                [("Y", TensorProto.INT64), ("V", TensorProto.FLOAT)])
    # The suffix also reads a prefix value (r) that is no output of NonZero.
    x = _RNG.standard_normal((5, 8)).astype(np.float32)
    nodes = [helper.make_node("Relu", ["X"], ["r"]),
             helper.make_node("NonZero", ["r"], ["nz"]),
             helper.make_node("Cast", ["nz"], ["nzf"], to=TensorProto.FLOAT),
             helper.make_node("ReduceSum", ["nzf"], ["S"], keepdims=0),
             helper.make_node("Mul", ["r", "two"], ["R2"])]
    yield _case("sync_nonzero_crossing_value", nodes, {"X": x},
                [("S", TensorProto.FLOAT), ("R2", TensorProto.FLOAT)], inits={"two": np.float32(2)})


def _compress_cases():
    x = _RNG.standard_normal((4, 6, 5)).astype(np.float32)
    for axis, clen in ((None, 120), (None, 50), (0, 4), (1, 6), (1, 4), (-1, 5), (2, 9)):
        n = x.size if axis is None else x.shape[axis]
        cond = _RNG.random(clen) < 0.5
        kwargs = {} if axis is None else {"axis": axis}
        node = helper.make_node("Compress", ["X", "C"], ["Y"], **kwargs)
        tag = "flat" if axis is None else f"a{axis}".replace("-", "m")
        yield _case(f"sync_compress_{tag}_c{clen}", [node], {"X": x, "C": cond}, [("Y", TensorProto.FLOAT)], 11)
    for dtype in (np.uint8, np.int16, np.int64, np.bool_):
        xi = _sparse(dtype, (7, 3))
        cond = np.array([1, 0, 1, 1, 0, 0, 1], np.bool_)
        node = helper.make_node("Compress", ["X", "C"], ["Y"], axis=0)
        yield _case(f"sync_compress_{np.dtype(dtype).name}", [node], {"X": xi, "C": cond},
                    [("Y", _ELEM[np.dtype(dtype)])], 11)
    cond = np.zeros(6, np.bool_)
    node = helper.make_node("Compress", ["X", "C"], ["Y"], axis=1)
    yield _case("sync_compress_none", [node], {"X": x, "C": cond}, [("Y", TensorProto.FLOAT)], 11)
    # A computed condition, a suffix, and a second sync point after the first.
    nodes = [helper.make_node("ReduceMax", ["X"], ["m"], axes=[1, 2], keepdims=0),
             helper.make_node("Greater", ["m", "zero"], ["c0"]),
             helper.make_node("Compress", ["X", "c0"], ["rows"], axis=0),
             helper.make_node("ReduceMin", ["rows"], ["mn"], axes=[0, 2], keepdims=0),
             helper.make_node("Less", ["mn", "zero"], ["c1"]),
             helper.make_node("Compress", ["rows", "c1"], ["cols"], axis=1),
             helper.make_node("Sigmoid", ["cols"], ["Y"])]
    yield _case("sync_compress_twice", nodes, {"X": x}, [("Y", TensorProto.FLOAT)], 11,
                inits={"zero": np.float32(0.3)})


def cases():
    yield from _nonzero_cases()
    yield from _compress_cases()
