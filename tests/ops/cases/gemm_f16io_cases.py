# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Models stored in float16: MatMul, Gemm and Conv on fp16 tensors run natively
# on the GEMM engine's "_f16" variants (fp16 loads, fp32 sums, the epilogue's
# cast to fp16 in the store), across the kernels the cost model can pick
# (pinned: tiles with matrix and im2col B, gemv, split-K) and the epilogues
# (alpha, beta * C, bias, residual, activation), at odd and vector sizes.
# onnxruntime runs the same graph in fp32 between Casts ("reference_model"),
# so the only difference allowed is the rounding of fp16 outputs. The "cm"
# cases pin the tensor-core tiles (fp16 tensors take them at FP32 precision
# too): emulated where the device has no cooperative matrices, for the tiles
# whose shared memory fits lavapipe; the others run only on such devices.
import numpy as np
from onnx import TensorProto, helper, numpy_helper

_RNG = np.random.default_rng(20261126)
_PLAN_ATTR = "vkserve_gemm_plan"
_F16 = TensorProto.FLOAT16


def _rand(*shape, scale=1.0):
    return (_RNG.uniform(-1.0, 1.0, size=shape) * scale).astype(np.float16)


def _models(op, data, inits, attrs, plan, tail):
    """The fp16 model and its fp32-between-Casts twin. `tail`: ops after op."""
    def build(reference):
        nodes, names = [], {}
        for name in list(data) + list(inits):
            names[name] = name
            if reference:
                names[name] = name + "_f32"
                nodes.append(helper.make_node("Cast", [name], [names[name]], to=TensorProto.FLOAT))
        a = dict(attrs)
        if plan is not None and not reference:
            a[_PLAN_ATTR] = plan
        # The op's inputs: every tensor but the residual R (the tail's).
        ins = [names[n] for n in list(data) + list(inits) if n != "R"]
        nodes.append(helper.make_node(op, ins, ["t0"], **a))
        cur = "t0"
        for i, (t_op, t_ins) in enumerate(tail):
            nodes.append(helper.make_node(t_op, [cur] + [names[n] for n in t_ins], [f"t{i + 1}"]))
            cur = f"t{i + 1}"
        if reference:
            nodes.append(helper.make_node("Cast", [cur], ["Y"], to=_F16))
        else:
            nodes[-1].output[0] = "Y"
        graph = helper.make_graph(
            nodes, "gemm_f16io",
            [helper.make_tensor_value_info(k, _F16, list(v.shape)) for k, v in data.items()],
            [helper.make_tensor_value_info("Y", _F16, None)],
            initializer=[numpy_helper.from_array(v, k) for k, v in inits.items()])
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])
        m.ir_version = 9
        return m
    return build(False), build(True)


def _case(name, op, data, inits, attrs, plan, tail=(), coopmat=False):
    model, reference = _models(op, data, inits, attrs, plan, tail)
    # fp16 outputs: half an ulp of |y| <= ~8 is 2^-8; sums differ in order too.
    case = {"name": name, "model": model, "inputs": data, "reference_model": reference,
            "rtol": 2e-3, "atol": 4e-3}
    if coopmat:
        case["requires"] = "cooperative_matrix"
    return case


def matmul(name, a_shape, b_shape, plan, tail=(), residual=False, coopmat=False):
    data = {"A": _rand(*a_shape), "B": _rand(*b_shape, scale=1.0 / np.sqrt(b_shape[-2]))}
    if residual:
        out = np.matmul(data["A"].astype(np.float32), data["B"].astype(np.float32)).shape
        data["R"] = _rand(*out)
    return _case(name, "MatMul", data, {}, {}, plan, tail, coopmat)


def gemm(name, m, n, k, plan, trans_b=False, coopmat=False):
    data = {"A": _rand(m, k), "B": _rand(*((n, k) if trans_b else (k, n)), scale=1.0 / np.sqrt(k)),
            "C": _rand(n)}
    return _case(name, "Gemm", data, {}, {"transB": int(trans_b), "alpha": 0.5, "beta": 2.0}, plan,
                 coopmat=coopmat)


