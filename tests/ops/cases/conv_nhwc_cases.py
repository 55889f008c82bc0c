# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Channels-last convolutions (conv_layout NHWC, runtime/passes/channels_last.h):
# ONNX's NCHW models whose Convs the pass runs NHWC on the GEMM engine's
# NHWC im2col loader (shaders/gemm/gemm_load_im2col_nhwc.glsl), with
# Transposes where NCHW ops and the graph's outputs read them. Every Conv
# pins a tensor-core tile, run in its scalar emulation ("_emu") on devices
# without cooperative matrices, so lavapipe tests the loader. Models are
# stored in float16 (the loader's tensors); onnxruntime runs the same graph
# in fp32 between Casts, as in gemm_f16io_cases.py. Also: a resnet-like
# block (Conv + bias + Relu, Conv + residual Add + Relu, then
# GlobalAveragePool, Flatten, Gemm) stays NHWC from its first Conv to the
# pool, a ResNet-50-like stem and downsampling bottleneck, and the pass is
# off unless asked for.
import numpy as np
from onnx import TensorProto, helper, numpy_helper

_RNG = np.random.default_rng(20261207)
_PLAN_ATTR = "vkserve_gemm_plan"
_F16 = TensorProto.FLOAT16


def _rand(*shape, scale=1.0):
    return (_RNG.uniform(-1.0, 1.0, size=shape) * scale).astype(np.float16)


def _weight(c_out, c_in, k):
    return _rand(c_out, c_in, k, k, scale=1.0 / np.sqrt(c_in * k * k))


def _graph_pair(name, nodes, data, inits, outputs, fp32=False):
    """The fp16 model and its fp32-between-Casts twin (same output names);
    with fp32, the float32 model and itself without the pinned plans."""
    if fp32:
        data.update({k: v.astype(np.float32) for k, v in data.items()})
        inits.update({k: v.astype(np.float32) for k, v in inits.items()})

    elem = TensorProto.FLOAT if fp32 else _F16

    def build(reference):
        body = []
        rename = {}
        if reference and not fp32:
            for n in list(data) + list(inits):
                rename[n] = n + "_f32"
                body.append(helper.make_node("Cast", [n], [rename[n]], to=TensorProto.FLOAT))
        for op, ins, outs, attrs in nodes:
            a = dict(attrs)
            if reference:
                a.pop(_PLAN_ATTR, None)
            body.append(helper.make_node(op, [rename.get(i, i) for i in ins],
                                         [o + ("_f32" if rename and o in outputs else "")
                                          for o in outs], **a))
        if rename:
            for o in outputs:
                body.append(helper.make_node("Cast", [o + "_f32"], [o], to=_F16))
        graph = helper.make_graph(
            body, name,
            [helper.make_tensor_value_info(k, elem, list(v.shape)) for k, v in data.items()],
            [helper.make_tensor_value_info(o, elem, None) for o in outputs],
            initializer=[numpy_helper.from_array(v, k) for k, v in inits.items()])
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])
        m.ir_version = 9
        return m
    return build(False), build(True)


def _case(name, nodes, data, inits, outputs, nhwc_convs, layout="NHWC", fp32=False):
    model, reference = _graph_pair(name, nodes, data, inits, outputs, fp32)
    # fp16 outputs: half an ulp of |y| <= ~8 is 2^-8; sums differ in order too.
    case = {"name": name, "model": model, "inputs": data, "reference_model": reference,
            "rtol": 2e-3, "atol": 4e-3, "conv_layout": layout, "nhwc_convs": nhwc_convs}
    if fp32:
        # FP16 precision: fp16 activations and weights against fp32 math.
        case.update({"precision": "FP16", "rtol": 1e-2, "atol": 1e-2})
    return case


def conv(name, x_shape, c_out, k, pads, plan="cm64x64", tail=(), residual=False, **attrs):
    """One Conv (+ bias) and its tail, each ("Op", [extra inputs])."""
    data = {"X": _rand(*x_shape)}
    inits = {"W": _weight(c_out, x_shape[1], k), "B": _rand(c_out)}
    nodes = [("Conv", ["X", "W", "B"], ["t0"], {"pads": pads, _PLAN_ATTR: plan, **attrs})]
    cur = "t0"
    for i, (op, extra) in enumerate(tail):
        nodes.append((op, [cur] + extra, [f"t{i + 1}"], {}))
        cur = f"t{i + 1}"
    nodes[-1] = nodes[-1][:2] + (["Y"],) + nodes[-1][3:]
    if residual:
        oh = (x_shape[2] + pads[0] + pads[2] - k) // attrs.get("strides", [1, 1])[0] + 1
        ow = (x_shape[3] + pads[1] + pads[3] - k) // attrs.get("strides", [1, 1])[1] + 1
        data["R"] = _rand(x_shape[0], c_out, oh, ow)
    return _case(name, nodes, data, inits, ["Y"], nhwc_convs=1)


