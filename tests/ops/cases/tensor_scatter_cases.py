# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# TensorScatter (opset 24, the KV-cache update) against onnxruntime: linear
# and circular writes (wrapping past the cache's end), write indices present
# or omitted, the sequence axis in the middle, second or last, an update as
# long as the cache, and element types of 1, 2, 4 and 8 bytes with element
# counts that end mid-word.
import numpy as np
from onnx import helper
from onnx_case import ELEM_TYPE, make_model

_RNG = np.random.default_rng(20261128)


def _values(shape, dtype):
    if np.dtype(dtype).kind == "f":
        return _RNG.standard_normal(shape).astype(dtype)
    info = np.iinfo(dtype)
    return _RNG.integers(max(info.min, -100), min(info.max, 100), size=shape, endpoint=True).astype(dtype)


def _case(name, cache_shape, seq, axis, mode, indices, dtype=np.float32):
    update_shape = list(cache_shape)
    update_shape[axis] = seq
    inputs = {"past": _values(cache_shape, dtype), "update": _values(update_shape, dtype)}
    names = ["past", "update"]
    if indices is not None:
        inputs["idx"] = np.array(indices, np.int64)
        names.append("idx")
    attrs = {"mode": mode}
    if axis != -2:
        attrs["axis"] = axis
    node = helper.make_node("TensorScatter", names, ["present"], **attrs)
    model = make_model([node], inputs, [("present", ELEM_TYPE[np.dtype(dtype)])], 24)
    return {"name": f"tensorscatter_{name}", "model": model, "inputs": inputs}


def cases():
    # [batch, heads, max_len, head_size], the default axis -2.
    yield _case("linear", (3, 2, 9, 5), 3, -2, "linear", [0, 4, 6])
    yield _case("no_indices", (2, 3, 7, 4), 2, -2, "linear", None)
    yield _case("circular_wraps", (3, 2, 9, 5), 4, -2, "circular", [7, 8, 2])
    yield _case("circular_big_index", (2, 1, 6, 3), 2, -2, "circular", [13, 5])
    yield _case("whole_cache", (2, 2, 5, 3), 5, -2, "linear", [0, 0])
    yield _case("decode_step", (4, 2, 16, 8), 1, -2, "linear", [15, 0, 3, 9])
    # [batch, max_len, hidden]: the axis second; then the axis last.
    yield _case("axis1", (2, 10, 3), 4, 1, "linear", [6, 1])
    yield _case("axis_last", (2, 3, 8), 5, -1, "circular", [6, 2])
    # Narrow and wide elements, odd counts (the last output word half full).
    yield _case("float16", (3, 1, 7, 3), 2, -2, "linear", [5, 0, 2], np.float16)
    yield _case("int8_odd", (1, 3, 7), 3, 1, "circular", [5], np.int8)
    yield _case("uint8_axis_last", (3, 5), 2, -1, "linear", [0, 3, 1], np.uint8)
    yield _case("int64", (2, 2, 6, 3), 3, -2, "circular", [4, 1], np.int64)