def conv(name, x_shape, c_out, kernel, pads, plan, tail=(), coopmat=False, residual=None, **attrs):
    data = {"X": _rand(*x_shape)}
    if residual is not None:  # the shape of R, which the tail adds
        data["R"] = _rand(*residual)
    cin_g = x_shape[1] // attrs.get("group", 1)
    inits = {"W": _rand(c_out, cin_g, kernel, kernel, scale=1.0 / np.sqrt(cin_g * kernel * kernel)),
             "Bc": _rand(c_out)}
    case = _case(name, "Conv", data, inits, {"pads": pads, **attrs}, plan, tail, coopmat)
    # `vkserve inspect` names the GEMM kernel the pinned plan ran (its
    # "_emu" form where the tensor cores are emulated).
    tile = plan.split("/")[0]
    case["kernel"] = (f"ops/gemm_cm_{tile[2:]}_16x16x16_im2col_f16" if tile.startswith("cm")
                      else f"ops/gemm_{tile}_im2col_f16")
    # A strided 1x1 without pads copies its pixels out first, and a larger
    # window on tensor cores with 128 or more outputs per group its im2col
    # matrix (conv.cc).
    if kernel == 1 and attrs.get("strides", [1, 1]) != [1, 1] and not any(pads):
        case["kernel"] = "strided copy, then " + case["kernel"]
    elif kernel > 1 and tile.startswith("cm") and c_out // attrs.get("group", 1) >= 128:
        case["kernel"] = "im2col copy, then " + case["kernel"]
    return case


