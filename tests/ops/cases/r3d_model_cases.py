# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# A small video model shaped like torchvision's r3d_18, built with
# onnx.helper as torch.onnx exports it (BatchNormalization nodes, not folded):
# the Conv3d 3x7x7 stem with stride (1, 2, 2), BatchNorm3d and ReLU, a
# MaxPool3d, a basic residual block (two 3x3x3 convolutions, identity
# shortcut), a downsampling block (3x3x3 stride 2, 1x1x1 stride-2 shortcut),
# AdaptiveAvgPool3d(1) as GlobalAveragePool, an AveragePool3d branch, and the
# fully connected head. Random weights; at FP32 and at FP16 precision (the
# FP16 run within a tolerance of fp16 rounding), against onnxruntime.
import numpy as np
from onnx import TensorProto, helper, numpy_helper

_RNG = np.random.default_rng(20261208)


class _Builder:
    def __init__(self):
        self.nodes, self.inits, self.count = [], {}, 0

    def name(self, hint):
        self.count += 1
        return f"{hint}_{self.count}"

    def conv_bn(self, x, c_in, c_out, kernel, strides, pads, relu=True):
        w = self.name("w")
        self.inits[w] = (_RNG.normal(size=(c_out, c_in, *kernel)) *
                         np.sqrt(2.0 / (c_in * np.prod(kernel)))).astype(np.float32)
        y = self.name("conv")
        self.nodes.append(helper.make_node("Conv", [x, w], [y], kernel_shape=list(kernel),
                                           strides=list(strides), pads=list(pads) * 2))
        names = [self.name(p) for p in ("scale", "bias", "mean", "var")]
        self.inits[names[0]] = _RNG.uniform(0.5, 1.5, c_out).astype(np.float32)
        self.inits[names[1]] = _RNG.uniform(-0.2, 0.2, c_out).astype(np.float32)
        self.inits[names[2]] = _RNG.uniform(-0.2, 0.2, c_out).astype(np.float32)
        self.inits[names[3]] = _RNG.uniform(0.5, 1.5, c_out).astype(np.float32)
        bn = self.name("bn")
        self.nodes.append(helper.make_node("BatchNormalization", [y] + names, [bn], epsilon=1e-5))
        if not relu:
            return bn
        r = self.name("relu")
        self.nodes.append(helper.make_node("Relu", [bn], [r]))
        return r

    def add_relu(self, a, b):
        s, r = self.name("add"), self.name("relu")
        self.nodes.append(helper.make_node("Add", [a, b], [s]))
        self.nodes.append(helper.make_node("Relu", [s], [r]))
        return r


def r3d_like(batch, frames, size, classes=10):
    b = _Builder()
    x = b.conv_bn("video", 3, 16, (3, 7, 7), (1, 2, 2), (1, 3, 3))
    pooled = b.name("maxpool")
    b.nodes.append(helper.make_node("MaxPool", [x], [pooled], kernel_shape=[1, 3, 3],
                                    strides=[1, 2, 2], pads=[0, 1, 1, 0, 1, 1]))
    # Basic block, identity shortcut.
    h = b.conv_bn(pooled, 16, 16, (3, 3, 3), (1, 1, 1), (1, 1, 1))
    h = b.conv_bn(h, 16, 16, (3, 3, 3), (1, 1, 1), (1, 1, 1), relu=False)
    x = b.add_relu(h, pooled)
    # Downsampling block: stride 2 and a 1x1x1 stride-2 shortcut.
    h = b.conv_bn(x, 16, 32, (3, 3, 3), (2, 2, 2), (1, 1, 1))
    h = b.conv_bn(h, 32, 32, (3, 3, 3), (1, 1, 1), (1, 1, 1), relu=False)
    shortcut = b.conv_bn(x, 16, 32, (1, 1, 1), (2, 2, 2), (0, 0, 0), relu=False)
    x = b.add_relu(h, shortcut)
    # AdaptiveAvgPool3d(1), plus an AveragePool3d branch averaged in.
    gap, avg, avg_gap, feat = (b.name(n) for n in ("gap", "avgpool", "avg_gap", "feat"))
    b.nodes.append(helper.make_node("GlobalAveragePool", [x], [gap]))
    b.nodes.append(helper.make_node("AveragePool", [x], [avg], kernel_shape=[2, 3, 3],
                                    strides=[1, 2, 2], pads=[0, 1, 1, 1, 1, 1],
                                    count_include_pad=0))
    b.nodes.append(helper.make_node("GlobalAveragePool", [avg], [avg_gap]))
    b.nodes.append(helper.make_node("Add", [gap, avg_gap], [feat]))
    flat = b.name("flatten")
    b.nodes.append(helper.make_node("Flatten", [feat], [flat], axis=1))
    b.inits["fc_w"] = (_RNG.normal(size=(classes, 32)) / np.sqrt(32)).astype(np.float32)
    b.inits["fc_b"] = _RNG.uniform(-0.1, 0.1, classes).astype(np.float32)
    b.nodes.append(helper.make_node("Gemm", [flat, "fc_w", "fc_b"], ["logits"], transB=1))
    graph = helper.make_graph(
        b.nodes, "r3d_like",
        [helper.make_tensor_value_info("video", TensorProto.FLOAT, [batch, 3, frames, size, size])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [batch, classes])],
        initializer=[numpy_helper.from_array(v, k) for k, v in b.inits.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def cases():
    model = r3d_like(2, 8, 32)
    video = _RNG.normal(size=(2, 3, 8, 32, 32)).astype(np.float32)
    yield {"name": "r3d_like_fp32", "model": model, "inputs": {"video": video},
           "rtol": 1e-3, "atol": 1e-3, "kernel": "im2col3d copy, then ops/gemm_"}
    yield {"name": "r3d_like_fp16", "model": model, "inputs": {"video": video},
           "precision": "FP16", "rtol": 2e-2, "atol": 2e-2}
