# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# TopK with k * axis beyond 65,535, the loop iterations llvmpipe (lavapipe)
# lets one shader invocation run: the shape of torchvision SSD's per-class
# TopK (k = 300 of 3,234 anchors, most scores tied) and larger rows, with
# ties, inner dimensions and largest = 0; against onnxruntime.
import numpy as np
from onnx import TensorProto, helper
from onnx_case import make_model

_RNG = np.random.default_rng(20261207)


def _case(name, x, k, axis=-1, largest=1):
    node = helper.make_node("TopK", ["X", "K"], ["V", "I"], axis=axis, largest=largest)
    model = make_model([node], {"X": x}, [("V", TensorProto.FLOAT), ("I", TensorProto.INT64)], 13,
                       {"K": np.array([k], np.int64)})
    return {"name": name, "model": model, "inputs": {"X": x}}


def cases():
    # SSDlite's scores with random weights: a few one ulp above the rest.
    tied = np.full(3234, 1.0 / 91, np.float32)
    tied[_RNG.choice(3234, 19, replace=False)] = np.nextafter(np.float32(1.0 / 91), np.float32(1))
    yield _case("topk_long_axis_ties", tied, 300)
    yield _case("topk_long_axis_all_tied", np.full((2, 1500), 0.5, np.float32), 200, largest=0)
    yield _case("topk_long_axis_rows", _RNG.standard_normal((3, 4000)).astype(np.float32), 500)
    inner = _RNG.integers(0, 20, size=(2, 900, 3)).astype(np.float32)
    yield _case("topk_long_axis_inner", inner, 250, axis=1, largest=0)
