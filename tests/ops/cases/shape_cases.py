# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Shape-arithmetic cases: Shape, Constant, Reshape, Flatten, Squeeze,
# Unsqueeze, ConstantOfShape, Range, Equal and Cast across their opset
# variants, and multi-node shape subgraphs as exporters write them
# (Shape -> Gather -> Unsqueeze -> Concat -> Reshape, the BERT
# ConstantOfShape/Equal/Where/Expand idiom) which vkserve folds at plan time.
# Host-known inputs (shapes, axes) are initializers. Expected outputs come
# from onnxruntime.
import numpy as np
from onnx import TensorProto, helper, numpy_helper
from onnx_case import ELEM_TYPE, make_model

_RNG = np.random.default_rng(20260511)


def _rand(shape, dtype=np.float32):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return _RNG.random(shape) > 0.5
    if dtype.kind in "iu":
        lo = 0 if dtype.kind == "u" else -100
        return _RNG.integers(lo, 100, size=shape).astype(dtype)
    return _RNG.uniform(-2.0, 2.0, size=shape).astype(dtype)


def _case(name, nodes, inputs, outputs, opset, inits=None, **tol):
    case = {"name": name, "model": make_model(nodes, inputs, outputs, opset, inits), "inputs": inputs}
    case.update(tol)
    return case


def _i64(v):
    return np.array(v, dtype=np.int64)


def _shape_cases():
    x = _rand((2, 3, 7, 1))
    for opset in (1, 13, 15, 21):
        yield _case(f"shape_opset{opset}", [helper.make_node("Shape", ["X"], ["Y"])], {"X": x},
                    [("Y", TensorProto.INT64)], opset)
    for start, end in ((1, None), (None, -1), (-2, None), (1, 3), (0, 10), (-10, 2), (3, 1)):
        attrs = {k: v for k, v in (("start", start), ("end", end)) if v is not None}
        tag = f"{start}_{end}".replace("-", "m")
        yield _case(f"shape_slice_{tag}", [helper.make_node("Shape", ["X"], ["Y"], **attrs)],
                    {"X": x}, [("Y", TensorProto.INT64)], 15)
    yield _case("shape_of_scalar", [helper.make_node("Shape", ["X"], ["Y"])],
                {"X": np.array(1.5, dtype=np.float32)}, [("Y", TensorProto.INT64)], 13)
    yield _case("shape_of_int64", [helper.make_node("Shape", ["X"], ["Y"])],
                {"X": _rand((13,), np.int64)}, [("Y", TensorProto.INT64)], 21)


def _constant_cases():
    x = _rand((3, 5))
    c = _rand((2, 5))
    yield _case("constant_value_float", [
        helper.make_node("Constant", [], ["C"], value=numpy_helper.from_array(c)),
        helper.make_node("Concat", ["X", "C"], ["Y"], axis=0)], {"X": x},
        [("Y", TensorProto.FLOAT)], 13)
    yield _case("constant_opset1", [
        helper.make_node("Constant", [], ["C"], value=numpy_helper.from_array(c)),
        helper.make_node("Concat", ["X", "C"], ["Y"], axis=0)], {"X": x},
        [("Y", TensorProto.FLOAT)], 4)
    xi = _rand((4,), np.int64)
    yield _case("constant_value_int64", [
        helper.make_node("Constant", [], ["C"], value=numpy_helper.from_array(_i64([7, -3]))),
        helper.make_node("Concat", ["X", "C"], ["Y"], axis=0)], {"X": xi},
        [("Y", TensorProto.INT64)], 21)
    yield _case("constant_value_ints", [
        helper.make_node("Constant", [], ["C"], value_ints=[1, 2, 3]),
        helper.make_node("Concat", ["X", "C"], ["Y"], axis=0)], {"X": xi},
        [("Y", TensorProto.INT64)], 12)
    yield _case("constant_value_int", [
        helper.make_node("Constant", [], ["C"], value_int=-9),
        helper.make_node("Constant", [], ["A"], value_ints=[0]),
        helper.make_node("Unsqueeze", ["C", "A"], ["U"]),
        helper.make_node("Concat", ["U", "X"], ["Y"], axis=0)], {"X": xi},
        [("Y", TensorProto.INT64)], 13)
    xf = _rand((5,))
    yield _case("constant_value_floats", [
        helper.make_node("Constant", [], ["C"], value_floats=[0.5, -1.25]),
        helper.make_node("Concat", ["X", "C"], ["Y"], axis=0)], {"X": xf},
        [("Y", TensorProto.FLOAT)], 19)
    yield _case("constant_value_float_scalar", [
        helper.make_node("Constant", [], ["C"], value_float=3.25),
        helper.make_node("Unsqueeze", ["C"], ["U"], axes=[0]),
        helper.make_node("Concat", ["X", "U"], ["Y"], axis=0)], {"X": xf},
        [("Y", TensorProto.FLOAT)], 12)


