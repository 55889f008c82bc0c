# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# GatherElements beyond the basic set in logic_math_cases.py: every axis of
# ranks 1-4 (positive and negative), ranks 5-8 (the kernel's limit is 8),
# indices larger than data along the axis and smaller in the other dims,
# negative int32 and int64 indices, each data width (bool, uint8, fp16,
# int32, float, int64) at odd counts so narrow elements end mid-word, enough
# elements for many workgroups, constant indices or data on the GPU path
# (too large to fold, or one side a graph input), and BERT's buffered
# token-type-ids idiom, which folds at load because everything in it follows
# from shapes. Expected outputs come from onnxruntime.
import numpy as np
from onnx import TensorProto, helper
from onnx_case import ELEM_TYPE, make_model

_RNG = np.random.default_rng(20261125)


def _rand(shape, dtype=np.float32):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return _RNG.random(shape) > 0.5
    if dtype == np.int64:  # values beyond 32 bits: both words of each element matter
        return _RNG.integers(-(1 << 40), 1 << 40, size=shape).astype(np.int64)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return _RNG.integers(max(info.min, -100), min(info.max, 100), size=shape).astype(dtype)
    return _RNG.uniform(-3.0, 3.0, size=shape).astype(dtype)


def _idx(shape, dim, dtype=np.int64, negative=False):
    """Indices into an axis of size `dim`; with `negative`, from [-dim, dim)."""
    return _RNG.integers(-dim if negative else 0, dim, size=shape).astype(dtype)


def _ge(name, data, indices, axis, opset=13, const=()):
    """GatherElements(D, I); names in `const` are initializers, not inputs."""
    node = helper.make_node("GatherElements", ["D", "I"], ["Y"], axis=axis)
    given = {"D": data, "I": indices}
    inputs = {k: v for k, v in given.items() if k not in const}
    inits = {k: v for k, v in given.items() if k in const}
    return {"name": name, "inputs": inputs,
            "model": make_model([node], inputs, [("Y", ELEM_TYPE[data.dtype])], opset, inits)}


def _axis_cases():
    # Every axis of ranks 1-4, as a positive and as a negative number; the
    # indices are longer than data along the axis and shorter elsewhere.
    for shape in [(13,), (5, 7), (3, 7, 5), (2, 3, 5, 7)]:
        rank = len(shape)
        for axis in range(rank):
            ishape = tuple(shape[d] + 2 if d == axis else max(1, shape[d] - 1) for d in range(rank))
            yield _ge(f"gather_elements_r{rank}_axis{axis}", _rand(shape),
                      _idx(ishape, shape[axis]), axis)
            yield _ge(f"gather_elements_r{rank}_axis_neg{rank - axis}", _rand(shape),
                      _idx(shape, shape[axis], np.int32, negative=True), axis - rank)


def _rank_cases():
    yield _ge("gather_elements_r5_axis3", _rand((2, 3, 1, 5, 3)), _idx((2, 2, 1, 4, 3), 5), 3)
    yield _ge("gather_elements_r6_axis0", _rand((3, 2, 2, 1, 3, 2)),
              _idx((5, 2, 1, 1, 3, 2), 3, negative=True), 0)
    yield _ge("gather_elements_r7_axis_neg2", _rand((2, 1, 3, 2, 1, 3, 2), np.int64),
              _idx((2, 1, 2, 2, 1, 4, 2), 3, np.int32), -2)
    yield _ge("gather_elements_r8_axis5", _rand((2, 2, 1, 3, 2, 3, 1, 3)),
              _idx((2, 2, 1, 3, 2, 5, 1, 3), 3, negative=True), 5)
    yield _ge("gather_elements_r8_axis_last_bool", _rand((1, 2, 2, 1, 3, 1, 2, 5), np.bool_),
              _idx((1, 2, 2, 1, 3, 1, 2, 3), 5, np.int32), -1)


def _dtype_cases():
    # Odd element counts so 1- and 2-byte outputs end mid-word.
    yield _ge("gather_elements_size1", _rand((1,)), _idx((1,), 1), 0)
    yield _ge("gather_elements_size1_2d", _rand((1, 1), np.int64), _idx((1, 1), 1), -1)
    yield _ge("gather_elements_bool_odd", _rand((9, 15), np.bool_), _idx((9, 13), 15, negative=True), 1)
    yield _ge("gather_elements_uint8_odd", _rand((7, 3), np.uint8), _idx((13, 3), 7, np.int32), 0)
    yield _ge("gather_elements_int8_neg", _rand((3, 5, 3), np.int8),
              _idx((3, 5, 1), 3, np.int64, negative=True), -1)
    yield _ge("gather_elements_fp16_odd", _rand((3, 9), np.float16), _idx((3, 11), 9, np.int32), 1)
    yield _ge("gather_elements_int32_neg", _rand((7, 13), np.int32),
              _idx((7, 13), 7, np.int32, negative=True), 0)
    yield _ge("gather_elements_int64_int32_idx", _rand((5, 3, 7), np.int64),
              _idx((5, 3, 7), 3, np.int32, negative=True), 1)
    yield _ge("gather_elements_float_idx_edges", _rand((4, 6)),
              np.array([[0, 5, -1, -6, 3, -3]] * 4, np.int64), 1)


