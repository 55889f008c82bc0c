# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Resize and Pad cases: every mode, coordinate transformation, nearest mode,
# scales vs sizes, axes and keep_aspect_ratio_policy, roi with
# tf_crop_and_resize; Pad's constant / reflect / edge / wrap modes, negative
# pads, axes, and the attribute (opset < 11) and input (opset >= 11) forms.
# Host-known inputs (pads, constant_value, axes, roi, scales, sizes) are
# initializers. Expected outputs come from onnxruntime.
import numpy as np
from onnx import TensorProto, helper, numpy_helper

_RNG = np.random.default_rng(20260503)


def _model(op, x, opset, consts, attrs):
    """consts: list of (name, array or None); None keeps an empty input slot."""
    inits, names = [], ["X"]
    for name, value in consts:
        if value is None:
            names.append("")
        else:
            inits.append(numpy_helper.from_array(value, name))
            names.append(name)
    while names and names[-1] == "":
        names.pop()
    elem = TensorProto.FLOAT if x.dtype == np.float32 else TensorProto.INT32
    node = helper.make_node(op, names, ["Y"], **attrs)
    graph = helper.make_graph([node], op.lower(),
                              [helper.make_tensor_value_info("X", elem, list(x.shape))],
                              [helper.make_tensor_value_info("Y", elem, None)], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def _x(shape, dtype=np.float32):
    if dtype == np.int32:
        return _RNG.integers(-100, 100, size=shape).astype(np.int32)
    return _RNG.uniform(-1.0, 1.0, size=shape).astype(np.float32)


# ---- Resize -----------------------------------------------------------------

def _resize(name, shape, opset=21, scales=None, sizes=None, roi=None, **attrs):
    x = _x(shape)
    f32 = lambda v: None if v is None else np.array(v, dtype=np.float32)
    if opset < 11:
        consts = [("scales", f32(scales))]
    else:
        consts = [("roi", f32(roi) if roi is not None else
                   (np.zeros(0, np.float32) if opset < 13 else None)),
                  ("scales", f32(scales) if scales is not None else
                   (np.zeros(0, np.float32) if opset < 13 and sizes is not None else None)),
                  ("sizes", None if sizes is None else np.array(sizes, dtype=np.int64))]
    return {"name": name, "model": _model("Resize", x, opset, consts, attrs), "inputs": {"X": x}}


def _resize_cases():
    # Resize-10: scales only, asymmetric coordinates.
    yield _resize("resize10_nearest_up2", (1, 3, 4, 5), 10, scales=[1, 1, 2, 2])
    yield _resize("resize10_nearest_down", (1, 2, 10, 9), 10, scales=[1, 1, 0.6, 0.5])
    yield _resize("resize10_linear_up", (1, 2, 5, 4), 10, scales=[1, 1, 2, 3], mode="linear")
    # Nearest modes x coordinate modes.
    for nm in ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil"):
        for cm in ("half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel",
                   "tf_half_pixel_for_nn"):
            if cm == "tf_half_pixel_for_nn" and nm != "round_prefer_floor":
                continue
            yield _resize(f"resize_nearest_{nm}_{cm}", (1, 2, 5, 7), 13 if cm.startswith("tf")
                          else 21, scales=[1, 1, 1.7, 0.6], mode="nearest", nearest_mode=nm,
                          coordinate_transformation_mode=cm)
    # Linear across coordinate modes, up and down.
    for cm in ("half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel",
               "half_pixel_symmetric"):
        yield _resize(f"resize_linear_up_{cm}", (2, 3, 6, 5), 21, scales=[1, 1, 2.5, 2],
                      mode="linear", coordinate_transformation_mode=cm)
        yield _resize(f"resize_linear_down_{cm}", (1, 3, 13, 11), 21, sizes=[1, 3, 7, 4],
                      mode="linear", coordinate_transformation_mode=cm)
    yield _resize("resize_nearest_half_pixel_symmetric", (1, 2, 7, 5), 19, scales=[1, 1, 1.5, 2.5],
                  coordinate_transformation_mode="half_pixel_symmetric")
    yield _resize("resize_linear_2d_input", (7, 9), 21, scales=[2, 0.5], mode="linear")
    yield _resize("resize_linear_3d_input", (2, 3, 10), 21, scales=[1, 1, 1.5], mode="linear")
    yield _resize("resize_linear_5d_trilinear", (1, 2, 3, 4, 5), 21, scales=[1, 1, 2, 1.5, 2],
                  mode="linear")
    yield _resize("resize_nearest_5d", (1, 2, 3, 4, 5), 21, sizes=[1, 2, 5, 4, 9])
    yield _resize("resize_nearest_1x1_to_7x7", (1, 127, 1, 1), 21, sizes=[1, 127, 7, 7])
    yield _resize("resize_linear_to_one_pixel", (1, 2, 9, 8), 21, sizes=[1, 2, 1, 1],
                  mode="linear", coordinate_transformation_mode="align_corners")
    # tf_crop_and_resize: roi and extrapolation.
    yield _resize("resize_crop_nearest", (1, 2, 8, 8), 11,
                  roi=[0, 0, 0.2, 0.3, 1, 1, 0.9, 1.2], sizes=[1, 2, 5, 6],
                  coordinate_transformation_mode="tf_crop_and_resize", extrapolation_value=-3.0)
    yield _resize("resize_crop_linear", (1, 3, 9, 7), 13,
                  roi=[0, 0, -0.1, 0.25, 1, 1, 0.8, 0.9], sizes=[1, 3, 6, 5], mode="linear",
                  coordinate_transformation_mode="tf_crop_and_resize", extrapolation_value=2.5)
    # Cubic.
    yield _resize("resize_cubic_up", (1, 2, 6, 7), 21, scales=[1, 1, 2, 1.5], mode="cubic")
    yield _resize("resize_cubic_down_align", (1, 2, 12, 10), 21, sizes=[1, 2, 5, 7],
                  mode="cubic", coordinate_transformation_mode="align_corners")
    yield _resize("resize_cubic_exclude_outside", (1, 3, 5, 6), 21, scales=[1, 1, 2, 2],
                  mode="cubic", exclude_outside=1, cubic_coeff_a=-0.5)
    yield _resize("resize_cubic_asymmetric", (2, 1, 7, 7), 13, scales=[1, 1, 1.3, 0.8],
                  mode="cubic", coordinate_transformation_mode="asymmetric")
    # Opset 11 / 13 input forms; opset 18 axes and keep_aspect_ratio_policy.
    yield _resize("resize11_sizes_empty_scales", (1, 3, 4, 6), 11, sizes=[1, 3, 8, 9],
                  mode="linear")
    yield _resize("resize11_scales", (1, 3, 4, 6), 11, scales=[1, 1, 2, 2])
    yield _resize("resize13_no_roi", (1, 3, 5, 5), 13, scales=[1, 1, 3, 3], mode="linear")
    yield _resize("resize18_axes_scales", (1, 4, 6, 7), 18, scales=[2, 0.5], axes=[2, 3],
                  mode="linear")
    yield _resize("resize18_axes_negative", (2, 3, 6, 7), 18, sizes=[9], axes=[-1])
    for policy in ("stretch", "not_larger", "not_smaller"):
        yield _resize(f"resize18_keep_aspect_{policy}", (1, 2, 6, 8), 18, sizes=[9, 10],
                      axes=[2, 3], keep_aspect_ratio_policy=policy, mode="linear")
    # Random shapes and scales.
    for i in range(6):
        h, w = (int(v) for v in _RNG.integers(1, 16, size=2))
        sh, sw = (float(v) for v in np.round(_RNG.uniform(0.5, 3.0, size=2), 2))
        mode = ("nearest", "linear")[i % 2]
        yield _resize(f"resize_random_{i}", (1, int(_RNG.integers(1, 5)), h, w), 21,
                      scales=[1, 1, sh, sw], mode=mode)


# ---- Pad --------------------------------------------------------------------

def _pad(name, shape, pads, opset=21, mode=None, value=None, axes=None, dtype=np.float32):
    x = _x(shape, dtype)
    attrs = {} if mode is None else {"mode": mode}
    if opset < 11:
        attrs["paddings" if opset < 2 else "pads"] = pads
        if value is not None:
            attrs["value"] = float(value)
        consts = []
    else:
        consts = [("pads", np.array(pads, dtype=np.int64)),
                  ("value", None if value is None else np.array(value, dtype=dtype)),
                  ("axes", None if axes is None else np.array(axes, dtype=np.int64))]
    return {"name": name, "model": _model("Pad", x, opset, consts, attrs), "inputs": {"X": x}}


def _pad_cases():
    nchw = [0, 0, 1, 2, 0, 0, 3, 1]
    for mode in ("constant", "reflect", "edge"):
        yield _pad(f"pad_{mode}_nchw", (2, 3, 7, 5), nchw, mode=mode)
        yield _pad(f"pad_{mode}_1d", (13,), [3, 4], mode=mode)
        yield _pad(f"pad_{mode}_opset2", (1, 3, 4, 4), nchw, opset=2, mode=mode)
        yield _pad(f"pad_{mode}_opset11", (1, 2, 5, 6), nchw, opset=11, mode=mode)
    yield _pad("pad_constant_value", (1, 3, 4, 5), [0, 1, 2, 0, 0, 2, 0, 1], value=-2.5)
    yield _pad("pad_constant_value_opset2", (2, 4, 3), [1, 0, 2, 0, 1, 1], opset=2, value=7.0)
    yield _pad("pad_constant_value_opset13", (3, 5), [1, 2, 2, 1], opset=13, value=0.5)
    yield _pad("pad_negative_crop", (1, 3, 9, 8), [0, 0, -2, 1, 0, -1, 3, -3])
    yield _pad("pad_negative_crop_edge", (2, 7, 6), [0, -1, 2, 0, -2, 1], mode="edge")
    yield _pad("pad_reflect_max", (1, 2, 4, 5), [0, 0, 3, 4, 0, 0, 3, 4], mode="reflect")
    yield _pad("pad_5d", (1, 2, 3, 4, 5), [0, 1, 1, 0, 2, 1, 0, 2, 1, 0])
    yield _pad("pad_noop", (2, 3, 4), [0, 0, 0, 0, 0, 0])
    yield _pad("pad_int32", (2, 3, 4), [1, 0, 2, 0, 1, 1], value=9, dtype=np.int32)
    yield _pad("pad_int32_reflect", (3, 6), [0, 2, 1, 3], mode="reflect", dtype=np.int32)
    yield _pad("pad18_axes", (2, 3, 5, 6), [1, 2, 3, 0], opset=18, axes=[2, -1], value=1.5)
    yield _pad("pad18_axes_reflect", (2, 3, 5, 6), [1, 3], opset=18, axes=[3], mode="reflect")
    yield _pad("pad19_wrap", (1, 2, 4, 5), [0, 0, 2, 3, 0, 0, 1, 4], opset=19, mode="wrap")
    yield _pad("pad19_wrap_axes", (3, 7), [2, 5], opset=19, mode="wrap", axes=[1])
    yield _pad("pad_one_element", (1, 1, 1, 1), [0, 0, 1, 1, 0, 0, 1, 1], mode="edge")
    # An empty input: the output is all padding.
    yield _pad("pad_empty_input", (0, 3), [1, 0, 1, 0], value=2.5)


def cases():
    yield from _resize_cases()
    yield from _pad_cases()