def _reshape_cases():
    x = _rand((2, 3, 4, 5))
    for opset in (1, 4):
        yield _case(f"reshape_attr_opset{opset}",
                    [helper.make_node("Reshape", ["X"], ["Y"], shape=[6, -1])], {"X": x},
                    [("Y", TensorProto.FLOAT)], opset)
    shapes = {"infer": [6, -1, 2], "copy0": [0, 0, -1], "flat": [-1], "same": [2, 3, 4, 5],
              "ones": [1, 120, 1], "copy0_tail": [-1, 0, 4, 5]}
    for opset in (5, 13, 14, 21):
        for tag, shape in shapes.items():
            if opset in (13, 21) or tag in ("infer", "copy0"):
                yield _case(f"reshape_{tag}_opset{opset}",
                            [helper.make_node("Reshape", ["X", "S"], ["Y"])], {"X": x},
                            [("Y", TensorProto.FLOAT)], opset, {"S": _i64(shape)})
    yield _case("reshape_allowzero_nozero", [helper.make_node("Reshape", ["X", "S"], ["Y"], allowzero=1)],
                {"X": x}, [("Y", TensorProto.FLOAT)], 14, {"S": _i64([4, 30])})
    xz = np.zeros((2, 0, 3), dtype=np.float32)
    yield _case("reshape_allowzero_empty", [helper.make_node("Reshape", ["X", "S"], ["Y"], allowzero=1)],
                {"X": xz}, [("Y", TensorProto.FLOAT)], 14, {"S": _i64([0, 6])})
    yield _case("reshape_int64", [helper.make_node("Reshape", ["X", "S"], ["Y"])],
                {"X": _rand((13, 3), np.int64)}, [("Y", TensorProto.INT64)], 13,
                {"S": _i64([3, -1])})
    yield _case("reshape_bool", [helper.make_node("Reshape", ["X", "S"], ["Y"])],
                {"X": _rand((3, 7), np.bool_)}, [("Y", TensorProto.BOOL)], 13, {"S": _i64([7, 3])})
    yield _case("reshape_to_scalar", [helper.make_node("Reshape", ["X", "S"], ["Y"])],
                {"X": _rand((1, 1))}, [("Y", TensorProto.FLOAT)], 13, {"S": _i64([])})


def _flatten_cases():
    x = _rand((2, 3, 5, 7))
    for opset, axes in ((1, (0, 1, 2, 4)), (9, (1, 3)), (11, (-1, -4, 0, 2)), (13, (1, -2)),
                        (21, (4, -3))):
        for axis in axes:
            tag = str(axis).replace("-", "m")
            yield _case(f"flatten_axis{tag}_opset{opset}",
                        [helper.make_node("Flatten", ["X"], ["Y"], axis=axis)], {"X": x},
                        [("Y", TensorProto.FLOAT)], opset)
    yield _case("flatten_default", [helper.make_node("Flatten", ["X"], ["Y"])], {"X": x},
                [("Y", TensorProto.FLOAT)], 13)
    yield _case("flatten_int64", [helper.make_node("Flatten", ["X"], ["Y"], axis=2)],
                {"X": _rand((3, 1, 13), np.int64)}, [("Y", TensorProto.INT64)], 13)