def block(name, x_shape, width, classes, plan="cm64x64", bn=False, layout="NHWC", nhwc=2,
          fp32=False):
    """A resnet-like basic block: Conv-(BN)-Relu, Conv-(BN), + X, Relu, then
    GlobalAveragePool, Flatten and Gemm. With bn, BatchNormalization nodes
    (which stay NCHW) follow each Conv; without, their scale and shift are
    folded into the Convs, as exporters do. fp32: a float32 model at FP16
    precision (whose activations the plan keeps in fp16)."""
    c = x_shape[1]
    data = {"X": _rand(*x_shape)}
    inits = {"W1": _weight(width, c, 3), "B1": _rand(width),
             "W2": _weight(c, width, 3), "B2": _rand(c),
             "Wfc": _rand(classes, c, scale=1.0 / np.sqrt(c)), "Bfc": _rand(classes)}
    p = {_PLAN_ATTR: plan, "pads": [1, 1, 1, 1]}
    nodes = [("Conv", ["X", "W1", "B1"], ["c1"], p)]
    a = "c1"
    if bn:
        for i, ch in (("1", width), ("2", c)):
            inits[f"s{i}"] = (1 + 0.2 * _rand(ch)).astype(np.float16)
            inits[f"o{i}"] = _rand(ch, scale=0.2)
            inits[f"m{i}"] = _rand(ch, scale=0.2)
            inits[f"v{i}"] = (1 + 0.5 * np.abs(_rand(ch))).astype(np.float16)
        nodes.append(("BatchNormalization", ["c1", "s1", "o1", "m1", "v1"], ["n1"], {}))
        a = "n1"
    nodes.append(("Relu", [a], ["r1"], {}))
    nodes.append(("Conv", ["r1", "W2", "B2"], ["c2"], p))
    b = "c2"
    if bn:
        nodes.append(("BatchNormalization", ["c2", "s2", "o2", "m2", "v2"], ["n2"], {}))
        b = "n2"
    nodes += [("Add", [b, "X"], ["sum"], {}),
              ("Relu", ["sum"], ["r2"], {}),
              ("GlobalAveragePool", ["r2"], ["pool"], {}),
              ("Flatten", ["pool"], ["flat"], {}),
              ("Gemm", ["flat", "Wfc", "Bfc"], ["Y"], {"transB": 1})]
    return _case(name, nodes, data, inits, ["Y"], nhwc_convs=nhwc, layout=layout, fp32=fp32)


def bottleneck(name, x_shape, fp32=False):
    """A ResNet-50 stem and downsampling bottleneck: Conv 7x7/2 (3 channels:
    stays NCHW), MaxPool, then 1x1 -> 3x3/2 -> 1x1 Convs with bias and Relu
    plus a strided 1x1 shortcut, added (fused into one of the two) and
    Relu'd, then GlobalAveragePool, Flatten, Gemm. The shortcut's NHWC
    result is the other Conv's residual; MaxPool's output is transposed to
    NHWC once for both of its readers."""
    data = {"X": _rand(*x_shape)}
    inits = {"Ws": _weight(16, 3, 7), "Bs": _rand(16),
             "W1": _weight(8, 16, 1), "B1": _rand(8),
             "W2": _weight(8, 8, 3), "B2": _rand(8),
             "W3": _weight(32, 8, 1), "B3": _rand(32),
             "Wd": _weight(32, 16, 1), "Bd": _rand(32),
             "Wfc": _rand(5, 32, scale=0.2), "Bfc": _rand(5)}
    pin = {_PLAN_ATTR: "cm64x64"}
    nodes = [("Conv", ["X", "Ws", "Bs"], ["stem"], {**pin, "pads": [3, 3, 3, 3],
                                                    "strides": [2, 2]}),
             ("Relu", ["stem"], ["stem_r"], {}),
             ("MaxPool", ["stem_r"], ["pool0"], {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1],
                                                 "strides": [2, 2]}),
             ("Conv", ["pool0", "W1", "B1"], ["a"], pin),
             ("Relu", ["a"], ["ar"], {}),
             ("Conv", ["ar", "W2", "B2"], ["b"], {**pin, "pads": [1, 1, 1, 1],
                                                  "strides": [2, 2]}),
             ("Relu", ["b"], ["br"], {}),
             ("Conv", ["br", "W3", "B3"], ["c"], pin),
             ("Conv", ["pool0", "Wd", "Bd"], ["d"], {**pin, "strides": [2, 2]}),
             ("Add", ["c", "d"], ["sum"], {}),
             ("Relu", ["sum"], ["out"], {}),
             ("GlobalAveragePool", ["out"], ["gap"], {}),
             ("Flatten", ["gap"], ["flat"], {}),
             ("Gemm", ["flat", "Wfc", "Bfc"], ["Y"], {"transB": 1})]
    return _case(name, nodes, data, inits, ["Y"], nhwc_convs=4, fp32=fp32)


