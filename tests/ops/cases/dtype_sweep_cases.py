# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# GatherND over every data type the ONNX spec allows that vkserve holds
# (bool, 8- to 64-bit integers, float16, bfloat16, float, double) and CumSum
# over its types (int32, int64, uint32, uint64, float, double, float16,
# bfloat16), against onnxruntime where its CPU provider has the kernel and
# against exact numpy results elsewhere (integer-valued data, so every type
# holds the sums exactly). Plus the two patterns torch.onnx's dynamo exporter
# emits for transformers: a bool attention mask gathered by GatherND and
# int64 position ids made by CumSum.
import numpy as np
from onnx import TensorProto, helper
from onnx_case import ELEM_TYPE, make_model

_RNG = np.random.default_rng(20261124)


# Types whose CPU kernel onnxruntime lacks: the case brings numpy's result.
_ORT_GATHERND = {np.dtype(t) for t in (np.float32, np.float64, np.float16, np.int64, np.int32, np.int16,
                                       np.int8, np.uint8, np.uint16, np.uint32, np.uint64, np.bool_)}
_ORT_CUMSUM = {np.dtype(t) for t in (np.float32, np.float64, np.int32, np.int64)}


def _values(dtype, shape):
    """Integer-valued data every type holds, with negatives where signed."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return _RNG.integers(0, 2, size=shape).astype(np.bool_)
    low = 0 if dtype.kind in "ub" else -20
    return _RNG.integers(low, 20, size=shape).astype(dtype)


def _gather_nd(data, idx, batch_dims):
    """numpy GatherND (indices in range, possibly negative)."""
    k = idx.shape[-1]
    bshape = data.shape[:batch_dims]
    out = np.empty(idx.shape[:-1] + data.shape[batch_dims + k:], data.dtype)
    for b in np.ndindex(*bshape):
        rows = idx[b].reshape(-1, k)
        dst = out[b].reshape((-1,) + data.shape[batch_dims + k:])
        for r, tup in enumerate(rows):
            dst[r] = data[b + tuple(int(t) for t in tup)]
    return out


def _gathernd_cases():
    # (data shape, index shape, batch_dims): whole elements, rows, odd sizes
    # (narrow types then end mid-word), and batches.
    geometries = [((4, 5, 6), (3, 2, 2), 0), ((5, 7), (9, 2), 0), ((3, 9), (2, 1), 0),
                  ((2, 3, 5), (2, 3, 1), 1), ((7,), (5, 1), 0)]
    types = (np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.float16, np.int32, np.uint32,
             np.float32, np.int64, np.uint64, np.float64)
    for dtype in types:
        for g, (dshape, ishape, b) in enumerate(geometries):
            data = _values(dtype, dshape)
            k = ishape[-1]
            dims = np.array(dshape[b:b + k])
            idx = (_RNG.integers(0, 1 << 20, size=ishape) % dims - dims * _RNG.integers(0, 2, size=ishape)).astype(np.int64)
            node = helper.make_node("GatherND", ["D", "I"], ["Y"], batch_dims=b)
            case = {"name": f"dt_gathernd_{np.dtype(dtype).name}_{g}",
                    "model": make_model([node], {"D": data, "I": idx}, [("Y", ELEM_TYPE[np.dtype(dtype)])], 13),
                    "inputs": {"D": data, "I": idx}}
            if np.dtype(dtype) not in _ORT_GATHERND:
                case["expected"] = [_gather_nd(data, idx, b)]
            yield case
    # bfloat16 (numpy has none): float in, Cast to bfloat16 and back around the op.
    data = _values(np.float32, (4, 5, 6))
    idx = _RNG.integers(-4, 4, size=(3, 2, 2)).astype(np.int64)
    nodes = [helper.make_node("Cast", ["D"], ["Db"], to=TensorProto.BFLOAT16),
             helper.make_node("GatherND", ["Db", "I"], ["Yb"]),
             helper.make_node("Cast", ["Yb"], ["Y"], to=TensorProto.FLOAT)]
    yield {"name": "dt_gathernd_bfloat16", "inputs": {"D": data, "I": idx},
           "model": make_model(nodes, {"D": data, "I": idx}, [("Y", TensorProto.FLOAT)], 13),
           "expected": [_gather_nd(data, idx % np.array([4, 5]), 0)]}


def _cumsum(x, axis, exclusive, reverse):
    y = np.flip(x, axis) if reverse else x
    acc = np.cumsum(y, axis=axis, dtype=y.dtype)
    if exclusive:
        acc = np.concatenate([np.zeros_like(np.take(acc, [0], axis)),
                              np.take(acc, range(acc.shape[axis] - 1), axis)], axis)
    return np.flip(acc, axis) if reverse else acc


def _cumsum_cases():
    types = (np.int32, np.int64, np.uint32, np.uint64, np.float32, np.float64, np.float16)
    for dtype in types:
        for exclusive, reverse, axis, shape in ((0, 0, 1, (3, 7, 5)), (1, 0, 0, (6, 4)), (0, 1, -1, (2, 3, 9)),
                                                (1, 1, 1, (4, 33)), (0, 0, 0, (17,))):
            x = _values(dtype, shape)
            node = helper.make_node("CumSum", ["X", "axis"], ["Y"], exclusive=exclusive, reverse=reverse)
            case = {"name": f"dt_cumsum_{np.dtype(dtype).name}_e{exclusive}_r{reverse}_a{axis}".replace("-", "m"),
                    "model": make_model([node], {"X": x}, [("Y", ELEM_TYPE[np.dtype(dtype)])], 14,
                                    {"axis": np.array(axis, np.int64)}),
                    "inputs": {"X": x}}
            if np.dtype(dtype) not in _ORT_CUMSUM:
                case["expected"] = [_cumsum(x, axis, exclusive, reverse)]
            yield case
    # 64-bit wrap-around and carries between the words: values near 2^32 and 2^63.
    for dtype in (np.int64, np.uint64):
        x = np.array([[0xFFFFFFFF, 1, 0x7FFFFFFFFFFFFFFF, 1, 5], [-1, -1, 0xFFFFFFFF, 0xFFFFFFFF, 3]]
                     if dtype == np.int64 else
                     [[0xFFFFFFFF, 1, 0xFFFFFFFFFFFFFFFF, 2, 5], [1 << 63, 1 << 63, 0xFFFFFFFF, 0xFFFFFFFF, 3]],
                     dtype=object).astype(dtype)
        node = helper.make_node("CumSum", ["X", "axis"], ["Y"])
        case = {"name": f"dt_cumsum_{np.dtype(dtype).name}_carry",
                "model": make_model([node], {"X": x}, [("Y", ELEM_TYPE[np.dtype(dtype)])], 14,
                                {"axis": np.array(1, np.int64)}),
                "inputs": {"X": x}}
        if np.dtype(dtype) not in _ORT_CUMSUM:
            with np.errstate(over="ignore"):
                case["expected"] = [_cumsum(x, 1, 0, 0)]
        yield case
    # bfloat16: float in, Cast around the op; sums stay exact in bfloat16.
    x = _values(np.float32, (3, 8))
    nodes = [helper.make_node("Cast", ["X"], ["Xb"], to=TensorProto.BFLOAT16),
             helper.make_node("CumSum", ["Xb", "axis"], ["Yb"], reverse=1),
             helper.make_node("Cast", ["Yb"], ["Y"], to=TensorProto.FLOAT)]
    yield {"name": "dt_cumsum_bfloat16", "inputs": {"X": x},
           "model": make_model(nodes, {"X": x}, [("Y", TensorProto.FLOAT)], 14, {"axis": np.array(1, np.int64)}),
           "expected": [_cumsum(x, 1, 0, 1)]}


def _dynamo_mask_case():
    """transformers' padding mask as the dynamo exporter writes it: the bool
    mask [B, S] indexed by broadcast (batch, kv) index grids through GatherND,
    And-ed with a causal mask, then Where to an additive float mask."""
    b, s = 2, 7
    mask = np.ones((b, s), np.int64)
    mask[1, 4:] = 0
    i64 = lambda v: np.array(v, np.int64)
    nodes = [
        helper.make_node("Cast", ["attention_mask"], ["m"], to=TensorProto.BOOL),
        helper.make_node("Shape", ["attention_mask"], ["shp"]),
        helper.make_node("Gather", ["shp", "zero"], ["B"], axis=0),  # 0-d
        helper.make_node("Gather", ["shp", "one"], ["S"], axis=0),
        helper.make_node("Reshape", ["B", "one1"], ["B1"]),           # [1]
        helper.make_node("Reshape", ["S", "one1"], ["S1"]),
        helper.make_node("Range", ["zero", "B", "one"], ["bi"]),
        helper.make_node("Range", ["zero", "S", "one"], ["ki"]),
        helper.make_node("Reshape", ["bi", "bshape"], ["bi4"]),     # [B, 1, 1, 1]
        helper.make_node("Reshape", ["ki", "kshape"], ["ki4"]),     # [1, 1, 1, S]
        helper.make_node("Reshape", ["ki", "qshape"], ["qi4"]),     # [1, 1, S, 1]
        helper.make_node("Concat", ["B1", "one1", "S1", "S1"], ["full"], axis=0),
        helper.make_node("Expand", ["bi4", "full"], ["be"]),
        helper.make_node("Expand", ["ki4", "full"], ["ke"]),
        helper.make_node("Unsqueeze", ["be", "last"], ["bu"]),
        helper.make_node("Unsqueeze", ["ke", "last"], ["ku"]),
        helper.make_node("Concat", ["bu", "ku"], ["idx"], axis=-1),  # [B, 1, S, S, 2]
        helper.make_node("GatherND", ["m", "idx"], ["pad"]),         # bool [B, 1, S, S]
        helper.make_node("LessOrEqual", ["ki4", "qi4"], ["causal"]),
        helper.make_node("And", ["pad", "causal"], ["allowed"]),
        helper.make_node("Where", ["allowed", "zerof", "neginf"], ["Y"]),
    ]
    inits = {"zero": i64(0), "one": i64(1), "one1": i64([1]), "bshape": i64([-1, 1, 1, 1]),
             "kshape": i64([1, 1, 1, -1]), "qshape": i64([1, 1, -1, 1]), "last": i64([-1]),
             "zerof": np.float32(0), "neginf": np.float32(-3.4028234663852886e38)}
    model = make_model(nodes, {"attention_mask": mask}, [("Y", TensorProto.FLOAT)], 18, inits)
    return {"name": "dt_dynamo_bool_mask_gathernd", "model": model, "inputs": {"attention_mask": mask}}


def _dynamo_position_ids_case():
    """RoBERTa's position ids as the dynamo exporter writes them: int64
    CumSum of the non-padding mask along the sequence."""
    ids = _RNG.integers(2, 50, size=(3, 11)).astype(np.int64)
    ids[1, 7:] = 1  # padding_idx
    ids[2, 3:] = 1
    i64 = lambda v: np.array(v, np.int64)
    nodes = [
        helper.make_node("Not", ["eq"], ["ne"]),
        helper.make_node("Cast", ["ne"], ["mask32"], to=TensorProto.INT32),
        helper.make_node("Cast", ["mask32"], ["mask64"], to=TensorProto.INT64),
        helper.make_node("CumSum", ["mask64", "axis"], ["cs"]),
        helper.make_node("Cast", ["cs"], ["cs32"], to=TensorProto.INT32),
        helper.make_node("Mul", ["cs32", "mask32"], ["inc"]),
        helper.make_node("Cast", ["inc"], ["inc64"], to=TensorProto.INT64),
        helper.make_node("Add", ["inc64", "pad"], ["Y"]),
    ]
    nodes.insert(0, helper.make_node("Equal", ["input_ids", "pad"], ["eq"]))
    model = make_model(nodes, {"input_ids": ids}, [("Y", TensorProto.INT64)], 18,
                   {"axis": i64(1), "pad": i64(1)})
    return {"name": "dt_dynamo_int64_cumsum_position_ids", "model": model, "inputs": {"input_ids": ids}}


def cases():
    yield from _gathernd_cases()
    yield from _cumsum_cases()
    yield _dynamo_mask_case()
    yield _dynamo_position_ids_case()