def _squeeze_cases():
    x = _rand((1, 3, 1, 7, 1))
    for opset in (1, 11):
        for axes in ([0], [0, 2], [2, 4]) + (([-1, -5],) if opset == 11 else ()):
            tag = "_".join(str(a).replace("-", "m") for a in axes)
            yield _case(f"squeeze_attr_{tag}_opset{opset}",
                        [helper.make_node("Squeeze", ["X"], ["Y"], axes=axes)], {"X": x},
                        [("Y", TensorProto.FLOAT)], opset)
        yield _case(f"squeeze_all_opset{opset}", [helper.make_node("Squeeze", ["X"], ["Y"])],
                    {"X": x}, [("Y", TensorProto.FLOAT)], opset)
    for opset in (13, 21):
        for axes in ([0], [-3, 4], [0, 2, 4]):
            tag = "_".join(str(a).replace("-", "m") for a in axes)
            yield _case(f"squeeze_input_{tag}_opset{opset}",
                        [helper.make_node("Squeeze", ["X", "A"], ["Y"])], {"X": x},
                        [("Y", TensorProto.FLOAT)], opset, {"A": _i64(axes)})
        yield _case(f"squeeze_all_opset{opset}", [helper.make_node("Squeeze", ["X"], ["Y"])],
                    {"X": x}, [("Y", TensorProto.FLOAT)], opset)
    yield _case("squeeze_empty_axes", [helper.make_node("Squeeze", ["X", "A"], ["Y"])], {"X": x},
                [("Y", TensorProto.FLOAT)], 13, {"A": np.zeros(0, np.int64)})
    yield _case("squeeze_to_scalar", [helper.make_node("Squeeze", ["X"], ["Y"])],
                {"X": _rand((1, 1), np.int64)}, [("Y", TensorProto.INT64)], 13)


def _unsqueeze_cases():
    x = _rand((3, 7))
    for opset in (1, 11):
        for axes in ([0], [2], [0, 3]) + (([-1], [-1, 0]) if opset == 11 else ()):
            tag = "_".join(str(a).replace("-", "m") for a in axes)
            yield _case(f"unsqueeze_attr_{tag}_opset{opset}",
                        [helper.make_node("Unsqueeze", ["X"], ["Y"], axes=axes)], {"X": x},
                        [("Y", TensorProto.FLOAT)], opset)
    for opset in (13, 21):
        for axes in ([0], [1], [-1], [3, 0], [-1, 1, 0]):
            tag = "_".join(str(a).replace("-", "m") for a in axes)
            yield _case(f"unsqueeze_input_{tag}_opset{opset}",
                        [helper.make_node("Unsqueeze", ["X", "A"], ["Y"])], {"X": x},
                        [("Y", TensorProto.FLOAT)], opset, {"A": _i64(axes)})
    yield _case("unsqueeze_scalar", [helper.make_node("Unsqueeze", ["X", "A"], ["Y"])],
                {"X": np.array(5, dtype=np.int64)}, [("Y", TensorProto.INT64)], 13,
                {"A": _i64([0, 1])})


def _constant_of_shape_cases():
    def cos(name, x_shape, value=None, out_type=TensorProto.FLOAT, opset=21):
        attrs = {} if value is None else {"value": numpy_helper.from_array(value)}
        return _case(name, [helper.make_node("Shape", ["X"], ["S"]),
                            helper.make_node("ConstantOfShape", ["S"], ["Y"], **attrs)],
                     {"X": _rand(x_shape)}, [("Y", out_type)], opset)

    yield cos("constantofshape_default", (2, 3))
    yield cos("constantofshape_float", (3, 1, 7), np.array([1.5], np.float32), opset=9)
    yield cos("constantofshape_int64", (13,), _i64([-4]), TensorProto.INT64)
    yield cos("constantofshape_int32", (2, 5), np.array([9], np.int32), TensorProto.INT32)
    yield cos("constantofshape_bool", (3, 3), np.array([True]), TensorProto.BOOL)
    # Larger than the fold limit: filled on the GPU.
    yield cos("constantofshape_large_float", (300, 301), np.array([2.5], np.float32))
    yield cos("constantofshape_large_int64", (257, 300), _i64([7]), TensorProto.INT64)
    yield cos("constantofshape_large_int64_neg", (257, 300), _i64([-1]), TensorProto.INT64)
    yield cos("constantofshape_large_bool", (301, 257), np.array([True]), TensorProto.BOOL)
    yield _case("constantofshape_scalar", [
        helper.make_node("ConstantOfShape", ["S"], ["Y"], value=numpy_helper.from_array(_i64([3])))],
        {}, [("Y", TensorProto.INT64)], 13, {"S": np.zeros(0, np.int64)})