def _opset_cases():
    # Opsets 11 (negative axis already allowed) and 13 (bfloat16 added) are the
    # two definitions; later opsets import 13's.
    for opset in (11, 13, 18, 21):
        yield _ge(f"gather_elements_opset{opset}_neg_axis", _rand((3, 7)),
                  _idx((3, 7), 7, negative=True), -1, opset)


def _large_and_const_cases():
    # Many workgroups.
    yield _ge("gather_elements_large", _rand((3, 127, 181)), _idx((3, 127, 180), 127), 1)
    yield _ge("gather_elements_large_bool", _rand((2, 3001), np.bool_),
              _idx((2, 3001), 3001, np.int32, negative=True), -1)
    # Both initializers but more than kMaxFoldElements (65536) outputs: not
    # folded, the kernel reads constants (indices range-checked at load).
    yield _ge("gather_elements_const_too_large_to_fold", _rand((9, 8000)),
              _idx((9, 8000), 9, negative=True), 0, const=("D", "I"))
    # Constant indices over a runtime tensor, and runtime indices into a
    # constant table.
    yield _ge("gather_elements_const_indices", _rand((5, 7)), _idx((5, 7), 7, np.int32), 1,
              const=("I",))
    yield _ge("gather_elements_const_data", _rand((6, 4), np.int64), _idx((3, 4), 6), 0,
              const=("D",))
    # Small constant data and indices: folded at load, then used on the GPU by
    # an Add so that the graph output is computed at run time.
    data, indices = _rand((3, 13)), _idx((3, 7), 13, np.int32, negative=True)
    nodes = [helper.make_node("GatherElements", ["D", "I"], ["g"], axis=-1),
             helper.make_node("Add", ["g", "X"], ["Y"])]
    x = _rand((3, 7))
    yield {"name": "gather_elements_folded_int32_neg", "inputs": {"X": x},
           "model": make_model(nodes, {"X": x}, [("Y", TensorProto.FLOAT)], 13, {"D": data, "I": indices})}


def _bert_token_type_case():
    # BERT (HF) exports token_type_ids = buffered_token_type_ids[:, :S]
    # .expand(N, S) as GatherElements(Expand(buffer), Slice(position_ids)),
    # axis 1. Everything depends on the input's shape only, so the chain folds
    # and the token-type embedding Gather runs on the GPU with constant ids.
    n, s, max_pos = 2, 7, 16
    ids = _RNG.integers(0, 100, size=(n, s)).astype(np.int64)
    table = _rand((3, 5))
    inits = {
        "buffer": _RNG.integers(0, 3, size=(1, max_pos)).astype(np.int64),
        "position_ids": np.arange(max_pos, dtype=np.int64).reshape(1, max_pos),
        "one": np.array(1, np.int64), "zero1": np.array([0], np.int64),
        "one1": np.array([1], np.int64), "ones2": np.array([1, 1], np.int64),
    }
    nodes = [
        helper.make_node("Shape", ["ids"], ["shape"]),
        helper.make_node("Gather", ["shape", "one"], ["seq"], axis=0),
        helper.make_node("Unsqueeze", ["seq", "zero1"], ["seq1"]),
        helper.make_node("Slice", ["position_ids", "zero1", "seq1", "one1"], ["pos"]),
        helper.make_node("Expand", ["buffer", "ones2"], ["buf"]),
        helper.make_node("GatherElements", ["buf", "pos"], ["tt"], axis=1),
        helper.make_node("Expand", ["tt", "shape"], ["token_type_ids"]),
        helper.make_node("Gather", ["table", "token_type_ids"], ["Y"], axis=0),
    ]
    inputs = {"ids": ids, "table": table}
    yield {"name": "gather_elements_bert_token_type_ids", "inputs": inputs,
           "model": make_model(nodes, inputs, [("Y", TensorProto.FLOAT)], 17, inits)}


def cases():
    yield from _axis_cases()
    yield from _rank_cases()
    yield from _dtype_cases()
    yield from _opset_cases()
    yield from _large_and_const_cases()
    yield from _bert_token_type_case()
