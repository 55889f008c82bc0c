# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# ONNX Runtime's CNN-side contrib ops, which vkserve rewrites at load time
# into plain ONNX ops (runtime/lowering/): com.microsoft FusedConv, FusedGemm
# and NhwcMaxPool, and the com.microsoft.nchwc blocked-layout ops. The
# nchwc cases lay their weights out in ORT's blocked formats here, with the
# block size of the machine's MLAS (16 with AVX-512, 8 otherwise), so that
# onnxruntime running them is an independent check of vkserve's un-blocking.
# Expected outputs come from onnxruntime.
import numpy as np
from onnx import TensorProto, helper, numpy_helper

from contrib_cnn_nchwc import nchwc_cases

_RNG = np.random.default_rng(20260611)
_MS = "com.microsoft"


def _rand(*shape):
    return _RNG.uniform(-1.0, 1.0, size=shape).astype(np.float32)


def _model(nodes, inputs, inits, domains=(_MS,), opset=13):
    graph = helper.make_graph(nodes, "contrib_cnn", inputs,
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
                              initializer=inits)
    imports = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, 1) for d in domains]
    model = helper.make_model(graph, opset_imports=imports)
    model.ir_version = 8
    return model


def _fused_conv(name, x_shape, m, kernel, activation=None, params=None, bias=True, z=False,
                group=1, **conv_attrs):
    c = x_shape[1]
    x = _rand(*x_shape)
    w = (_rand(m, c // group, *kernel) / np.sqrt(c // group * np.prod(kernel))).astype(np.float32)
    inits = [numpy_helper.from_array(w, "W")]
    ins = ["X", "W"]
    if bias:
        inits.append(numpy_helper.from_array(_rand(m), "B"))
    ins.append("B" if bias else "")
    inputs = [helper.make_tensor_value_info("X", TensorProto.FLOAT, list(x_shape))]
    feeds = {"X": x}
    if z:
        pads = conv_attrs.get("pads", [0] * (2 * len(kernel)))
        strides = conv_attrs.get("strides", [1] * len(kernel))
        out = [(x_shape[2 + i] + pads[i] + pads[i + len(kernel)] - kernel[i]) // strides[i] + 1
               for i in range(len(kernel))]
        zv = _rand(x_shape[0], m, *out)
        inputs.append(helper.make_tensor_value_info("Z", TensorProto.FLOAT, list(zv.shape)))
        feeds["Z"] = zv
        ins.append("Z")
    while ins and ins[-1] == "":
        ins.pop()
    attrs = dict(conv_attrs)
    if group != 1:
        attrs["group"] = group
    if activation is not None:
        attrs["activation"] = activation
    if params is not None:
        attrs["activation_params"] = params
    node = helper.make_node("FusedConv", ins, ["Y"], domain=_MS, **attrs)
    return {"name": name, "model": _model([node], inputs, inits), "inputs": feeds}


def _fused_gemm(name, m, n, k, activation, trans_a=0, trans_b=0, c_shape=None, **act_attrs):
    a = _rand(*((k, m) if trans_a else (m, k)))
    b = (_rand(*((n, k) if trans_b else (k, n))) / np.sqrt(k)).astype(np.float32)
    inits = [numpy_helper.from_array(b, "Bw")]
    ins = ["A", "Bw"]
    if c_shape is not None:
        inits.append(numpy_helper.from_array(_rand(*c_shape), "C"))
        ins.append("C")
    attrs = {"transA": trans_a, "transB": trans_b, "alpha": 0.75, "beta": 1.25}
    if activation is not None:
        attrs["activation"] = activation
    attrs.update({f"activation_{k}": v for k, v in act_attrs.items()})
    node = helper.make_node("FusedGemm", ins, ["Y"], domain=_MS, **attrs)
    inputs = [helper.make_tensor_value_info("A", TensorProto.FLOAT, list(a.shape))]
    return {"name": name, "model": _model([node], inputs, inits), "inputs": {"A": a}}


def _fused_conv_cases():
    same3 = {"pads": [1, 1, 1, 1]}
    yield _fused_conv("contrib_fused_conv_relu", (1, 5, 9, 7), 6, (3, 3), "Relu", **same3)
    yield _fused_conv("contrib_fused_conv_none_nobias", (2, 3, 6, 6), 5, (3, 3), bias=False)
    yield _fused_conv("contrib_fused_conv_tanh", (1, 4, 7, 7), 7, (3, 3), "Tanh", strides=[2, 2])
    yield _fused_conv("contrib_fused_conv_sigmoid", (1, 4, 6, 5), 3, (1, 1), "Sigmoid")
    yield _fused_conv("contrib_fused_conv_leaky_relu", (1, 6, 8, 8), 6, (3, 3), "LeakyRelu", [0.15],
                      **same3)
    yield _fused_conv("contrib_fused_conv_clip", (1, 8, 7, 9), 12, (3, 3), "Clip", [-0.25, 0.4],
                      **same3)
    yield _fused_conv("contrib_fused_conv_hard_sigmoid", (1, 6, 5, 5), 6, (3, 3), "HardSigmoid",
                      [0.3, 0.45], **same3)
    yield _fused_conv("contrib_fused_conv_z_relu", (1, 8, 9, 9), 10, (3, 3), "Relu", z=True, **same3)
    yield _fused_conv("contrib_fused_conv_z_only_nobias", (2, 4, 6, 6), 4, (1, 1), bias=False, z=True)
    yield _fused_conv("contrib_fused_conv_z_sigmoid_strided", (1, 6, 11, 11), 9, (3, 3), "Sigmoid",
                      z=True, strides=[2, 2], **same3)
    yield _fused_conv("contrib_fused_depthwise_clip6", (1, 13, 10, 10), 13, (3, 3), "Clip", [0.0, 6.0],
                      group=13, **same3)
    yield _fused_conv("contrib_fused_conv1d_relu", (1, 5, 17), 6, (3,), "Relu", pads=[1, 1])


def _fused_gemm_cases():
    yield _fused_gemm("contrib_fused_gemm_relu", 5, 7, 9, "Relu", c_shape=(7,))
    yield _fused_gemm("contrib_fused_gemm_sigmoid_trans", 3, 10, 6, "Sigmoid", trans_a=1, trans_b=1,
                      c_shape=(3, 10))
    yield _fused_gemm("contrib_fused_gemm_tanh", 4, 5, 6, "Tanh")
    yield _fused_gemm("contrib_fused_gemm_leaky_relu", 6, 6, 8, "LeakyRelu", c_shape=(1, 6), alpha=0.2)
    yield _fused_gemm("contrib_fused_gemm_hard_sigmoid", 2, 9, 5, "HardSigmoid", trans_b=1,
                      alpha=0.3, beta=0.6)
    yield _fused_gemm("contrib_fused_gemm_thresholded_relu", 3, 8, 4, "ThresholdedRelu",
                      c_shape=(8,), alpha=0.1)
    yield _fused_gemm("contrib_fused_gemm_scaled_tanh", 3, 4, 7, "ScaledTanh", alpha=1.5, beta=0.7)


def cases():
    yield from _fused_conv_cases()
    yield from _fused_gemm_cases()
    yield from nchwc_cases()
