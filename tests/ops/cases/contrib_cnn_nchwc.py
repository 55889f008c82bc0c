# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# com.microsoft.nchwc cases for contrib_cnn_cases.py: small graphs of ORT's
# blocked-layout ops built by hand, with the convolution weights blocked
# here (MLAS's OIHWBo and OIHWBiBo layouts, output channels zero-padded to the
# block size) and run by onnxruntime as the reference. The block size must be
# the one of the onnxruntime that computes the references: MLAS uses 16 on
# x86 with AVX-512F and 8 on other x86 machines. The contrib_nchwc_block<N>_
# cases are written at the other block size, with channel counts no multiple
# of it, and compared with the plain ONNX model they stand for.
import numpy as np
from onnx import TensorProto, helper, numpy_helper

_RNG = np.random.default_rng(20260612)
_NCHWC = "com.microsoft.nchwc"


def _mlas_block_size():
    try:
        with open("/proc/cpuinfo") as f:
            flags = f.read()
    except OSError:
        flags = ""
    return 16 if " avx512f" in flags else 8


B = _mlas_block_size()


def _rand(*shape):
    return _RNG.uniform(-1.0, 1.0, size=shape).astype(np.float32)


def _smooth(m, i, kh, kw):
    """Filters shaped like trained ones: smooth bumps, not independent taps."""
    y, x = np.mgrid[0:kh, 0:kw].astype(np.float32)
    cy = _RNG.uniform(0, kh - 1, size=(m, i, 1, 1))
    cx = _RNG.uniform(0, kw - 1, size=(m, i, 1, 1))
    bump = np.exp(-((y - cy) ** 2 + (x - cx) ** 2) / 2.0)
    amp = _RNG.uniform(-1.0, 1.0, size=(m, i, 1, 1))
    return (amp * bump + 0.05 * _rand(m, i, kh, kw)).astype(np.float32)


def _pad_to(n):
    return (n + B - 1) // B * B


def _pad_out(w):
    mp = _pad_to(w.shape[0])
    wp = np.zeros((mp,) + w.shape[1:], np.float32)
    wp[:w.shape[0]] = w
    return wp