def _range_cases():
    def rng(name, start, limit, delta, dtype, out_type):
        vals = {"A": np.array(start, dtype), "B": np.array(limit, dtype), "C": np.array(delta, dtype)}
        return _case(name, [helper.make_node("Range", ["A", "B", "C"], ["Y"])], {},
                     [("Y", out_type)], 11, vals)

    yield rng("range_int64", 0, 10, 1, np.int64, TensorProto.INT64)
    yield rng("range_int64_step3", -7, 13, 3, np.int64, TensorProto.INT64)
    yield rng("range_int64_negative", 10, -3, -4, np.int64, TensorProto.INT64)
    yield rng("range_int64_empty", 5, 5, 1, np.int64, TensorProto.INT64)
    yield rng("range_int32", 3, 127, 5, np.int32, TensorProto.INT32)
    yield rng("range_float", 0.5, 7.25, 0.75, np.float32, TensorProto.FLOAT)
    yield rng("range_float_negative", 1.0, -2.0, -0.3, np.float32, TensorProto.FLOAT)
    yield rng("range_large_int64", 0, 100000, 1, np.int64, TensorProto.INT64)
    # Range over a folded shape dim, as BERT's position ids.
    yield _case("range_of_shape", [
        helper.make_node("Shape", ["X"], ["S"]),
        helper.make_node("Gather", ["S", "one"], ["N"], axis=0),
        helper.make_node("Range", ["zero", "N", "one"], ["Y"])],
        {"X": _rand((2, 13), np.int64)}, [("Y", TensorProto.INT64)], 17,
        {"zero": _i64(0), "one": _i64(1)})


def _equal_cast_cases():
    x = _rand((2, 3, 5))
    yield _case("equal_shape_folded", [
        helper.make_node("Shape", ["X"], ["S"]),
        helper.make_node("Equal", ["S", "C"], ["Y"])], {"X": x}, [("Y", TensorProto.BOOL)], 13,
        {"C": _i64([2, -1, 5])})
    yield _case("equal_broadcast_folded", [
        helper.make_node("Shape", ["X"], ["S"]),
        helper.make_node("Equal", ["S", "C"], ["E"]),
        helper.make_node("Cast", ["E"], ["Y"], to=TensorProto.INT64)], {"X": x},
        [("Y", TensorProto.INT64)], 11, {"C": _i64(3)})
    yield _case("cast_shape_to_float", [
        helper.make_node("Shape", ["X"], ["S"]),
        helper.make_node("Cast", ["S"], ["Y"], to=TensorProto.FLOAT)], {"X": x},
        [("Y", TensorProto.FLOAT)], 13)
    for opset in (6, 9, 13, 19, 21):
        yield _case(f"cast_shape_to_int32_opset{opset}", [
            helper.make_node("Shape", ["X"], ["S"]),
            helper.make_node("Cast", ["S"], ["Y"], to=TensorProto.INT32)], {"X": x},
            [("Y", TensorProto.INT32)], opset)


