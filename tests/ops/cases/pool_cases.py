# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# MaxPool, AveragePool, GlobalAveragePool and GlobalMaxPool cases: 1-D and
# 2-D windows with strides, pads, dilations, every auto_pad, ceil_mode and
# count_include_pad, odd sizes, across opset versions; every pool also on
# float16 tensors (against the fp32 pool between Casts). Expected outputs
# come from onnxruntime.
import numpy as np
from onnx import TensorProto, helper

_RNG = np.random.default_rng(20260502)


def _case(name, op, x_shape, opset=21, **attrs):
    x = _RNG.uniform(-1.0, 1.0, size=x_shape).astype(np.float32)
    node = helper.make_node(op, ["X"], ["Y"], **attrs)
    graph = helper.make_graph(
        [node], op.lower(), [helper.make_tensor_value_info("X", TensorProto.FLOAT, list(x_shape))],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return {"name": name, "model": model, "inputs": {"X": x}}


def _max_pool_cases():
    yield _case("maxpool_2x2_s2", "MaxPool", (1, 3, 8, 8), kernel_shape=[2, 2], strides=[2, 2])
    yield _case("maxpool_3x3_s2_pad1_resnet", "MaxPool", (2, 64, 28, 28), kernel_shape=[3, 3],
                strides=[2, 2], pads=[1, 1, 1, 1])
    yield _case("maxpool_odd_sizes", "MaxPool", (1, 7, 13, 7), kernel_shape=[3, 2],
                strides=[1, 2])
    yield _case("maxpool_asym_pads", "MaxPool", (1, 3, 9, 10), kernel_shape=[3, 3],
                pads=[0, 1, 2, 1])
    yield _case("maxpool_ceil", "MaxPool", (1, 2, 9, 9), kernel_shape=[2, 2], strides=[2, 2],
                ceil_mode=1)
    yield _case("maxpool_ceil_pads", "MaxPool", (1, 2, 5, 6), kernel_shape=[2, 2],
                strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1)
    yield _case("maxpool_ceil_s3", "MaxPool", (1, 3, 13, 11), kernel_shape=[3, 3],
                strides=[3, 3], ceil_mode=1)
    yield _case("maxpool_dilation", "MaxPool", (1, 3, 12, 12), kernel_shape=[2, 3],
                dilations=[2, 2], strides=[1, 1])
    yield _case("maxpool_dilation_ceil", "MaxPool", (1, 2, 11, 11), kernel_shape=[3, 3],
                dilations=[2, 2], strides=[2, 2], ceil_mode=1)
    yield _case("maxpool_one_pixel", "MaxPool", (1, 127, 1, 1), kernel_shape=[1, 1])
    yield _case("maxpool_storage_order0", "MaxPool", (1, 4, 6, 6), kernel_shape=[2, 2],
                storage_order=0)
    for mode in ("SAME_UPPER", "SAME_LOWER", "VALID", "NOTSET"):
        yield _case(f"maxpool_autopad_{mode.lower()}", "MaxPool", (1, 3, 11, 10),
                    kernel_shape=[3, 2], strides=[2, 2], auto_pad=mode)
    yield _case("maxpool1d", "MaxPool", (2, 5, 31), kernel_shape=[3], strides=[2], pads=[1, 1])
    yield _case("maxpool1d_ceil_dil", "MaxPool", (1, 3, 20), kernel_shape=[2], strides=[3],
                dilations=[2], ceil_mode=1)
    for opset in (1, 8, 10, 11, 12, 21):
        yield _case(f"maxpool_opset{opset}", "MaxPool", (1, 4, 7, 7), opset=opset,
                    kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])