def block_oihwbo(w):
    """[M, I, KH, KW] -> memory [Mp/B][I][KH][KW][B], shape [Mp, I, KH, KW]."""
    wp = _pad_out(w)
    mp, i, kh, kw = wp.shape
    return np.ascontiguousarray(
        wp.reshape(mp // B, B, i, kh, kw).transpose(0, 2, 3, 4, 1)).reshape(mp, i, kh, kw)


def block_oihwbibo(w):
    """[M, I, KH, KW] -> memory [Mp/B][I/B][KH][KW][Bi][Bo], shape [Mp, I, KH, KW]."""
    wp = _pad_out(w)
    mp, i, kh, kw = wp.shape
    assert i % B == 0
    return np.ascontiguousarray(
        wp.reshape(mp // B, B, i // B, B, kh, kw).transpose(0, 2, 4, 5, 3, 1)).reshape(mp, i, kh, kw)


class _Graph:
    """Collects nodes, initializers and inputs of one case."""

    def __init__(self):
        self.nodes, self.inits, self.inputs, self.feeds = [], [], [], {}
        self.count = 0

    def name(self, hint):
        self.count += 1
        return f"{hint}{self.count}"

    def input(self, shape):
        x = _rand(*shape)
        n = self.name("X")
        self.inputs.append(helper.make_tensor_value_info(n, TensorProto.FLOAT, list(shape)))
        self.feeds[n] = x
        return n

    def init(self, array, hint="w"):
        n = self.name(hint)
        self.inits.append(numpy_helper.from_array(np.asarray(array), n))
        return n

    def op(self, op_type, inputs, domain=_NCHWC, **attrs):
        out = self.name(op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], domain=domain, **attrs))
        return out

    def conv(self, x, m, c, kernel, group=1, plain_input=False, bias=True, sum_input=None,
             smooth=False, **attrs):
        """nchwc Conv of m output channels on c (padded) input channels."""
        w = _smooth(m, c // group, *kernel) if smooth else _rand(m, c // group, *kernel)
        w = (w / np.sqrt(c // group * np.prod(kernel))).astype(np.float32)
        depthwise = group > 1 and c // group == 1 and m == group
        blocked = block_oihwbo(w) if depthwise or plain_input else block_oihwbibo(w)
        ins = [x, self.init(blocked)]
        if bias:
            ins.append(self.init(np.pad(_rand(m), (0, _pad_to(m) - m)), "b"))
        if sum_input is not None:
            if not bias:
                ins.append("")
            ins.append(sum_input)
        if group != 1:
            attrs["group"] = group
        return self.op("Conv", ins, **attrs)

    def case(self, name, y):
        self.nodes[-1].output[0] = "Y"
        for n in self.nodes[:-1]:
            for i, v in enumerate(n.input):
                if v == y:
                    n.input[i] = "Y"
        graph = helper.make_graph(self.nodes, "nchwc", self.inputs,
                                  [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
                                  initializer=self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13),
                                                        helper.make_opsetid(_NCHWC, 1)])
        model.ir_version = 8
        return {"name": name, "model": model, "inputs": self.feeds}


# Shapes that fix the block size: 24 channels pad to 32 with B = 16 (and
# ReorderOutput then drops 12 > 8 of them), and to 24, no multiple of 16,
# with B = 8. Cases without such a witness use smooth filters, whose
# un-blocking only the right block size keeps smooth.
C24 = 24


def _first_conv():
    # Plain NCHW input (fewer channels than B): OIHWBo weights, padded outputs.
    g = _Graph()
    x = g.input((1, 3, 11, 9))
    y = g.conv(x, 20, 3, (3, 3), plain_input=True, pads=[1, 1, 1, 1], activation="Relu")
    return g.case("contrib_nchwc_first_conv_relu", g.op("ReorderOutput", [y], channels=20))


def _conv_chain():
    # ReorderInput (zero-padding 12 channels to a block), a blocked conv with
    # padded outputs, depthwise and 1x1 convs with activations and a Sum.
    g = _Graph()
    x = g.input((2, 12, 9, 9))
    r = g.op("ReorderInput", [x])
    a = g.conv(r, C24, _pad_to(12), (3, 3), strides=[2, 2], pads=[1, 1, 1, 1], activation="Clip",
               activation_params=[-0.25, 0.5])
    d = g.conv(a, _pad_to(C24), _pad_to(C24), (3, 3), group=_pad_to(C24), pads=[1, 1, 1, 1],
               activation="HardSigmoid", activation_params=[0.2, 0.5])
    s = g.conv(a, _pad_to(C24), _pad_to(C24), (1, 1), bias=False)
    p = g.conv(d, _pad_to(C24), _pad_to(C24), (1, 1), sum_input=s, activation="LeakyRelu",
               activation_params=[0.1])
    return g.case("contrib_nchwc_conv_chain", g.op("ReorderOutput", [p], channels=20))


def _grouped_conv():
    g = _Graph()
    x = g.input((1, 2 * B, 7, 6))
    r = g.op("ReorderInput", [x])
    y = g.conv(r, 2 * B, 2 * B, (3, 3), group=2, pads=[0, 1, 2, 1], dilations=[1, 2],
               activation="Tanh", smooth=True)
    return g.case("contrib_nchwc_grouped_conv", g.op("ReorderOutput", [y], channels=2 * B))


def _pools():
    g = _Graph()
    x = g.input((1, B, 13, 11))
    r = g.op("ReorderInput", [x])
    m = g.op("MaxPool", [r], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    a = g.op("AveragePool", [m], kernel_shape=[2, 3], pads=[0, 1, 1, 1], count_include_pad=0,
             ceil_mode=1, strides=[2, 2])
    u = g.op("Upsample", [a], scales=[1, 1, 3, 2])
    return g.case("contrib_nchwc_pools_upsample_nhwc",
                  g.op("ReorderOutput", [u], channels=B, channels_last=1))


def _global_pools(kind):
    g = _Graph()
    x = g.input((2, 2 * B, 5, 7))
    r = g.op("ReorderInput", [x])
    c = g.conv(r, C24, 2 * B, (1, 1), activation="Sigmoid")
    p = g.op(kind, [c])
    return g.case(f"contrib_nchwc_{kind.lower()}", g.op("ReorderOutput", [p], channels=20))


def _upsample_linear(coord):
    g = _Graph()
    x = g.input((1, B, 5, 4))
    r = g.op("ReorderInput", [x])
    u = g.op("Upsample", [r], scales=[1, 1, 2, 3], mode="linear", coordinate_transformation_mode=coord)
    return g.case(f"contrib_nchwc_upsample_linear_{coord}", g.op("ReorderOutput", [u], channels=B))


def _plain_ops_between():
    # ONNX-domain nodes on blocked tensors, as ORT leaves them: Add through
    # its [0, Cp/B, 0, 0, B] reshape pair, Relu, Concat on channels.
    g = _Graph()
    x = g.input((1, 2 * B, 6, 6))
    r = g.op("ReorderInput", [x])
    a = g.conv(r, 2 * B, 2 * B, (3, 3), pads=[1, 1, 1, 1])
    b = g.conv(r, 2 * B, 2 * B, (1, 1))
    split = g.init(np.array([0, 2, 0, 0, B], np.int64), "split")
    unsplit = g.init(np.array([0, 2 * B, 0, 0], np.int64), "unsplit")
    a5 = g.op("Reshape", [a, split], domain="")
    b5 = g.op("Reshape", [b, split], domain="")
    s = g.op("Reshape", [g.op("Add", [a5, b5], domain=""), unsplit], domain="")
    relu = g.op("Relu", [s], domain="")
    cat = g.op("Concat", [relu, b], domain="", axis=1)
    y = g.conv(cat, B, 4 * B, (1, 1), activation="Relu")
    return g.case("contrib_nchwc_plain_ops_between", g.op("ReorderOutput", [y], channels=B - 5))


def _batchnorm_as_conv():
    # ORT writes BatchNormalization on a blocked tensor as a 1x1 depthwise
    # convolution over the padded channels.
    g = _Graph()
    x = g.input((1, 3, 8, 8))
    c = g.conv(x, C24, 3, (3, 3), plain_input=True)
    bn = g.conv(c, _pad_to(C24), _pad_to(C24), (1, 1), group=_pad_to(C24), activation="Relu")
    return g.case("contrib_nchwc_batchnorm_as_conv", g.op("ReorderOutput", [bn], channels=20))


# The other MLAS block size than this host's: files ONNX Runtime writes on a
# host of that size, which this host's onnxruntime would misread, so the
# reference is the plain ONNX model the nchwc one stands for
# ("reference_model"). Channel counts are no multiple of either block size.
FOREIGN_B = 8 if B == 16 else 16


class _Dual:
    """One nchwc model at block size FOREIGN_B and the plain model it stands for, built side by
    side from the same weights."""

    def __init__(self, x_shape):
        self.b = FOREIGN_B
        self.g, self.plain_nodes, self.plain_inits = _Graph(), [], []
        self.x = self.g.input(x_shape)

    def pad(self, n):
        return (n + self.b - 1) // self.b * self.b

    def plain_init(self, array, hint):
        name = self.g.name(hint)
        self.plain_inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def plain(self, op_type, inputs, **attrs):
        out = self.g.name("p_" + op_type.lower())
        self.plain_nodes.append(helper.make_node(op_type, inputs, [out], **attrs))
        return out

    def block(self, w, mp, ip=None):
        """[M, I, KH, KW] zero-padded to [mp, ip or I, ...] and laid out as OIHWBo (ip None) or
        OIHWBiBo, in the shape [mp, ip or I, KH, KW]."""
        b = self.b
        m, i, kh, kw = w.shape
        wp = np.zeros((mp, ip or i, kh, kw), np.float32)
        wp[:m, :i] = w
        if ip is None:
            blocked = wp.reshape(mp // b, b, i, kh, kw).transpose(0, 2, 3, 4, 1)
        else:
            blocked = wp.reshape(mp // b, b, ip // b, b, kh, kw).transpose(0, 2, 4, 5, 3, 1)
        return np.ascontiguousarray(blocked).reshape(wp.shape)

    def conv(self, xs, c, m, kernel, kind, activation=None, params=(), **attrs):
        """kind: "plain_input" (group 1 on NCHW, c < block), "depthwise" (c == m) or "blocked"
        (group 1 on a blocked input of pad(c) channels). xs: (nchwc value, plain value)."""
        w = _smooth(m, 1 if kind == "depthwise" else c, *kernel)
        w = (w / np.sqrt(w.shape[1] * np.prod(kernel))).astype(np.float32)
        bias = _rand(m)
        mp = self.pad(m)
        if kind == "blocked":
            blocked = self.block(w, mp, self.pad(c))
        else:
            blocked = self.block(w, mp)
        nattrs = dict(attrs)
        if kind == "depthwise":
            nattrs["group"] = mp
        if activation is not None:
            nattrs["activation"] = activation
            if params:
                nattrs["activation_params"] = list(params)
        yn = self.g.op("Conv", [xs[0], self.g.init(blocked), self.g.init(np.pad(bias, (0, mp - m)),
                                                                          "b")], **nattrs)
        pattrs = dict(attrs)
        if kind == "depthwise":
            pattrs["group"] = m
        yp = self.plain("Conv", [xs[1], self.plain_init(w, "pw"), self.plain_init(bias, "pb")],
                        **pattrs)
        if activation == "Clip":
            yp = self.plain("Clip", [yp, self.plain_init(np.float32(params[0]), "lo"),
                                     self.plain_init(np.float32(params[1]), "hi")])
        elif activation == "HardSigmoid":
            yp = self.plain("HardSigmoid", [yp], alpha=params[0], beta=params[1])
        elif activation == "LeakyRelu":
            yp = self.plain("LeakyRelu", [yp], alpha=params[0])
        elif activation is not None:
            yp = self.plain(activation, [yp])
        return yn, yp

    def same(self, op_type, xs, **attrs):
        """The nchwc op and the ONNX op of the same name and attributes."""
        return self.g.op(op_type, [xs[0]], **attrs), self.plain(op_type, [xs[1]], **attrs)

    def reorder_input(self, xs, channels_last=0):
        yp = self.plain("Transpose", [xs[1]], perm=[0, 3, 1, 2]) if channels_last else xs[1]
        return self.g.op("ReorderInput", [xs[0]], channels_last=channels_last), yp

    def reorder_output(self, xs, channels, channels_last=0):
        yp = self.plain("Transpose", [xs[1]], perm=[0, 2, 3, 1]) if channels_last else xs[1]
        yp = self.plain("Identity", [yp])
        return self.g.op("ReorderOutput", [xs[0]], channels=channels,
                         channels_last=channels_last), yp

    def case(self, name, ys):
        case = self.g.case(f"contrib_nchwc_block{self.b}_{name}", ys[0])
        self.plain_nodes[-1].output[0] = "Y"
        graph = helper.make_graph(self.plain_nodes, "plain", list(self.g.inputs),
                                  [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
                                  initializer=self.plain_inits)
        ref = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        ref.ir_version = 8
        case["reference_model"] = ref
        return case


def _foreign_first_conv():
    # Plain input of 3 channels, 20 outputs padded, a depthwise Conv over the padded channels.
    d = _Dual((1, 3, 11, 9))
    y = d.conv((d.x, d.x), 3, 20, (3, 3), "plain_input", "Relu", pads=[1, 1, 1, 1],
               strides=[2, 1])
    y = d.conv(y, 20, 20, (3, 3), "depthwise", "HardSigmoid", (0.2, 0.5), pads=[1, 1, 1, 1])
    return d.case("first_conv_depthwise_c20", d.reorder_output(y, 20))


def _foreign_pointwise_pools():
    # ReorderInput padding 20 channels, depthwise, a pointwise Conv whose weights pad both
    # their input (20) and output (116) channels, pools, ReorderOutput dropping the padding.
    d = _Dual((2, 20, 9, 9))
    y = d.reorder_input((d.x, d.x))
    y = d.conv(y, 20, 20, (3, 3), "depthwise", "Clip", (0.0, 6.0), pads=[1, 1, 1, 1])
    y = d.conv(y, 20, 116, (1, 1), "blocked", "LeakyRelu", (0.1,))
    y = d.same("MaxPool", y, kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    y = d.same("GlobalAveragePool", y)
    return d.case("pointwise_pools_c20_c116", d.reorder_output(y, 116))


def _foreign_channels_last():
    # NHWC in and out around a depthwise Conv of 12 channels: both block sizes pad 12 to 16,
    # so only the weights (zero padding filters) tell the block size.
    d = _Dual((1, 7, 9, 12))
    y = d.reorder_input((d.x, d.x), channels_last=1)
    y = d.conv(y, 12, 12, (3, 3), "depthwise", "Relu", pads=[1, 1, 1, 1])
    return d.case("channels_last_c12", d.reorder_output(y, 12, channels_last=1))


def _foreign_upsample():
    d = _Dual((1, 20, 5, 4))
    y = d.reorder_input((d.x, d.x))
    y = d.conv(y, 20, 20, (3, 3), "depthwise", pads=[1, 1, 1, 1])
    yn = d.g.op("Upsample", [y[0]], scales=[1, 1, 2, 3])
    scales = d.plain_init(np.array([1, 1, 2, 3], np.float32), "scales")
    yp = d.plain("Resize", [y[1], "", scales], mode="nearest",
                 coordinate_transformation_mode="asymmetric", nearest_mode="floor")
    return d.case("upsample_c20", d.reorder_output((yn, yp), 20))


def nchwc_cases():
    yield _first_conv()
    yield _conv_chain()
    yield _grouped_conv()
    yield _pools()
    yield _global_pools("GlobalAveragePool")
    yield _global_pools("GlobalMaxPool")
    yield _upsample_linear("align_corners")
    yield _upsample_linear("half_pixel")
    yield _upsample_linear("asymmetric")
    yield _plain_ops_between()
    yield _batchnorm_as_conv()
    # Last, so that the cases above keep their random draws.
    yield _foreign_first_conv()
    yield _foreign_pointwise_pools()
    yield _foreign_channels_last()
    yield _foreign_upsample()