def _subgraph_cases():
    x = _rand((3, 7, 4))
    # x -> Shape -> Gather(0) -> Unsqueeze -> Concat(with [-1]) -> Reshape(x, .)
    for opset in (11, 13, 18):
        if opset >= 13:
            unsq = helper.make_node("Unsqueeze", ["G", "ax0"], ["U"])
            inits = {"zero": _i64(0), "minus1": _i64([-1]), "ax0": _i64([0])}
        else:
            unsq = helper.make_node("Unsqueeze", ["G"], ["U"], axes=[0])
            inits = {"zero": _i64(0), "minus1": _i64([-1])}
        yield _case(f"subgraph_reshape_batch_opset{opset}", [
            helper.make_node("Shape", ["X"], ["S"]),
            helper.make_node("Gather", ["S", "zero"], ["G"], axis=0),
            unsq,
            helper.make_node("Concat", ["U", "minus1"], ["T"], axis=0),
            helper.make_node("Reshape", ["X", "T"], ["Y"])], {"X": x},
            [("Y", TensorProto.FLOAT)], opset, inits)
    # Attention-head split as BERT exports it: [B, S, H*D] -> [B, S, H, D] -> [B, H, S, D].
    h = _rand((2, 13, 16))
    yield _case("subgraph_attention_heads", [
        helper.make_node("Shape", ["X"], ["S"]),
        helper.make_node("Gather", ["S", "i0"], ["B"], axis=0),
        helper.make_node("Gather", ["S", "i1"], ["L"], axis=0),
        helper.make_node("Unsqueeze", ["B", "ax0"], ["Bu"]),
        helper.make_node("Unsqueeze", ["L", "ax0"], ["Lu"]),
        helper.make_node("Concat", ["Bu", "Lu", "heads", "dim"], ["T"], axis=0),
        helper.make_node("Reshape", ["X", "T"], ["R"]),
        helper.make_node("Transpose", ["R"], ["Y"], perm=[0, 2, 1, 3])], {"X": h},
        [("Y", TensorProto.FLOAT)], 17,
        {"i0": _i64(0), "i1": _i64(1), "ax0": _i64([0]), "heads": _i64([4]), "dim": _i64([4])})
    # BERT's expand-shape idiom: Where(shape == -1, ones, shape) then Expand.
    m = _rand((2, 1, 1, 13), np.bool_)
    yield _case("subgraph_bert_expand_mask", [
        helper.make_node("Shape", ["X"], ["S"]),
        helper.make_node("Gather", ["S", "i0"], ["B"], axis=0),
        helper.make_node("Gather", ["S", "i3"], ["L"], axis=0),
        helper.make_node("Unsqueeze", ["B", "ax0"], ["Bu"]),
        helper.make_node("Unsqueeze", ["L", "ax0"], ["Lu"]),
        helper.make_node("Concat", ["Bu", "one", "Lu", "Lu"], ["C"], axis=0),
        helper.make_node("Reshape", ["C", "minus1"], ["R"]),
        helper.make_node("Shape", ["R"], ["RS"]),
        helper.make_node("ConstantOfShape", ["RS"], ["Ones"],
                         value=numpy_helper.from_array(_i64([1]))),
        helper.make_node("Equal", ["R", "neg"], ["E"]),
        helper.make_node("Where", ["E", "Ones", "R"], ["W"]),
        helper.make_node("Expand", ["X", "W"], ["Y"])], {"X": m},
        [("Y", TensorProto.BOOL)], 17,
        {"i0": _i64(0), "i3": _i64(3), "ax0": _i64([0]), "one": _i64([1]), "minus1": _i64([-1]),
         "neg": _i64([-1, -1, -1, -1])})
    # Shape -> Slice -> Concat -> Reshape (flattening the trailing dims).
    z = _rand((2, 3, 5, 7))
    yield _case("subgraph_slice_shape", [
        helper.make_node("Shape", ["X"], ["S"]),
        helper.make_node("Slice", ["S", "s0", "s2"], ["Head"]),
        helper.make_node("Concat", ["Head", "minus1"], ["T"], axis=0),
        helper.make_node("Reshape", ["X", "T"], ["Y"])], {"X": z},
        [("Y", TensorProto.FLOAT)], 13,
        {"s0": _i64([0]), "s2": _i64([2]), "minus1": _i64([-1])})
    # Squeeze / Unsqueeze / Flatten chains are aliases: no data moves.
    yield _case("subgraph_alias_chain", [
        helper.make_node("Unsqueeze", ["X", "ax0"], ["A"]),
        helper.make_node("Flatten", ["A"], ["B"], axis=2),
        helper.make_node("Squeeze", ["B", "ax0"], ["C"]),
        helper.make_node("Reshape", ["C", "s"], ["Y"])], {"X": _rand((1, 3, 7, 5))},
        [("Y", TensorProto.FLOAT)], 13, {"ax0": _i64([0]), "s": _i64([3, 7, 5])})


def cases():
    yield from _shape_cases()
    yield from _constant_cases()
    yield from _reshape_cases()
    yield from _flatten_cases()
    yield from _squeeze_cases()
    yield from _unsqueeze_cases()
    yield from _constant_of_shape_cases()
    yield from _range_cases()
    yield from _equal_cast_cases()
    yield from _subgraph_cases()