def cases():
    # Windows: 3x3 stride 1 with C = 8 at odd H and W; stride 2 with C = 64
    # and asymmetric pads; a 7x7 stride-2 stem with pads 3; dilation; a
    # strided 1x1 (the NHWC loader with one tap); a plain 1x1 (the product
    # X[pixels, C] x W^T).
    yield conv("conv_nhwc_3x3_c8_odd", (2, 8, 9, 11), 16, 3, [1, 1, 1, 1])
    yield conv("conv_nhwc_3x3_s2_c64", (2, 64, 15, 13), 24, 3, [1, 0, 1, 2], strides=[2, 2])
    yield conv("conv_nhwc_7x7_s2_pad3", (2, 8, 23, 21), 16, 7, [3, 3, 3, 3], strides=[2, 2])
    yield conv("conv_nhwc_3x3_dil2", (1, 16, 12, 11), 9, 3, [2, 2, 2, 2], dilations=[2, 2])
    yield conv("conv_nhwc_1x1_s2", (2, 24, 14, 14), 20, 1, [0, 0, 0, 0], strides=[2, 2])
    yield conv("conv_nhwc_1x1_c64", (1, 64, 7, 9), 40, 1, [0, 0, 0, 0])
    # Epilogues fused into the NHWC Conv: Relu; residual Add (R read NHWC
    # through an inserted Transpose) then Relu; split-K (the reduction
    # writes through the NHWC output view).
    yield conv("conv_nhwc_3x3_relu", (1, 8, 10, 10), 130, 3, [1, 1, 1, 1], tail=[("Relu", [])])
    yield conv("conv_nhwc_3x3_add_relu", (2, 16, 7, 9), 32, 3, [1, 1, 1, 1],
               tail=[("Add", ["R"]), ("Relu", [])], residual=True)
    yield conv("conv_nhwc_3x3_split", (1, 32, 6, 7), 16, 3, [1, 1, 1, 1], plan="cm64x64/4")
    yield conv("conv_nhwc_3x3_s1tile", (2, 8, 9, 11), 16, 3, [1, 1, 1, 1], plan="cm64x64s1")
    yield conv("conv_nhwc_3x3_k64tile", (2, 16, 9, 11), 16, 3, [1, 1, 1, 1], plan="cm64x64k64s1p2")
    # Larger tiles (4 units of B per thread): emulated where their shared
    # memory fits the device, else refused naming the tile.
    for t in ("128x128w4", "128x256", "256x128"):
        yield {**conv(f"conv_nhwc_3x3_cm{t}", (2, 64, 15, 13), 40, 3, [1, 1, 1, 1],
                      plan=f"cm{t}"), "requires": "cooperative_matrix"}
    # C = 3 (not a multiple of 8): the pass leaves the Conv NCHW.
    yield {**conv("conv_nhwc_c3_stays_nchw", (1, 3, 9, 9), 8, 3, [1, 1, 1, 1]), "nhwc_convs": 0}
    # The block: both Convs NHWC (the residual Add and Relus fused), one
    # Transpose in (X) and one out (to the pool); with BatchNormalization
    # nodes between, Transposes around them; the pass off by default.
    yield block("conv_nhwc_block", (2, 16, 9, 9), 32, 10)
    yield block("conv_nhwc_block_fp32_model", (2, 16, 9, 9), 32, 10, fp32=True)
    # BatchNormalization takes fp32 tensors: a float32 model at FP16 precision.
    yield block("conv_nhwc_block_bn", (2, 16, 9, 9), 32, 10, bn=True, fp32=True)
    yield bottleneck("conv_nhwc_bottleneck", (2, 3, 33, 31))
    yield bottleneck("conv_nhwc_bottleneck_fp32_model", (2, 3, 33, 31), fp32=True)
    # fp32 activations (a float32 model at FP32 precision): nothing converted.
    yield {**block("conv_nhwc_block_fp32_precision", (2, 16, 9, 9), 32, 10, fp32=True, nhwc=0),
           "precision": "FP32", "rtol": 1e-4, "atol": 1e-4}
    yield block("conv_nhwc_block_off", (2, 16, 9, 9), 32, 10, layout="NCHW", nhwc=0)
