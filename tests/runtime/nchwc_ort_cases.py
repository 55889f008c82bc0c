#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Models for runtime_nchwc_ort_test: small CNNs written as plain ONNX that
# ONNX Runtime's NchwcTransformer (graph optimization level 'all') turns into
# com.microsoft.nchwc ops over channel counts that are no multiple of its
# block size (3, 5, 12, 20, 116, 130: odd for both MLAS block sizes, 8 and
# 16), so that the file onnxruntime-node writes pads channels in weights,
# biases, group counts and ReorderInput/ReorderOutput. Written in the case
# layout of tests/ops/gen_cases.py (OUT/<name>/{model.onnx, inputs/0.npy,
# meta.json}) so that tests/reference/ort_batch.js adds onnxruntime's outputs
# on the .onnx; meta.json's "nchwc_ops" lists the nchwc op types the level
# 'all' conversion must contain on an x86 host with AVX2 or AVX-512 (the
# proof that the case exercises them).
#
# Usage: /usr/bin/python3 tests/runtime/nchwc_ort_cases.py OUT
import json
import pathlib
import sys
import zlib

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


class _Graph:
    """One model: nodes, initializers and one float input "x"."""

    def __init__(self, name):
        self.name = name
        self.rng = np.random.default_rng(zlib.crc32(name.encode()))
        self.nodes, self.inits, self.count = [], [], 0

    def value(self, hint):
        self.count += 1
        return f"{hint}{self.count}"

    def init(self, array, hint="w"):
        n = self.value(hint)
        self.inits.append(numpy_helper.from_array(np.asarray(array), n))
        return n

    def op(self, op_type, inputs, **attrs):
        out = self.value(op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], **attrs))
        return out

    def conv(self, x, c, m, kernel=(3, 3), group=1, bias=True, **attrs):
        """Conv of c input to m output channels, weights scaled to keep activations O(1)."""
        fan_in = c // group * kernel[0] * kernel[1]
        w = self.rng.standard_normal((m, c // group) + tuple(kernel)) / np.sqrt(fan_in)
        ins = [x, self.init(w.astype(np.float32))]
        if bias:
            ins.append(self.init((0.1 * self.rng.standard_normal(m)).astype(np.float32), "b"))
        attrs.setdefault("pads", [kernel[0] // 2, kernel[1] // 2] * 2)
        return self.op("Conv", ins, kernel_shape=list(kernel), group=group, **attrs)

    def clip(self, x, lo, hi):
        return self.op("Clip", [x, self.init(np.float32(lo), "lo"), self.init(np.float32(hi), "hi")])

    def batchnorm(self, x, c):
        scale = self.rng.uniform(0.5, 1.5, c).astype(np.float32)
        bias = (0.1 * self.rng.standard_normal(c)).astype(np.float32)
        mean = (0.1 * self.rng.standard_normal(c)).astype(np.float32)
        var = self.rng.uniform(0.5, 1.5, c).astype(np.float32)
        return self.op("BatchNormalization",
                       [x] + [self.init(a, "bn") for a in (scale, bias, mean, var)])

    def write(self, out, y, x_shape, nchwc_ops, batch_dim=False):
        """OUT/<name>: the model with y as its output "y" and a random input x of x_shape,
        declared with a symbolic batch dimension "N" when batch_dim is set."""
        assert y == self.nodes[-1].output[0], "the output must be the last node's"
        self.nodes[-1].output[0] = "y"
        graph = helper.make_graph(
            self.nodes, self.name,
            [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                           ["N" if batch_dim else x_shape[0]] + list(x_shape[1:]))],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        model.ir_version = 8
        d = pathlib.Path(out) / self.name
        (d / "inputs").mkdir(parents=True, exist_ok=True)
        (d / "model.onnx").write_bytes(model.SerializeToString())
        x = self.rng.standard_normal(x_shape).astype(np.float32)
        np.save(d / "inputs" / "0.npy", x, allow_pickle=False)
        meta = {"name": self.name, "inputs": ["x"], "outputs": ["y"], "rtol": 0.0, "atol": 0.0,
                "nchwc_ops": sorted(nchwc_ops)}
        (d / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")


def first_conv(out, c, m, activation):
    """Group-1 Conv reading plain NCHW (c < block): OIHWBo weights, m padded, FusedConv's activation."""
    g = _Graph(f"first_conv_c{c}_{activation.lower()}")
    y = g.conv("x", c, m, strides=[2, 2], pads=[0, 1, 1, 0])
    if activation == "Clip":
        y = g.clip(y, -0.5, 0.75)
    elif activation == "LeakyRelu":
        y = g.op("LeakyRelu", [y], alpha=0.1)
    elif activation == "HardSigmoid":
        y = g.op("HardSigmoid", [y], alpha=0.3, beta=0.4)
    else:
        y = g.op(activation, [y])
    # A depthwise Conv on the padded output, then one more activation ORT fuses.
    y = g.op("Relu", [g.conv(y, m, m, group=m)])
    g.write(out, y, (2, c, 13, 11), {"Conv", "ReorderOutput"})


def depthwise(out, c, strides, dilations):
    """Depthwise Conv on a plain input of c channels: ReorderInput pads c, group padded too."""
    g = _Graph(f"depthwise_c{c}_s{strides[0]}_d{dilations[0]}")
    k = (3, 3)
    pads = [dilations[0], dilations[1]] * 2
    y = g.conv("x", c, c, kernel=k, group=c, strides=strides, dilations=dilations, pads=pads)
    y = g.clip(y, 0.0, 6.0)
    g.write(out, y, (1, c, 15, 12), {"ReorderInput", "Conv", "ReorderOutput"})


def channel_shuffle(out, c):
    """ShuffleNet's channel shuffle (Reshape, Transpose, Reshape to the Shape of an input with a
    free batch dimension: a value whose shape ORT cannot declare) before a depthwise Conv of c
    channels and a pointwise one."""
    g = _Graph(f"channel_shuffle_c{c}")
    split = g.init(np.array([0, 2, c // 2, 9, 9], np.int64), "split")
    t = g.op("Transpose", [g.op("Reshape", ["x", split])], perm=[0, 2, 1, 3, 4])
    shuffled = g.op("Reshape", [t, g.op("Shape", ["x"])])
    y = g.conv(shuffled, c, c, group=c)
    y = g.op("Relu", [g.conv(g.batchnorm(y, c), c, 32, kernel=(1, 1), bias=False)])
    g.write(out, y, (2, c, 9, 9), {"ReorderInput", "Conv", "ReorderOutput"}, batch_dim=True)


def padded_pointwise(out):
    """116 -> 130 channels after a depthwise Conv: the pointwise weights pad both their input
    (116 -> block multiple) and output channels, then a depthwise Conv of 130."""
    g = _Graph("padded_pointwise_c116_c130")
    y = g.op("Relu", [g.conv("x", 3, 116)])
    y = g.conv(y, 116, 116, group=116, strides=[2, 2])
    y = g.op("Sigmoid", [g.conv(y, 116, 130, kernel=(1, 1))])
    y = g.conv(y, 130, 130, group=130)
    g.write(out, y, (1, 3, 14, 14), {"Conv", "ReorderOutput"})


def activations(out):
    """Each activation FusedConv takes, on padded 20-channel outputs."""
    g = _Graph("fused_activations_c20")
    y = g.op("Relu", [g.conv("x", 5, 20)])
    y = g.op("Tanh", [g.conv(y, 20, 20, group=20)])
    y = g.op("Sigmoid", [g.conv(y, 20, 20, group=20)])
    y = g.op("LeakyRelu", [g.conv(y, 20, 20, group=20)], alpha=0.2)
    y = g.op("HardSigmoid", [g.conv(y, 20, 20, group=20)], alpha=0.25, beta=0.5)
    y = g.clip(g.conv(y, 20, 20, group=20), -0.3, 0.6)
    g.write(out, y, (1, 5, 10, 9), {"Conv", "ReorderOutput"})


def hard_swish_and_silu(out, c):
    """x * HardSigmoid(x) (alpha 1/6, beta 0.5), which ORT fuses into HardSwish and then into
    the Conv as MLAS's HardSwish activation, and x * Sigmoid(x), its QuickGelu on a blocked value."""
    g = _Graph(f"hard_swish_silu_c{c}")
    y = g.conv("x", 3, c)
    y = g.op("Mul", [y, g.op("Sigmoid", [y])])
    y = g.conv(y, c, c, group=c)
    y = g.op("Mul", [y, g.op("HardSigmoid", [y], alpha=1.0 / 6, beta=0.5)])
    y = g.conv(y, c, c, group=c)
    g.write(out, y, (1, 3, 9, 8), {"Conv", "ReorderOutput"})


def squeeze_excite(out, c):
    """MobileNet's squeeze-and-excitation on a padded value: global pool, two 1x1 convs,
    a broadcast Mul of the blocked value, then a depthwise Conv."""
    g = _Graph(f"squeeze_excite_c{c}")
    a = g.op("Relu", [g.conv("x", 3, c)])
    s = g.op("GlobalAveragePool", [a])
    s = g.op("Relu", [g.conv(s, c, 8, kernel=(1, 1))])
    s = g.op("Sigmoid", [g.conv(s, 8, c, kernel=(1, 1))])
    y = g.conv(g.op("Mul", [a, s]), c, c, group=c)
    g.write(out, y, (1, 3, 9, 9), {"Conv", "ReorderOutput"})


def shuffle_unit(out, c):
    """A ShuffleNetV2 unit of c channels: Split on channels, a pointwise-depthwise-pointwise
    branch, Concat, channel shuffle, then a depthwise Conv."""
    g = _Graph(f"shuffle_unit_c{c}")
    x = g.op("Relu", [g.conv("x", 3, c, strides=[2, 2])])
    h = c // 2
    a, b = g.value("half"), g.value("half")
    g.nodes.append(helper.make_node("Split", [x, g.init(np.array([h, h], np.int64), "split")],
                                    [a, b], axis=1))
    b = g.op("Relu", [g.conv(b, h, h, kernel=(1, 1))])
    b = g.op("Relu", [g.conv(g.conv(b, h, h, group=h), h, h, kernel=(1, 1))])
    cat = g.op("Concat", [a, b], axis=1)
    grouped = g.op("Reshape", [cat, g.init(np.array([0, 2, h, 8, 8], np.int64), "shape")])
    t = g.op("Transpose", [grouped], perm=[0, 2, 1, 3, 4])
    y = g.op("Reshape", [t, g.init(np.array([0, c, 8, 8], np.int64), "shape")])
    y = g.conv(y, c, c, group=c)
    g.write(out, y, (1, 3, 16, 16), {"Conv", "ReorderOutput"})


def mobilenet_v3_block(out, cin, cexp, cout):
    """A MobileNetV3 block: HardSwish (x * HardSigmoid(x)) after the expansion and the 5x5
    depthwise Conv of cexp channels, squeeze-and-excitation with HardSigmoid, projection."""
    g = _Graph(f"mobilenet_v3_block_c{cin}_c{cexp}_c{cout}")

    def hard_swish(v):
        return g.op("Mul", [v, g.op("HardSigmoid", [v], alpha=1.0 / 6, beta=0.5)])

    x = hard_swish(g.conv("x", 3, cin))
    e = hard_swish(g.conv(x, cin, cexp, kernel=(1, 1)))
    d = hard_swish(g.conv(e, cexp, cexp, kernel=(5, 5), group=cexp, strides=[2, 2]))
    s = g.op("Relu", [g.conv(g.op("GlobalAveragePool", [d]), cexp, 16, kernel=(1, 1))])
    s = g.op("HardSigmoid", [g.conv(s, 16, cexp, kernel=(1, 1))], alpha=1.0 / 6, beta=0.5)
    y = g.conv(g.op("Mul", [d, s]), cexp, cout, kernel=(1, 1))
    g.write(out, y, (1, 3, 16, 16), {"Conv", "ReorderOutput"})


def inception(out):
    """An Inception block: branches of 24, 40 and 16 channels (a 3x3 MaxPool branch)
    concatenated to 80, a ceil-mode MaxPool, a 1x1 Conv to 112."""
    g = _Graph("inception_c24_c40_c16")
    x = g.op("Relu", [g.conv("x", 3, 48)])
    b1 = g.op("Relu", [g.conv(x, 48, 24, kernel=(1, 1))])
    b2 = g.op("Relu", [g.conv(g.op("Relu", [g.conv(x, 48, 20, kernel=(1, 1))]), 20, 40)])
    pooled = g.op("MaxPool", [x], kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    b3 = g.op("Relu", [g.conv(pooled, 48, 16, kernel=(1, 1))])
    y = g.op("Concat", [b1, b2, b3], axis=1)
    y = g.op("MaxPool", [y], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)
    y = g.conv(y, 80, 112, kernel=(1, 1))
    g.write(out, y, (1, 3, 15, 15), {"Conv", "ReorderOutput"})


def residual_add(out, c):
    """Conv + Conv -> Add -> Relu on padded values (NchwcConvSumFusion: the Sum input)."""
    g = _Graph(f"residual_add_c{c}")
    a = g.op("Relu", [g.conv("x", 3, c)])
    b = g.conv(a, c, c, group=c)
    s = g.conv("x", 3, c, kernel=(1, 1))
    y = g.op("Relu", [g.op("Add", [b, s])])
    y = g.op("Sum", [g.conv(y, c, c, group=c), y, a])
    g.write(out, y, (1, 3, 11, 10), {"Conv", "ReorderOutput"})


def concat(out):
    """Concat on channels of blocked values (32 + 16) and of padded ones (20 + 12)."""
    g = _Graph("concat_channels")
    a = g.op("Relu", [g.conv("x", 3, 32)])
    b = g.op("Relu", [g.conv("x", 3, 16, kernel=(1, 1))])
    cat = g.op("Concat", [a, b], axis=1)
    d = g.conv(cat, 48, 20, kernel=(1, 1))
    e = g.conv(cat, 48, 12, kernel=(3, 3))
    cat2 = g.op("Concat", [d, e], axis=1)
    y = g.conv(cat2, 32, 32, group=32)
    g.write(out, y, (1, 3, 10, 12), {"Conv", "ReorderOutput"})


def pools(out, c, global_op):
    """nchwc MaxPool, AveragePool and a global pool on blocked channels, after padded convs."""
    g = _Graph(f"pools_c{c}_{global_op.lower()}")
    y = g.op("Relu", [g.conv("x", 5, c)])
    y = g.op("MaxPool", [y], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    y = g.op("AveragePool", [y], kernel_shape=[3, 2], strides=[1, 2], pads=[1, 0, 1, 1],
             count_include_pad=0, ceil_mode=1)
    y = g.conv(y, c, 20, kernel=(1, 1))
    y = g.op(global_op, [g.conv(y, 20, 32, kernel=(1, 1))])
    g.write(out, y, (2, 5, 17, 15), {"Conv", "MaxPool", "AveragePool", global_op,
                                     "ReorderOutput"})


def upsample(out, mode):
    """Resize by integer factors of a blocked value (nchwc Upsample), then padded convs."""
    g = _Graph(f"upsample_{mode}")
    y = g.op("Relu", [g.conv("x", 3, 32)])
    scales = g.init(np.array([1, 1, 2, 3], np.float32), "scales")
    attrs = {"mode": mode}
    if mode == "linear":
        attrs["coordinate_transformation_mode"] = "half_pixel"
    else:
        attrs["coordinate_transformation_mode"] = "asymmetric"
        attrs["nearest_mode"] = "floor"
    y = g.op("Resize", [y, "", scales], **attrs)
    y = g.conv(y, 32, 20, kernel=(1, 1))
    g.write(out, y, (1, 3, 6, 5), {"Conv", "Upsample", "ReorderOutput"})


def channels_last(out, c):
    """NHWC input and output around a depthwise Conv: ReorderInput/Output with channels_last."""
    g = _Graph(f"channels_last_c{c}")
    y = g.op("Transpose", ["x"], perm=[0, 3, 1, 2])
    y = g.op("Relu", [g.conv(y, c, c, group=c)])
    y = g.op("Transpose", [y], perm=[0, 2, 3, 1])
    g.write(out, y, (2, 7, 9, c), {"ReorderInput", "Conv", "ReorderOutput"})


def batchnorm(out):
    """BatchNormalization of a padded value: ORT's 1x1 depthwise nchwc Conv."""
    g = _Graph("batchnorm_c20")
    y = g.op("Relu", [g.conv("x", 3, 20)])
    y = g.batchnorm(y, 20)
    g.write(out, y, (1, 3, 8, 9), {"Conv", "ReorderOutput"})


def main(argv):
    if len(argv) != 2:
        print("usage: nchwc_ort_cases.py OUT", file=sys.stderr)
        return 2
    out = argv[1]
    first_conv(out, 3, 20, "Relu")
    first_conv(out, 5, 12, "Clip")
    first_conv(out, 3, 130, "LeakyRelu")
    first_conv(out, 5, 116, "HardSigmoid")
    # ORT leaves depthwise convolutions of 5 or 130 channels (not a multiple of 4) unblocked.
    for c in (12, 20, 116):
        depthwise(out, c, [1, 1], [1, 1])
    depthwise(out, 20, [2, 2], [1, 1])
    depthwise(out, 116, [2, 1], [2, 2])
    channel_shuffle(out, 116)
    channel_shuffle(out, 20)
    padded_pointwise(out)
    activations(out)
    hard_swish_and_silu(out, 20)
    squeeze_excite(out, 116)
    shuffle_unit(out, 116)
    mobilenet_v3_block(out, 80, 200, 80)
    inception(out)
    residual_add(out, 20)
    residual_add(out, 116)
    concat(out)
    pools(out, 32, "GlobalAveragePool")
    pools(out, 48, "GlobalMaxPool")
    upsample(out, "nearest")
    upsample(out, "linear")
    channels_last(out, 12)
    channels_last(out, 116)
    batchnorm(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
