# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# NonMaxSuppression at detection-model sizes: thousands of boxes per class
# (past one ranking tile and one greedy dispatch of the kernel), many
# classes and batches, tied scores (the lower box index first), center boxes,
# score thresholds, no iou_threshold, every box kept, and SSDlite's nearly
# all-tied scores; against onnxruntime.
import numpy as np
from onnx import TensorProto, helper
from onnx_case import make_model

_RNG = np.random.default_rng(20261206)


def _boxes(b, n, extent=100.0, center=False):
    c = _RNG.uniform(0, extent, size=(b, n, 2)).astype(np.float32)
    s = _RNG.uniform(1, extent / 8, size=(b, n, 2)).astype(np.float32)
    if center:
        return np.concatenate([c, s], axis=2)  # [x_center, y_center, width, height]
    corners = np.concatenate([c, c + s], axis=2)  # [y1, x1, y2, x2]
    flip = _RNG.random((b, n)) < 0.3  # some given as (y2, x2, y1, x1)
    corners[flip] = corners[flip][:, [2, 3, 0, 1]]
    return corners


def _case(name, bx, sc, max_out=None, iou=None, thr=None, center=0):
    inits, names = {}, ["boxes", "scores"]
    for key, value, dtype in (("max_out", max_out, np.int64), ("iou", iou, np.float32),
                              ("thr", thr, np.float32)):
        if value is None:
            names.append("")
        else:
            inits[key] = np.array([value], dtype)
            names.append(key)
    while names[-1] == "":
        names.pop()
    node = helper.make_node("NonMaxSuppression", names, ["sel"], center_point_box=center)
    inputs = {"boxes": bx, "scores": sc}
    model = make_model([node], inputs, [("sel", TensorProto.INT64)], 11, inits)
    return {"name": name, "model": model, "inputs": inputs}


def cases():
    yield _case("nms_large_classes", _boxes(1, 3000), _RNG.random((1, 20, 3000)).astype(np.float32),
                100, 0.5, 0.05)
    # Scores of eight values: long runs of ties, every survivor kept.
    tied = (_RNG.integers(0, 8, size=(2, 3, 2500)) / 8).astype(np.float32)
    yield _case("nms_large_ties_all", _boxes(2, 2500), tied, 2500, 0.45)
    yield _case("nms_large_center", _boxes(1, 4000, center=True),
                _RNG.random((1, 4, 4000)).astype(np.float32), 500, 0.3, 0.2, center=1)
    # No iou_threshold: any overlap suppresses.
    yield _case("nms_large_no_iou", _boxes(1, 2200), _RNG.random((1, 2, 2200)).astype(np.float32), 1000)
    # Disjoint boxes on a grid, every one above the threshold kept.
    g = np.arange(3000, dtype=np.float32)
    grid = np.stack([(g // 60) * 2, (g % 60) * 2, (g // 60) * 2 + 1, (g % 60) * 2 + 1], axis=1)[None]
    yield _case("nms_large_disjoint", grid, _RNG.random((1, 1, 3000)).astype(np.float32), 3000, 0.5, 0.1)
    # SSDlite's shape with random weights: 3,234 scores of 1/91, 19 one ulp above.
    ssd = np.full((1, 12, 3234), 1.0 / 91, np.float32)
    for c in range(12):
        ssd[0, c, _RNG.choice(3234, 19, replace=False)] = np.nextafter(np.float32(1.0 / 91), np.float32(1))
    yield _case("nms_large_ssdlite_ties", _boxes(1, 3234, extent=320.0), ssd, 300, 0.55, 0.001)
    # No boxes at all.
    yield _case("nms_large_empty", np.zeros((2, 0, 4), np.float32), np.zeros((2, 3, 0), np.float32),
                10, 0.5, 0.1)