def cases():
    yield matmul("gemm_f16io_mm_odd", (127, 13), (13, 7), "32x64")
    yield matmul("gemm_f16io_mm_vec_split", (64, 132), (132, 68), "64x64/2")
    yield matmul("gemm_f16io_mm_128x64", (130, 256), (256, 96), "128x64")
    yield matmul("gemm_f16io_mm_batch", (3, 7, 13), (3, 13, 127), "64x32")
    yield matmul("gemm_f16io_mm_relu", (13, 127), (127, 36), "16x64", tail=[("Relu", [])])
    yield matmul("gemm_f16io_mm_residual_split", (36, 1000), (1000, 20), "32x32/4",
                 tail=[("Add", ["R"])], residual=True)
    yield matmul("gemm_f16io_gemv", (3, 1000), (1000, 127), "gemv/4")
    yield matmul("gemm_f16io_gemv_vec", (1, 256), (256, 128), None)
    yield gemm("gemm_f16io_gemm", 13, 127, 1000, "64x128/2")
    yield gemm("gemm_f16io_gemm_tb", 7, 1000, 127, "gemv", trans_b=True)
    yield conv("gemm_f16io_conv_3x3", (2, 7, 13, 13), 13, 3, [1, 1, 1, 1], "64x64")
    yield conv("gemm_f16io_conv_1x1_vec", (1, 64, 8, 8), 24, 1, [0, 0, 0, 0], "32x64/2")
    yield conv("gemm_f16io_conv_split_relu", (1, 13, 7, 7), 13, 3, [1, 1, 1, 1], "16x64/4",
               tail=[("Relu", [])])
    for t, cm in (("64x64", False), ("64x64k64s1p2", False), ("128x256", True), ("128x128w4", True)):
        yield matmul(f"gemm_f16io_cm{t}_odd", (127, 13), (13, 7), f"cm{t}", coopmat=cm)
        yield matmul(f"gemm_f16io_cm{t}_vec_split", (64, 132), (132, 68), f"cm{t}/2", coopmat=cm)
        # Extents, rows and batch strides multiples of 8: 16-byte loads of A and B.
        yield matmul(f"gemm_f16io_cm{t}_vec8_batch", (2, 24, 64), (2, 64, 40), f"cm{t}", coopmat=cm)
        yield matmul(f"gemm_f16io_cm{t}_residual", (36, 1000), (1000, 20), f"cm{t}",
                     tail=[("Add", ["R"])], residual=True, coopmat=cm)
        yield gemm(f"gemm_f16io_cm{t}_gemm_tb", 13, 130, 200, f"cm{t}", trans_b=True, coopmat=cm)
        # Several block rows and columns (4 x 6 of 64x64): which block each
        # workgroup computes.
        yield matmul(f"gemm_f16io_cm{t}_grid", (200, 64), (64, 330), f"cm{t}", coopmat=cm)
        yield conv(f"gemm_f16io_cm{t}_conv_3x3", (2, 7, 13, 13), 13, 3, [1, 1, 1, 1], f"cm{t}",
                   coopmat=cm)
        yield conv(f"gemm_f16io_cm{t}_conv_1x1_vec", (1, 64, 8, 8), 24, 1, [0, 0, 0, 0],
                   f"cm{t}", tail=[("Relu", [])], coopmat=cm)
        # The im2col loader steps (channel, ky, kx) through 8 taps at a time:
        # windows with strides, dilations, asymmetric pads, a 7x7 stem and a
        # strided 1x1; the pointwise loader's second 4 pixels start the next
        # image where OH * OW = 196 is not a multiple of 8.
        yield conv(f"gemm_f16io_cm{t}_conv_3x3_s2", (2, 9, 15, 15), 10, 3, [1, 0, 1, 2],
                   f"cm{t}", coopmat=cm, strides=[2, 2])
        yield conv(f"gemm_f16io_cm{t}_conv_3x3_dil", (1, 5, 12, 11), 9, 3, [2, 2, 2, 2],
                   f"cm{t}", coopmat=cm, dilations=[2, 2])
        yield conv(f"gemm_f16io_cm{t}_conv_7x7_s2", (2, 3, 23, 23), 16, 7, [3, 3, 3, 3],
                   f"cm{t}", coopmat=cm, strides=[2, 2])
        yield conv(f"gemm_f16io_cm{t}_conv_1x1_s2", (2, 24, 14, 14), 20, 1, [0, 0, 0, 0],
                   f"cm{t}", coopmat=cm, strides=[2, 2])
        yield conv(f"gemm_f16io_cm{t}_conv_1x1_196", (3, 16, 14, 14), 24, 1, [0, 0, 0, 0],
                   f"cm{t}", coopmat=cm)
        # The im2col copy (conv.cc): 130 outputs; two groups of 128 with
        # asymmetric pads and 7 x 9 = 63 output pixels, so that the two fp16
        # elements of a word of the matrix straddle its rows.
        yield conv(f"gemm_f16io_cm{t}_conv_3x3_copy", (2, 7, 13, 13), 130, 3, [1, 1, 1, 1],
                   f"cm{t}", coopmat=cm)
        # The product after the copy keeps the fused epilogue: a residual
        # add and a Relu.
        yield conv(f"gemm_f16io_cm{t}_conv_3x3_copy_add_relu", (1, 5, 9, 11), 128, 3,
                   [1, 1, 1, 1], f"cm{t}", tail=[("Add", ["R"]), ("Relu", [])], coopmat=cm,
                   residual=(1, 128, 9, 11))
        # The product after the copy split along K (13 channels x 9 taps).
        yield conv(f"gemm_f16io_cm{t}_conv_3x3_copy_split", (1, 13, 7, 7), 128, 3, [1, 1, 1, 1],
                   f"cm{t}/2", coopmat=cm)
        # X of an odd count of elements: the copy reads its last one alone
        # (a 32-bit read would cross the end of X's binding).
        yield conv(f"gemm_f16io_cm{t}_conv_3x3_copy_odd", (1, 5, 9, 11), 128, 3, [1, 1, 1, 1],
                   f"cm{t}", coopmat=cm)
        # The pointwise product alone with that epilogue, 99 pixels.
        yield conv(f"gemm_f16io_cm{t}_conv_1x1_add_relu", (1, 45, 9, 11), 128, 1, [0, 0, 0, 0],
                   f"cm{t}", tail=[("Add", ["R"]), ("Relu", [])], coopmat=cm,
                   residual=(1, 128, 9, 11))
        yield conv(f"gemm_f16io_cm{t}_conv_3x3_group2", (2, 10, 7, 9), 256, 3, [1, 2, 1, 0],
                   f"cm{t}", coopmat=cm, group=2)
        # One output pixel per image: the copy's divisions by out_h * out_w
        # and out_w are by 1.
        yield conv(f"gemm_f16io_cm{t}_conv_3x3_to_1x1", (4, 16, 3, 3), 128, 3, [0, 0, 0, 0],
                   f"cm{t}", coopmat=cm)
