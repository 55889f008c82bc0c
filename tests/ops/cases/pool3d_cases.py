# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# 3-D windows beyond Conv: MaxPool (with its Indices), AveragePool and LpPool
# over NCDHW inputs with strides, pads (asymmetric, and every auto_pad),
# dilations, ceil_mode and count_include_pad, on fp32 and fp16 tensors (the
# fp16 ones against the fp32 pool between Casts); ConvTranspose 3-D with
# strides, pads, dilations, groups and depthwise, output_padding,
# output_shape and auto_pad. Expected outputs come from onnxruntime.
import numpy as np
from onnx import TensorProto, helper, numpy_helper

_RNG = np.random.default_rng(20261207)


def _rand(*shape):
    return _RNG.uniform(-1.0, 1.0, size=shape).astype(np.float32)


def _model(nodes, inputs, outputs, inits=None, opset=21, dtype=TensorProto.FLOAT):
    graph = helper.make_graph(
        nodes, "pool3d",
        [helper.make_tensor_value_info(k, dtype, list(v.shape)) for k, v in inputs.items()],
        [helper.make_tensor_value_info(name, t, None) for name, t in outputs],
        initializer=[numpy_helper.from_array(v, k) for k, v in (inits or {}).items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def pool(name, op, x_shape, indices=False, f16=False, opset=21, **attrs):
    x = _rand(*x_shape)
    outs = ["Y", "I"] if indices else ["Y"]
    out_types = [("Y", TensorProto.FLOAT)] + ([("I", TensorProto.INT64)] if indices else [])
    if not f16:
        node = helper.make_node(op, ["X"], outs, **attrs)
        return {"name": name, "model": _model([node], {"X": x}, out_types, opset=opset),
                "inputs": {"X": x}}
    h = TensorProto.FLOAT16
    x = x.astype(np.float16)
    model = _model([helper.make_node(op, ["X"], ["Y"], **attrs)], {"X": x}, [("Y", h)],
                   opset=opset, dtype=h)
    ref = _model([helper.make_node("Cast", ["X"], ["X32"], to=TensorProto.FLOAT),
                  helper.make_node(op, ["X32"], ["Y32"], **attrs),
                  helper.make_node("Cast", ["Y32"], ["Y"], to=h)],
                 {"X": x}, [("Y", h)], opset=opset, dtype=h)
    return {"name": name, "model": model, "inputs": {"X": x}, "reference_model": ref,
            "rtol": 2e-3, "atol": 2e-3}


def conv_transpose(name, n, c, spatial, m, kernel, group=1, bias=True, **attrs):
    x = _rand(n, c, *spatial)
    w = (_rand(c, m // group, *kernel) / np.sqrt(c // group * np.prod(kernel))).astype(np.float32)
    inits = {"W": w}
    names = ["X", "W"]
    if bias:
        inits["B"] = _rand(m)
        names.append("B")
    if group != 1:
        attrs["group"] = group
    node = helper.make_node("ConvTranspose", names, ["Y"], **attrs)
    return {"name": name, "model": _model([node], {"X": x}, [("Y", TensorProto.FLOAT)], inits),
            "inputs": {"X": x}, "atol": 1e-5}


def _max_pool_cases():
    yield pool("maxpool3d_2x2x2_s2", "MaxPool", (2, 3, 8, 9, 7), kernel_shape=[2, 2, 2],
               strides=[2, 2, 2])
    yield pool("maxpool3d_r3d_stem", "MaxPool", (1, 4, 7, 14, 14), kernel_shape=[1, 3, 3],
               strides=[1, 2, 2], pads=[0, 1, 1, 0, 1, 1])
    yield pool("maxpool3d_asym_pads", "MaxPool", (1, 3, 6, 7, 9), kernel_shape=[3, 2, 3],
               strides=[1, 2, 2], pads=[1, 0, 2, 2, 1, 0])
    yield pool("maxpool3d_dilations", "MaxPool", (1, 2, 9, 8, 10), kernel_shape=[2, 3, 2],
               dilations=[3, 2, 2], strides=[1, 2, 1])
    yield pool("maxpool3d_ceil", "MaxPool", (1, 2, 7, 9, 8), kernel_shape=[2, 3, 3],
               strides=[2, 2, 3], ceil_mode=1)
    yield pool("maxpool3d_ceil_pads_dil", "MaxPool", (1, 2, 8, 7, 9), kernel_shape=[3, 2, 2],
               strides=[2, 3, 2], pads=[1, 1, 0, 1, 0, 1], dilations=[2, 1, 2], ceil_mode=1)
    for mode in ("SAME_UPPER", "SAME_LOWER", "VALID"):
        yield pool(f"maxpool3d_autopad_{mode.lower()}", "MaxPool", (1, 3, 7, 8, 9),
                   kernel_shape=[3, 2, 3], strides=[2, 2, 2], auto_pad=mode)
    # Indices: flat positions in X, batch and channels included.
    yield pool("maxpool3d_indices", "MaxPool", (2, 3, 6, 7, 5), indices=True,
               kernel_shape=[2, 3, 2], strides=[2, 2, 1], pads=[0, 1, 1, 1, 1, 0])
    yield pool("maxpool3d_indices_ceil_dil", "MaxPool", (1, 2, 7, 8, 9), indices=True,
               kernel_shape=[2, 2, 3], strides=[2, 2, 2], dilations=[2, 1, 1], ceil_mode=1)
    yield pool("maxpool3d_f16", "MaxPool", (1, 4, 6, 9, 8), f16=True, kernel_shape=[3, 3, 3],
               strides=[2, 2, 2], pads=[1, 1, 1, 1, 1, 1])
    for opset in (8, 10, 11):
        yield pool(f"maxpool3d_opset{opset}", "MaxPool", (1, 2, 5, 6, 7), opset=opset,
                   kernel_shape=[2, 3, 3], strides=[2, 2, 2], pads=[0, 1, 1, 1, 1, 1])


def _average_pool_cases():
    for cip in (0, 1):
        yield pool(f"avgpool3d_pads_cip{cip}", "AveragePool", (1, 3, 6, 7, 8),
                   kernel_shape=[3, 3, 3], strides=[1, 2, 2], pads=[1, 1, 1, 1, 1, 1],
                   count_include_pad=cip)
        yield pool(f"avgpool3d_asym_pads_cip{cip}", "AveragePool", (2, 2, 7, 5, 6),
                   kernel_shape=[2, 3, 3], pads=[1, 0, 2, 0, 2, 1], count_include_pad=cip)
        yield pool(f"avgpool3d_ceil_cip{cip}", "AveragePool", (1, 2, 7, 8, 6),
                   kernel_shape=[3, 3, 2], strides=[2, 3, 2], pads=[1, 1, 0, 0, 1, 1],
                   ceil_mode=1, count_include_pad=cip)
        yield pool(f"avgpool3d_dil_ceil_cip{cip}", "AveragePool", (1, 2, 9, 8, 7),
                   kernel_shape=[2, 2, 3], dilations=[2, 3, 1], strides=[2, 1, 2],
                   pads=[1, 0, 1, 1, 1, 0], ceil_mode=1, count_include_pad=cip, opset=19)
    for mode in ("SAME_UPPER", "SAME_LOWER", "VALID"):
        yield pool(f"avgpool3d_autopad_{mode.lower()}", "AveragePool", (1, 3, 7, 8, 9),
                   kernel_shape=[3, 2, 3], strides=[2, 2, 2], auto_pad=mode)
    yield pool("avgpool3d_f16", "AveragePool", (1, 4, 6, 9, 8), f16=True,
               kernel_shape=[2, 3, 3], strides=[2, 2, 2], pads=[0, 1, 1, 1, 1, 1],
               count_include_pad=1)
    yield pool("lppool3d_p2", "LpPool", (1, 3, 6, 7, 8), kernel_shape=[2, 3, 2],
               strides=[2, 2, 2], pads=[1, 1, 0, 0, 1, 1], p=2)


def _conv_transpose_cases():
    yield conv_transpose("convt3d_3x3x3_s2", 1, 4, (3, 4, 5), 6, (3, 3, 3), strides=[2, 2, 2],
                         pads=[1, 1, 1, 1, 1, 1], output_padding=[1, 0, 1])
    yield conv_transpose("convt3d_2x2x2_s2_unet", 2, 8, (3, 4, 4), 4, (2, 2, 2),
                         strides=[2, 2, 2], bias=False)
    yield conv_transpose("convt3d_dilations", 1, 3, (4, 3, 5), 2, (2, 3, 2),
                         dilations=[2, 2, 3], strides=[1, 2, 2], pads=[0, 1, 1, 1, 0, 0])
    yield conv_transpose("convt3d_group3", 1, 6, (3, 4, 3), 9, (3, 2, 3), group=3,
                         strides=[2, 1, 2])
    yield conv_transpose("convt3d_depthwise", 1, 5, (4, 4, 3), 5, (3, 3, 3), group=5,
                         strides=[1, 2, 2], pads=[1, 1, 1, 1, 1, 1])
    yield conv_transpose("convt3d_output_shape", 1, 2, (3, 3, 4), 3, (3, 3, 3),
                         strides=[2, 3, 2], output_shape=[6, 9, 8])
    for mode in ("SAME_UPPER", "SAME_LOWER", "VALID"):
        yield conv_transpose(f"convt3d_autopad_{mode.lower()}", 1, 3, (3, 4, 5), 4, (3, 2, 3),
                             strides=[2, 2, 1], auto_pad=mode)


def cases():
    yield from _max_pool_cases()
    yield from _average_pool_cases()
    yield from _conv_transpose_cases()