def _average_pool_cases():
    yield _case("avgpool_2x2_s2", "AveragePool", (1, 3, 8, 8), kernel_shape=[2, 2],
                strides=[2, 2])
    for cip in (0, 1):
        yield _case(f"avgpool_pads_cip{cip}", "AveragePool", (1, 4, 9, 7), kernel_shape=[3, 3],
                    pads=[1, 1, 1, 1], count_include_pad=cip)
        yield _case(f"avgpool_asym_pads_cip{cip}", "AveragePool", (2, 3, 10, 11),
                    kernel_shape=[3, 2], strides=[2, 1], pads=[2, 0, 1, 1], count_include_pad=cip)
        yield _case(f"avgpool_ceil_cip{cip}", "AveragePool", (1, 2, 6, 6), kernel_shape=[3, 3],
                    strides=[2, 2], ceil_mode=1, count_include_pad=cip)
        yield _case(f"avgpool_ceil_pads_cip{cip}", "AveragePool", (1, 2, 6, 7),
                    kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1,
                    count_include_pad=cip)
        yield _case(f"avgpool_dilation_cip{cip}", "AveragePool", (1, 3, 12, 13), opset=19,
                    kernel_shape=[3, 3], dilations=[2, 2], pads=[1, 2, 1, 2],
                    count_include_pad=cip)
        yield _case(f"avgpool1d_cip{cip}", "AveragePool", (2, 3, 17), kernel_shape=[4],
                    strides=[2], pads=[1, 2], count_include_pad=cip)
    yield _case("avgpool_global_like_7x7", "AveragePool", (1, 127, 7, 7), kernel_shape=[7, 7])
    yield _case("avgpool_13x13_odd", "AveragePool", (1, 13, 13, 13), kernel_shape=[5, 5],
                strides=[3, 3], pads=[2, 2, 2, 2])
    for mode in ("SAME_UPPER", "SAME_LOWER", "VALID"):
        yield _case(f"avgpool_autopad_{mode.lower()}", "AveragePool", (1, 3, 11, 10),
                    kernel_shape=[3, 3], strides=[2, 2], auto_pad=mode)
    for opset in (7, 10, 11, 19, 21):
        yield _case(f"avgpool_opset{opset}", "AveragePool", (1, 4, 7, 7), opset=opset,
                    kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])


def _global_pool_cases():
    for op in ("GlobalAveragePool", "GlobalMaxPool"):
        short = "gap" if op == "GlobalAveragePool" else "gmp"
        yield _case(f"{short}_resnet_7x7", op, (2, 2048, 7, 7), opset=1)
        yield _case(f"{short}_1x1", op, (1, 127, 1, 1))
        yield _case(f"{short}_13x13", op, (3, 13, 13, 13))
        yield _case(f"{short}_large_plane", op, (1, 3, 64, 70))
        yield _case(f"{short}_1d", op, (2, 7, 31))
        yield _case(f"{short}_3d", op, (1, 3, 4, 5, 6))


def _half(name, op, shape, **attrs):
    """float16 X and Y: the fp16 shader variants (arithmetic in fp32), against
    the same pool in float32 between Casts."""
    def model(nodes):
        g = helper.make_graph(nodes, op.lower(),
                              [helper.make_tensor_value_info("X", TensorProto.FLOAT16, list(shape))],
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT16, None)])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 21)])
        m.ir_version = 8
        return m
    x = _RNG.uniform(-1.0, 1.0, size=shape).astype(np.float16)
    reference = model([helper.make_node("Cast", ["X"], ["X32"], to=TensorProto.FLOAT),
                       helper.make_node(op, ["X32"], ["Y32"], **attrs),
                       helper.make_node("Cast", ["Y32"], ["Y"], to=TensorProto.FLOAT16)])
    return {"name": name, "model": model([helper.make_node(op, ["X"], ["Y"], **attrs)]),
            "reference_model": reference, "inputs": {"X": x}, "atol": 1e-3, "rtol": 1e-3}


def _half_pool_cases():
    for op in ("GlobalAveragePool", "GlobalMaxPool"):
        short = "gap" if op == "GlobalAveragePool" else "gmp"
        for tag, shape in (("resnet_7x7", (2, 2048, 7, 7)), ("13x13", (3, 13, 13, 13)),
                           ("large_plane", (1, 3, 64, 70))):
            yield _half(f"{short}_f16_{tag}", op, shape)
    yield _half("maxpool_f16_3x3_s2_pad1_resnet", "MaxPool", (2, 64, 28, 28), kernel_shape=[3, 3],
                strides=[2, 2], pads=[1, 1, 1, 1])
    yield _half("maxpool_f16_ceil_odd", "MaxPool", (1, 3, 13, 11), kernel_shape=[3, 3], strides=[3, 3],
                ceil_mode=1)
    yield _half("avgpool_f16_3x3_pad_include", "AveragePool", (1, 4, 9, 9), kernel_shape=[3, 3],
                pads=[1, 1, 1, 1], count_include_pad=1)
    yield _half("avgpool_f16_1d", "AveragePool", (2, 5, 17), kernel_shape=[4], strides=[2])
    yield _half("lppool_f16_p2", "LpPool", (1, 3, 8, 8), kernel_shape=[2, 2], p=2)


def cases():
    yield from _max_pool_cases()
    yield from _average_pool_cases()
    yield from _global_pool_cases()
    yield from _half_pool_cases()
