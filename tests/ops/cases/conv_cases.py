# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Conv and ConvTranspose cases: single-node models over randomized shapes with
# odd sizes, groups and depthwise, strides, dilations, every auto_pad, 1-D and
# 2-D, with and without bias, weights as initializers (and once as a graph
# input), across opset versions. Expected outputs come from onnxruntime.
import numpy as np
from onnx import TensorProto, helper, numpy_helper

_RNG = np.random.default_rng(20260501)


def _rand(*shape):
    return _RNG.uniform(-1.0, 1.0, size=shape).astype(np.float32)


def _model(op, x_shape, weights, attrs, opset, w_as_input=False, bias=None):
    inputs = [helper.make_tensor_value_info("X", TensorProto.FLOAT, list(x_shape))]
    inits = []
    names = ["X", "W"]
    if w_as_input:
        inputs.append(helper.make_tensor_value_info("W", TensorProto.FLOAT, list(weights.shape)))
    else:
        inits.append(numpy_helper.from_array(weights, "W"))
    if bias is not None:
        inits.append(numpy_helper.from_array(bias, "B"))
        names.append("B")
    node = helper.make_node(op, names, ["Y"], **attrs)
    graph = helper.make_graph([node], op.lower(), inputs,
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
                              initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def _conv(name, n, c, spatial, m, kernel, group=1, opset=21, bias=True, w_as_input=False,
          rtol=None, **attrs):
    x = _rand(n, c, *spatial)
    w = (_rand(m, c // group, *kernel) / np.sqrt(c // group * np.prod(kernel))).astype(np.float32)
    b = _rand(m) if bias else None
    if group != 1:
        attrs["group"] = group
    case = {
        "name": name,
        "model": _model("Conv", x.shape, w, attrs, opset, w_as_input, b),
        "inputs": {"X": x, "W": w} if w_as_input else {"X": x},
    }
    if rtol is not None:
        case["rtol"] = rtol
    return case


def _conv_transpose(name, n, c, spatial, m, kernel, group=1, opset=21, bias=True, **attrs):
    x = _rand(n, c, *spatial)
    w = (_rand(c, m // group, *kernel) / np.sqrt(c // group * np.prod(kernel))).astype(np.float32)
    b = _rand(m) if bias else None
    if group != 1:
        attrs["group"] = group
    return {"name": name, "model": _model("ConvTranspose", x.shape, w, attrs, opset, False, b),
            "inputs": {"X": x}}


def _conv_cases():
    # Plain 2-D convolutions across kernel sizes, strides and padding.
    yield _conv("conv_3x3_pad1", 1, 8, (13, 13), 16, (3, 3), pads=[1, 1, 1, 1])
    yield _conv("conv_3x3_s2", 2, 7, (13, 11), 13, (3, 3), strides=[2, 2], pads=[1, 1, 1, 1])
    yield _conv("conv_5x5_asym_pads", 1, 3, (17, 9), 5, (5, 5), pads=[2, 0, 1, 3])
    yield _conv("conv_7x7_s2_stem", 1, 3, (64, 64), 64, (7, 7), strides=[2, 2],
                pads=[3, 3, 3, 3])
    yield _conv("conv_nonsquare_kernel", 1, 6, (12, 10), 9, (1, 3), pads=[0, 1, 0, 1])
    yield _conv("conv_dilation2", 1, 5, (15, 15), 6, (3, 3), dilations=[2, 2],
                pads=[2, 2, 2, 2])
    yield _conv("conv_dilation_stride", 1, 4, (19, 17), 8, (3, 3), dilations=[2, 3],
                strides=[2, 1])
    yield _conv("conv_no_bias", 1, 16, (9, 9), 32, (3, 3), bias=False, pads=[1, 1, 1, 1])
    yield _conv("conv_kernel_shape_attr", 1, 4, (8, 8), 4, (3, 3), kernel_shape=[3, 3])
    yield _conv("conv_one_pixel", 1, 127, (1, 1), 13, (1, 1))
    yield _conv("conv_one_channel", 3, 1, (7, 7), 1, (3, 3), pads=[1, 1, 1, 1])
    yield _conv("conv_127_channels", 1, 127, (7, 7), 127, (3, 3), pads=[1, 1, 1, 1])
    yield _conv("conv_batch4", 4, 16, (14, 14), 24, (3, 3), pads=[1, 1, 1, 1])
    # Shapes that pick the tallest (128 x 64) and the flattest (16 x 64) GEMM tiles.
    yield _conv("conv_tall_tile", 1, 8, (32, 32), 256, (3, 3), pads=[1, 1, 1, 1])
    yield _conv("conv_flat_tile", 1, 64, (5, 5), 16, (1, 1))
    yield _conv("conv_w_graph_input", 1, 8, (10, 10), 12, (3, 3), pads=[1, 1, 1, 1],
                w_as_input=True)
    # 1x1 (pure GEMM): vector path when H*W % 4 == 0, scalar otherwise.
    yield _conv("conv_1x1_vec", 1, 64, (8, 8), 96, (1, 1))
    yield _conv("conv_1x1_odd_hw", 2, 32, (7, 7), 40, (1, 1))
    yield _conv("conv_1x1_odd_channels", 1, 13, (12, 12), 7, (1, 1))
    yield _conv("conv_1x1_stride2", 1, 32, (14, 14), 64, (1, 1), strides=[2, 2])
    # Strided 1x1s copy their pixels out first: groups, unequal strides, odd sizes.
    yield _conv("conv_1x1_s23_group2", 2, 8, (13, 11), 6, (1, 1), group=2, strides=[2, 3])
    yield _conv("conv_1x1_large", 1, 256, (28, 28), 128, (1, 1))
    # Deep reductions on small images: split-K.
    yield _conv("conv_splitk_3x3", 1, 512, (7, 7), 64, (3, 3), pads=[1, 1, 1, 1])
    yield _conv("conv_splitk_1x1", 1, 1024, (4, 4), 32, (1, 1))
    yield _conv("conv_splitk_no_bias", 1, 300, (5, 5), 20, (3, 3), bias=False)
    # Groups: grouped GEMM, depthwise (group == C), depthwise with multiplier.
    yield _conv("conv_group2", 1, 8, (9, 9), 12, (3, 3), group=2, pads=[1, 1, 1, 1])
    yield _conv("conv_group4_s2", 2, 16, (11, 11), 8, (3, 3), group=4, strides=[2, 2])
    yield _conv("conv_group32_resnext", 1, 128, (14, 14), 128, (3, 3), group=32,
                pads=[1, 1, 1, 1])
    yield _conv("conv_depthwise_3x3", 1, 32, (16, 16), 32, (3, 3), group=32,
                pads=[1, 1, 1, 1])
    yield _conv("conv_depthwise_s2", 2, 13, (15, 15), 13, (3, 3), group=13, strides=[2, 2],
                pads=[1, 1, 1, 1])
    yield _conv("conv_depthwise_5x5_dil", 1, 7, (20, 20), 7, (5, 5), group=7,
                dilations=[2, 2], pads=[4, 4, 4, 4])
    yield _conv("conv_depthwise_multiplier", 1, 6, (9, 9), 12, (3, 3), group=6)
    yield _conv("conv_depthwise_no_bias", 1, 127, (7, 7), 127, (3, 3), group=127,
                bias=False, pads=[1, 1, 1, 1])
    # auto_pad.
    for mode in ("SAME_UPPER", "SAME_LOWER", "VALID", "NOTSET"):
        low = mode.lower()
        yield _conv(f"conv_autopad_{low}", 1, 5, (10, 9), 7, (3, 3), auto_pad=mode)
        yield _conv(f"conv_autopad_{low}_s2", 1, 4, (11, 12), 6, (4, 3), strides=[2, 2],
                    auto_pad=mode)
        yield _conv(f"conv_autopad_{low}_dw", 1, 6, (9, 9), 6, (3, 3), group=6, strides=[2, 2],
                    auto_pad=mode)
    # 1-D.
    yield _conv("conv1d_k3", 2, 8, (31,), 16, (3,), pads=[1, 1])
    yield _conv("conv1d_s2_dil", 1, 5, (40,), 7, (5,), strides=[2], dilations=[2])
    yield _conv("conv1d_same_upper", 1, 6, (17,), 4, (4,), auto_pad="SAME_UPPER")
    yield _conv("conv1d_depthwise", 1, 12, (33,), 12, (7,), group=12, pads=[3, 3])
    yield _conv("conv1d_pointwise", 1, 24, (64,), 48, (1,))
    # Every opset version (Conv-1 and Conv-11 have the same semantics).
    for opset in (1, 11, 21):
        yield _conv(f"conv_opset{opset}", 1, 6, (8, 8), 6, (3, 3), opset=opset,
                    pads=[1, 1, 1, 1])
    # Random shapes.
    for i in range(12):
        k = int(_RNG.choice([1, 3, 5]))
        group = int(_RNG.choice([1, 1, 2, 3]))
        c = group * int(_RNG.integers(1, 12))
        m = group * int(_RNG.integers(1, 12))
        h, w = (int(v) for v in _RNG.integers(k, 24, size=2))
        s = int(_RNG.choice([1, 2]))
        d = int(_RNG.choice([1, 1, 2]))
        if (k - 1) * d + 1 > min(h, w):
            d = 1
        pads = [int(v) for v in _RNG.integers(0, k, size=4)]
        yield _conv(f"conv_random_{i}", int(_RNG.integers(1, 3)), c, (h, w), m, (k, k),
                    group=group, strides=[s, s], dilations=[d, d], pads=pads)


def _conv_transpose_cases():
    yield _conv_transpose("convt_3x3_s1", 1, 4, (7, 7), 6, (3, 3))
    yield _conv_transpose("convt_3x3_s2_pad1", 1, 8, (5, 6), 5, (3, 3), strides=[2, 2],
                          pads=[1, 1, 1, 1])
    yield _conv_transpose("convt_4x4_s2_unet", 2, 16, (8, 8), 8, (4, 4), strides=[2, 2],
                          pads=[1, 1, 1, 1])
    yield _conv_transpose("convt_2x2_s2_no_bias", 1, 13, (7, 9), 7, (2, 2), strides=[2, 2],
                          bias=False)
    yield _conv_transpose("convt_output_padding", 1, 3, (5, 5), 4, (3, 3), strides=[2, 3],
                          output_padding=[1, 2])
    yield _conv_transpose("convt_dilation", 1, 4, (6, 5), 3, (3, 3), dilations=[2, 2],
                          strides=[2, 2])
    yield _conv_transpose("convt_group2", 1, 6, (5, 5), 4, (3, 3), group=2, strides=[2, 2])
    yield _conv_transpose("convt_depthwise", 1, 8, (6, 6), 8, (4, 4), group=8, strides=[2, 2],
                          pads=[1, 1, 1, 1])
    yield _conv_transpose("convt_output_shape", 1, 4, (5, 5), 3, (3, 3), strides=[2, 2],
                          output_shape=[10, 10])
    yield _conv_transpose("convt_output_shape_asym", 1, 3, (4, 6), 2, (3, 3), strides=[2, 2],
                          output_shape=[8, 12], auto_pad="SAME_UPPER")
    for mode in ("SAME_UPPER", "SAME_LOWER", "VALID"):
        yield _conv_transpose(f"convt_autopad_{mode.lower()}", 1, 3, (5, 4), 4, (3, 3),
                              strides=[2, 2], auto_pad=mode)
    yield _conv_transpose("convt1d_s2", 2, 5, (11,), 3, (4,), strides=[2], pads=[1, 1])
    yield _conv_transpose("convt1d_output_padding", 1, 4, (9,), 6, (3,), strides=[3],
                          output_padding=[2])
    for opset in (1, 11, 21):
        yield _conv_transpose(f"convt_opset{opset}", 1, 4, (5, 5), 4, (3, 3), opset=opset,
                              strides=[2, 2], pads=[1, 1, 1, 1])


def cases():
    yield from _conv_cases()
    yield from _conv_transpose_cases()
