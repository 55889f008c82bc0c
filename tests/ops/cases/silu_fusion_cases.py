# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# x * Sigmoid(x) (runtime/passes/silu_fusion.h), as torch.nn.SiLU exports before
# opset 24, against onnxruntime running the same graphs unfused. Each case
# demands the node the fusions must leave ("fused_op"): after a Conv with
# bias (EfficientNet's blocks, FP32 and FP16) and a MatMul, in both operand
# orders, and standalone; and patterns that must stay unfused (the Sigmoid
# also read elsewhere, a Sigmoid of another tensor), where the demanded node
# is the untouched Sigmoid.
import numpy as np
from onnx import TensorProto, helper

from onnx_case import make_model

_RNG = np.random.default_rng(20261129)


def _rand(*shape, scale=1.0):
    return (_RNG.standard_normal(shape) * scale).astype(np.float32)


def _case(name, nodes, inputs, inits, fused_op, outputs=("Y",), **extra):
    model = make_model(nodes, inputs, [(o, TensorProto.FLOAT) for o in outputs], 17, inits)
    case = {"name": f"silu_fusion_{name}", "model": model, "inputs": inputs, "atol": 2e-4,
            "fused_op": fused_op}
    case.update(extra)
    return case


def _silu(x, out, sigmoid_first=False):
    mul = [f"{out}_s", x] if sigmoid_first else [x, f"{out}_s"]
    return [helper.make_node("Sigmoid", [x], [f"{out}_s"]), helper.make_node("Mul", mul, [out])]


def cases():
    # EfficientNet's expansion conv: 1x1, bias, SiLU.
    x = _rand(2, 8, 9, 7)
    conv_inits = {"W": _rand(16, 8, 1, 1, scale=0.4), "B": _rand(16)}
    conv = [helper.make_node("Conv", ["X", "W", "B"], ["c"])]
    yield _case("conv", conv + _silu("c", "Y"), {"X": x}, conv_inits, "Conv+Swish")
    yield _case("conv_sigmoid_first", conv + _silu("c", "Y", sigmoid_first=True), {"X": x},
                conv_inits, "Conv+Swish")
    yield _case("conv_fp16", conv + _silu("c", "Y"), {"X": x}, conv_inits, "Conv+Swish",
                precision="FP16", atol=4e-3)
    # A depthwise 3x3 conv (EfficientNet's second step).
    dw_inits = {"Wd": _rand(8, 1, 3, 3, scale=0.4)}
    dw = [helper.make_node("Conv", ["X", "Wd"], ["d"], group=8, pads=[1, 1, 1, 1])]
    yield _case("depthwise", dw + _silu("d", "Y"), {"X": x}, dw_inits, "Conv+Swish")
    # A Llama-style MLP gate: MatMul, SiLU.
    a = _rand(3, 5, 12)
    w = {"Wm": _rand(12, 20, scale=0.4)}
    mm = [helper.make_node("MatMul", ["A", "Wm"], ["m"])]
    yield _case("matmul", mm + _silu("m", "Y", sigmoid_first=True), {"A": a}, w, "MatMul+Swish")
    yield _case("standalone", _silu("A", "Y"), {"A": a}, {}, "Sigmoid+Mul=Swish")
    # Must not fuse: the Sigmoid is also an output; a Sigmoid of another tensor.
    yield _case("shared_sigmoid", conv + _silu("c", "Y"), {"X": x}, conv_inits, "Sigmoid",
                outputs=("Y", "Y_s"))
    b = _rand(3, 5, 12)
    yield _case("other_operand", [helper.make_node("Sigmoid", ["B"], ["s"]),
                                  helper.make_node("Mul", ["A", "s"], ["Y"])],
                {"A": a, "B": b}, {}, "Sigmoid")
