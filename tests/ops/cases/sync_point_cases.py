# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Ops whose output shapes depend on data (NonZero, Compress), which run at a
# sync point (runtime/sync_split.h): alone, with nodes after them (the
# suffix, planned for the count read back), with a prefix value the suffix
# also reads, with two sync points in a row, and with a count of zero;
# against onnxruntime.
import numpy as np
from onnx import TensorProto, helper
from onnx_case import ELEM_TYPE, make_model

_RNG = np.random.default_rng(20261125)


def _case(name, nodes, inputs, outputs, opset=13, inits=None):
    return {"name": name, "model": make_model(nodes, inputs, outputs, opset, inits), "inputs": inputs}


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
                    [("Y", ELEM_TYPE[np.dtype(dtype)])], 11)
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


def _nms_cases():
    def boxes(b, n):
        c = _RNG.uniform(0, 10, size=(b, n, 2)).astype(np.float32)
        s = _RNG.uniform(0.5, 4, size=(b, n, 2)).astype(np.float32)
        return np.concatenate([c, c + s], axis=2)  # [y1, x1, y2, x2]
    for i, (b, c, n, max_out, iou, thr, center) in enumerate([
            (1, 1, 12, 5, 0.5, 0.0, 0), (2, 3, 20, 4, 0.3, 0.4, 0), (1, 2, 33, 40, 0.6, None, 0),
            (2, 1, 9, 3, 0.5, 0.2, 1), (1, 1, 6, 0, 0.5, 0.0, 0)]):
        bx = boxes(b, n)
        sc = _RNG.random((b, c, n)).astype(np.float32)
        inputs = {"boxes": bx, "scores": sc}
        inits = {"max_out": np.array([max_out], np.int64), "iou": np.array([iou], np.float32)}
        names = ["boxes", "scores", "max_out", "iou"]
        if thr is not None:
            inits["thr"] = np.array([thr], np.float32)
            names.append("thr")
        node = helper.make_node("NonMaxSuppression", names, ["sel"], center_point_box=center)
        yield _case(f"sync_nms_{i}", [node], inputs, [("sel", TensorProto.INT64)], 11, inits)
    # Typical post-processing: the selected boxes gathered, scalars given as inputs.
    bx = boxes(1, 16)
    sc = _RNG.random((1, 1, 16)).astype(np.float32)
    scalars = {"max_out": np.array([6], np.int64), "iou": np.array([0.4], np.float32),
               "thr": np.array([0.3], np.float32)}
    nodes = [helper.make_node("NonMaxSuppression", ["boxes", "scores", "max_out", "iou", "thr"], ["sel"]),
             helper.make_node("Gather", ["sel", "two"], ["idx"], axis=1),
             helper.make_node("Gather", ["boxes", "idx"], ["picked"], axis=1)]
    yield _case("sync_nms_gather_boxes", nodes, dict({"boxes": bx, "scores": sc}, **scalars),
                [("picked", TensorProto.FLOAT)], 11, {"two": np.array(2, np.int64)})


def _unique_cases():
    outs4 = ["Y", "I", "V", "C"]
    for i, (dtype, shape, axis, srt) in enumerate([(np.float32, (17,), None, 1), (np.int64, (4, 6), None, 0),
                                                   (np.float32, (5, 3), 0, 1), (np.float32, (2, 6, 2), 1, 1),
                                                   (np.int64, (3, 7), -1, 0)]):
        x = _RNG.integers(-3, 3, size=shape).astype(dtype)
        if axis is not None:  # repeat some slices so there are duplicates
            x = np.take(x, _RNG.integers(0, shape[axis], size=shape[axis]), axis=axis)
        kwargs = {"sorted": srt} if axis is None else {"sorted": srt, "axis": axis}
        node = helper.make_node("Unique", ["X"], outs4, **kwargs)
        outputs = [("Y", ELEM_TYPE[np.dtype(dtype)])] + [(n, TensorProto.INT64) for n in outs4[1:]]
        yield _case(f"sync_unique_{i}", [node], {"X": np.ascontiguousarray(x)}, outputs, 11)
    # Only Y and counts, and a suffix: the counts summed equal the length.
    x = _RNG.integers(0, 5, size=(23,)).astype(np.int64)
    nodes = [helper.make_node("Unique", ["X"], ["Y", "", "", "C"]),
             helper.make_node("Cast", ["C"], ["Cf"], to=TensorProto.FLOAT),
             helper.make_node("ReduceSum", ["Cf"], ["S"], keepdims=0),
             helper.make_node("Mul", ["Y", "Y"], ["Y2"])]
    yield _case("sync_unique_suffix", nodes, {"X": x}, [("S", TensorProto.FLOAT), ("Y2", TensorProto.INT64)], 11)


def cases():
    yield from _unique_cases()
    yield from _nonzero_cases()
    yield from _compress_cases()
    yield from _nms_cases()
