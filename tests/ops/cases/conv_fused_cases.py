# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Conv followed by what the fusion pass folds into its epilogue: an
# activation (Relu, Clip, LeakyRelu, HardSigmoid, HardSwish, Sigmoid, Tanh)
# and/or a residual Add, in both orders. Unfused they run as separate nodes;
# fused they run in the Conv's store — the outputs must match either way.
# Every Conv path is covered: implicit GEMM, 1x1 with vector stores, split-K,
# and depthwise. Expected outputs come from onnxruntime.
import numpy as np
from onnx import TensorProto, helper, numpy_helper

_RNG = np.random.default_rng(20260504)


def _rand(*shape):
    return _RNG.uniform(-1.0, 1.0, size=shape).astype(np.float32)


def _case(name, x_shape, m, kernel, tail, group=1, opset=21, pads=None, residual_first=False,
          **conv_attrs):
    """tail: list of ("Relu" | "Add" | ("Clip", lo, hi) | (op, attrs)) applied in order."""
    n, c = x_shape[0], x_shape[1]
    x = _rand(*x_shape)
    w = (_rand(m, c // group, *kernel) / np.sqrt(c // group * np.prod(kernel))).astype(np.float32)
    b = _rand(m)
    inits = [numpy_helper.from_array(w, "W"), numpy_helper.from_array(b, "B")]
    if group != 1:
        conv_attrs["group"] = group
    if pads is not None:
        conv_attrs["pads"] = pads
    nodes = [helper.make_node("Conv", ["X", "W", "B"], ["t0"], **conv_attrs)]
    inputs = [helper.make_tensor_value_info("X", TensorProto.FLOAT, list(x_shape))]
    feeds = {"X": x}
    out_spatial = None
    cur = "t0"
    for i, step in enumerate(tail):
        nxt = f"t{i + 1}"
        if step == "Add":
            if out_spatial is None:
                # "Same" convs keep the size; a strided 1x1 without pads divides it.
                strides = conv_attrs.get("strides", [1] * (len(x_shape) - 2))
                out_spatial = [(d - 1) // st + 1 for d, st in zip(x_shape[2:], strides)]
            r = _rand(n, m, *out_spatial)
            inputs.append(helper.make_tensor_value_info("R", TensorProto.FLOAT, list(r.shape)))
            feeds["R"] = r
            ins = ["R", cur] if residual_first else [cur, "R"]
            nodes.append(helper.make_node("Add", ins, [nxt]))
        elif isinstance(step, tuple) and step[0] == "Clip":
            _, lo, hi = step
            if opset < 11:
                nodes.append(helper.make_node("Clip", [cur], [nxt], min=lo, max=hi))
            else:
                inits.append(numpy_helper.from_array(np.array(lo, np.float32), f"lo{i}"))
                inits.append(numpy_helper.from_array(np.array(hi, np.float32), f"hi{i}"))
                nodes.append(helper.make_node("Clip", [cur, f"lo{i}", f"hi{i}"], [nxt]))
        elif isinstance(step, tuple):
            op, attrs = step
            nodes.append(helper.make_node(op, [cur], [nxt], **attrs))
        else:
            nodes.append(helper.make_node(step, [cur], [nxt]))
        cur = nxt
    nodes[-1].output[0] = "Y"
    graph = helper.make_graph(nodes, "conv_fused", inputs,
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
                              initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return {"name": name, "model": model, "inputs": feeds}


def cases():
    same3 = [1, 1, 1, 1]
    yield _case("fused_conv_relu", (1, 8, 10, 10), 16, (3, 3), ["Relu"], pads=same3)
    yield _case("fused_conv_add_relu", (1, 16, 9, 9), 16, (3, 3), ["Add", "Relu"], pads=same3)
    yield _case("fused_conv_add_relu_residual_first", (2, 8, 7, 7), 12, (3, 3), ["Add", "Relu"],
                pads=same3, residual_first=True)
    yield _case("fused_conv_relu_add", (1, 8, 6, 6), 8, (3, 3), ["Relu", "Add"], pads=same3)
    yield _case("fused_conv_add", (1, 4, 5, 5), 6, (1, 1), ["Add"])
    yield _case("fused_conv_clip6", (1, 8, 12, 12), 16, (3, 3), [("Clip", 0.0, 6.0)],
                pads=same3)
    yield _case("fused_conv_clip_opset6", (1, 3, 8, 8), 5, (3, 3), [("Clip", -0.2, 0.3)],
                opset=6, pads=same3)
    yield _case("fused_conv_leaky_relu", (1, 6, 8, 8), 6, (3, 3),
                [("LeakyRelu", {"alpha": 0.1})], pads=same3)
    yield _case("fused_conv_hard_sigmoid", (1, 6, 8, 8), 6, (3, 3),
                [("HardSigmoid", {"alpha": 0.3, "beta": 0.4})], pads=same3)
    yield _case("fused_conv_hard_swish", (1, 6, 8, 8), 6, (3, 3), ["HardSwish"], pads=same3)
    yield _case("fused_conv_sigmoid", (1, 6, 8, 8), 6, (3, 3), ["Sigmoid"], pads=same3)
    yield _case("fused_conv_tanh", (1, 6, 8, 8), 6, (3, 3), ["Tanh"], pads=same3)
    # Per Conv path: 1x1 vector stores, split-K, depthwise, grouped GEMM.
    yield _case("fused_conv1x1_vec_add_relu", (1, 64, 8, 8), 64, (1, 1), ["Add", "Relu"])
    # A strided 1x1 (its pixels copied out first) with the residual epilogue.
    yield _case("fused_conv1x1_s2_add_relu", (2, 16, 9, 9), 24, (1, 1), ["Add", "Relu"],
                strides=[2, 2])
    yield _case("fused_conv1x1_odd_add_clip", (1, 24, 7, 7), 40, (1, 1),
                ["Add", ("Clip", 0.0, 6.0)])
    yield _case("fused_conv_splitk_add_relu", (1, 512, 7, 7), 64, (3, 3), ["Add", "Relu"],
                pads=same3)
    yield _case("fused_conv_splitk_relu_add", (1, 1024, 4, 4), 32, (1, 1), ["Relu", "Add"])
    yield _case("fused_depthwise_clip6", (1, 32, 14, 14), 32, (3, 3), [("Clip", 0.0, 6.0)],
                group=32, pads=same3)
    yield _case("fused_depthwise_add_relu", (2, 13, 9, 9), 13, (3, 3), ["Add", "Relu"],
                group=13, pads=same3)
    yield _case("fused_group_conv_relu_add", (1, 16, 8, 8), 16, (3, 3), ["Relu", "Add"],
                group=4, pads=same3)
