# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Col2Im (1 to 3 spatial dims, dilations, pads, strides; image_shape and
# block_shape as initializers and as request inputs) and RoiAlign (avg and
# max, both coordinate transforms, adaptive and fixed sampling, rois partly
# outside the image) and DeformConv (groups, offset groups, strides, pads,
# dilations, bias, mask), against onnxruntime.
import numpy as np
from onnx import TensorProto, helper, numpy_helper

_RNG = np.random.default_rng(20261127)


def _model(nodes, inputs, outputs, opset, inits=None):
    elem = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.int64): TensorProto.INT64}
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info(n, elem[a.dtype], list(a.shape)) for n, a in inputs.items()],
        [helper.make_tensor_value_info(n, t, None) for n, t in outputs],
        initializer=[numpy_helper.from_array(np.asarray(v), n) for n, v in (inits or {}).items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def _col2im_cases():
    for i, (image, block, dil, pads, strides, c) in enumerate([
            ((5, 5), (2, 2), (1, 1), (0, 0, 0, 0), (1, 1), 2), ((7, 6), (3, 2), (2, 1), (1, 0, 2, 1), (2, 1), 3),
            ((9,), (3,), (1,), (1, 1), (2,), 4), ((4, 5, 3), (2, 2, 2), (1, 1, 1), (0,) * 6, (1, 2, 1), 1)]):
        nd = len(image)
        blocks = [(image[d] + pads[d] + pads[nd + d] - dil[d] * (block[d] - 1) - 1) // strides[d] + 1
                  for d in range(nd)]
        x = _RNG.standard_normal((2, c * int(np.prod(block)), int(np.prod(blocks)))).astype(np.float32)
        node = helper.make_node("Col2Im", ["X", "image_shape", "block_shape"], ["Y"], dilations=list(dil),
                                pads=list(pads), strides=list(strides))
        shapes = {"image_shape": np.array(image, np.int64), "block_shape": np.array(block, np.int64)}
        if i % 2 == 0:
            yield {"name": f"img_col2im_{i}", "inputs": {"X": x},
                   "model": _model([node], {"X": x}, [("Y", TensorProto.FLOAT)], 18, shapes)}
        else:  # the shapes arrive with the request
            inputs = dict({"X": x}, **shapes)
            yield {"name": f"img_col2im_{i}_inputs", "inputs": inputs,
                   "model": _model([node], inputs, [("Y", TensorProto.FLOAT)], 18)}


def _roi_align_cases():
    x = _RNG.standard_normal((2, 3, 10, 12)).astype(np.float32)
    rois = np.array([[0, 0, 9, 9], [1.5, 2.25, 7.5, 8], [-2, -1, 4, 3], [6, 5, 14, 12], [3, 3, 3.5, 3.2]],
                    np.float32)
    batch = np.array([0, 1, 1, 0, 1], np.int64)
    for i, (mode, ct, oh, ow, ratio, scale, opset) in enumerate([
            ("avg", "half_pixel", 3, 4, 2, 1.0, 16), ("avg", "output_half_pixel", 5, 5, 0, 0.5, 16),
            ("max", "half_pixel", 2, 3, 0, 1.0, 16), ("max", "output_half_pixel", 4, 2, 3, 0.8, 16),
            ("avg", None, 3, 3, 0, 1.0, 10)]):
        kwargs = {"mode": mode, "output_height": oh, "output_width": ow, "sampling_ratio": ratio,
                  "spatial_scale": scale}
        if ct is not None:
            kwargs["coordinate_transformation_mode"] = ct
        node = helper.make_node("RoiAlign", ["X", "rois", "batch"], ["Y"], **kwargs)
        inputs = {"X": x, "rois": rois, "batch": batch}
        yield {"name": f"img_roialign_{i}", "inputs": inputs,
               "model": _model([node], inputs, [("Y", TensorProto.FLOAT)], opset), "atol": 1e-4}


def _deform_conv_cases():
    for i, (n, c, h, w, oc, k, group, og, strides, pads, dil, bias, mask) in enumerate([
            (1, 2, 6, 7, 3, (3, 3), 1, 1, (1, 1), (1, 1, 1, 1), (1, 1), True, False),
            (2, 4, 8, 6, 4, (2, 3), 2, 2, (2, 1), (0, 1, 1, 0), (1, 2), False, True),
            (1, 6, 5, 5, 6, (3, 3), 3, 3, (1, 1), (0, 0, 0, 0), (1, 1), True, True)]):
        oh = (h + pads[0] + pads[2] - dil[0] * (k[0] - 1) - 1) // strides[0] + 1
        ow = (w + pads[1] + pads[3] - dil[1] * (k[1] - 1) - 1) // strides[1] + 1
        inputs = {"X": _RNG.standard_normal((n, c, h, w)).astype(np.float32),
                  "W": _RNG.standard_normal((oc, c // group, *k)).astype(np.float32),
                  "offset": _RNG.uniform(-2, 2, size=(n, og * 2 * k[0] * k[1], oh, ow)).astype(np.float32)}
        names = ["X", "W", "offset"]
        if bias or mask:
            inputs["B"] = _RNG.standard_normal((oc,)).astype(np.float32)
            names.append("B" if bias else "")
        if mask:
            inputs["mask"] = _RNG.random((n, og * k[0] * k[1], oh, ow)).astype(np.float32)
            names.append("mask")
        if not bias:
            inputs.pop("B", None)
        node = helper.make_node("DeformConv", names, ["Y"], kernel_shape=list(k), group=group, offset_group=og,
                                strides=list(strides), pads=list(pads), dilations=list(dil))
        yield {"name": f"img_deformconv_{i}", "inputs": inputs, "atol": 1e-4,
               "model": _model([node], inputs, [("Y", TensorProto.FLOAT)], 19)}


def cases():
    yield from _deform_conv_cases()
    yield from _col2im_cases()
    yield from _roi_align_cases()
