# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Ops and types the ONNX node suite covers thinly, against onnxruntime on
# shapes beyond the suite's: MaxUnpool (with and without output_shape, indices from
# a MaxPool and given directly, batch > 1, 1-D and 3-D), 3-D ConvTranspose
# (groups, strides, pads, dilations, output_padding, bias), Resize with
# antialias (linear and cubic, scales and sizes, exclude_outside,
# cubic_coeff_a, other coordinate modes, upsampling), TopK of 32- and 64-bit
# integers (ties, values beyond 2^53 and 2^63) and of int8, integer Pow
# (integer exponents, negative ones, fp32 exponents), and the narrow and wide
# floats that run through fp32: Softmax/LogSoftmax/Hardmax in float16 and
# double, MatMul in double, depthwise Conv in float16 (plain and with a fused
# activation and residual), and opset 8's batched Scan.
import numpy as np
from onnx import TensorProto, helper
from onnx_case import ELEM_TYPE, make_model

_RNG = np.random.default_rng(20261124)


def _case(name, nodes, inputs, outputs, opset, inits=None, **tol):
    case = {"name": name, "model": make_model(nodes, inputs, outputs, opset, inits), "inputs": inputs}
    case.update(tol)
    return case


def _rand(*shape):
    return _RNG.uniform(-1.0, 1.0, size=shape).astype(np.float32)


def _max_unpool_cases():
    # Indices from a MaxPool in the same graph; output_shape restores the
    # rows and columns the pooling dropped (without it, only shapes the
    # window tiles exactly).
    for name, shape, attrs, out_shape in [
            ("2d_s2", (2, 3, 8, 10), dict(kernel_shape=[2, 2], strides=[2, 2]), None),
            ("2d_pads", (1, 4, 8, 7), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
             [1, 4, 8, 7]),
            ("2d_output_shape", (2, 2, 7, 9), dict(kernel_shape=[2, 2], strides=[2, 2]),
             [2, 2, 7, 9]),
            ("1d", (3, 2, 11), dict(kernel_shape=[3], strides=[2]), None),
            ("3d", (1, 2, 5, 6, 7), dict(kernel_shape=[2, 2, 2], strides=[2, 2, 2]),
             [1, 2, 5, 6, 7])]:
        pool = helper.make_node("MaxPool", ["X"], ["V", "I"], **attrs)
        ins = ["V", "I"] + (["S"] if out_shape else [])
        unpool = helper.make_node("MaxUnpool", ins, ["Y"], **attrs)
        inits = {"S": np.array(out_shape, np.int64)} if out_shape else None
        yield _case(f"cov_maxunpool_{name}", [pool, unpool], {"X": _rand(*shape)},
                    [("Y", TensorProto.FLOAT)], 22, inits)
    # Indices given directly: distinct positions anywhere in Y, batch 2.
    x = _rand(2, 3, 4, 5)
    idx = _RNG.permutation(2 * 3 * 8 * 11)[:x.size].reshape(x.shape).astype(np.int64)
    node = helper.make_node("MaxUnpool", ["X", "I", "S"], ["Y"], kernel_shape=[2, 3],
                            strides=[2, 2])
    yield _case("cov_maxunpool_given_indices", [node], {"X": x, "I": idx},
                [("Y", TensorProto.FLOAT)], 11, {"S": np.array([2, 3, 8, 11], np.int64)})


def _conv_transpose_3d_cases():
    for name, x_shape, w_shape, attrs, bias in [
            ("plain", (1, 2, 3, 4, 5), (2, 3, 3, 3, 3), {}, False),
            ("strided_bias", (2, 3, 4, 3, 5), (3, 2, 2, 3, 2),
             dict(strides=[2, 1, 3], pads=[1, 0, 1, 0, 1, 1]), True),
            ("group_dilation", (1, 4, 3, 5, 4), (4, 3, 2, 2, 3),
             dict(group=2, dilations=[2, 1, 2], output_padding=[0, 0, 1], strides=[1, 2, 2]), True),
            ("output_shape", (2, 2, 3, 3, 3), (2, 1, 3, 3, 3),
             dict(strides=[2, 2, 2], output_shape=[7, 8, 6]), False)]:
        inputs = {"X": _rand(*x_shape)}
        inits = {"W": _rand(*w_shape)}
        names = ["X", "W"]
        if bias:
            inits["B"] = _rand(w_shape[1] * attrs.get("group", 1))
            names.append("B")
        node = helper.make_node("ConvTranspose", names, ["Y"], **attrs)
        yield _case(f"cov_convtranspose3d_{name}", [node], inputs, [("Y", TensorProto.FLOAT)], 22,
                    inits, atol=1e-5)


def _resize_antialias_cases():
    for name, shape, mode, scales, sizes, attrs in [
            ("linear_scales", (2, 3, 13, 11), "linear", [1, 1, 0.6, 0.45], None, {}),
            ("cubic_scales", (1, 2, 17, 9), "cubic", [1, 1, 0.35, 0.7], None, {}),
            ("linear_sizes", (1, 3, 16, 15), "linear", None, [1, 3, 5, 7], {}),
            ("cubic_sizes_exclude", (2, 1, 12, 19), "cubic", None, [2, 1, 5, 6],
             dict(exclude_outside=1)),
            ("cubic_a05", (1, 2, 10, 10), "cubic", [1, 1, 0.5, 0.5], None,
             dict(cubic_coeff_a=-0.5)),
            ("linear_asymmetric", (1, 2, 9, 14), "linear", [1, 1, 0.55, 0.3], None,
             dict(coordinate_transformation_mode="asymmetric")),
            ("linear_up_down", (1, 2, 6, 12), "linear", [1, 1, 1.5, 0.4], None, {})]:
        inits = {"roi": np.array([], np.float32)}
        ins = ["X", "roi"]
        if scales is not None:
            inits["scales"] = np.array(scales, np.float32)
            ins.append("scales")
        else:
            inits["scales"] = np.array([], np.float32)
            inits["sizes"] = np.array(sizes, np.int64)
            ins += ["scales", "sizes"]
        node = helper.make_node("Resize", ins, ["Y"], mode=mode, antialias=1, **attrs)
        yield _case(f"cov_resize_antialias_{name}", [node], {"X": _rand(*shape)},
                    [("Y", TensorProto.FLOAT)], 19, inits, atol=1e-5)


def _top_k_cases():
    big = np.array([2**62 + 1, -(2**62) - 3, 2**53 + 1, 2**53, -5, 7, 7, 2**62, -(2**63), 0],
                   np.int64)
    for name, x, k, axis, largest in [
            ("int64_big", np.stack([big, big[::-1]]), 6, 1, 1),
            ("int64_smallest_ties", _RNG.integers(-4, 4, size=(3, 9, 2)).astype(np.int64), 5, 1,
             0),
            ("int32", _RNG.integers(-2**31, 2**31 - 1, size=(4, 7), dtype=np.int64)
             .astype(np.int32), 3, 0, 1),
            ("int8", _RNG.integers(-128, 127, size=(2, 3, 11), dtype=np.int64).astype(np.int8), 4,
             -1, 1)]:
        node = helper.make_node("TopK", ["X", "K"], ["V", "I"], axis=axis, largest=largest)
        yield _case(f"cov_topk_{name}", [node], {"X": x},
                    [("V", ELEM_TYPE[x.dtype]), ("I", TensorProto.INT64)], 11,
                    {"K": np.array([k], np.int64)})


def _unsigned_top_k_cases():
    # onnxruntime has no unsigned TopK: its reference is the same TopK on
    # int64 keys that order alike (uint32 widened; uint64 with the top bit
    # flipped), mapped back.
    k = np.array([4], np.int64)
    for name, x, axis, largest in [
            ("uint32_smallest", _RNG.integers(0, 2**32 - 1, size=(5, 6), dtype=np.int64)
             .astype(np.uint32), 1, 0),
            ("uint64_high_bit", np.array([[2**63 + 5, 3, 2**63, 2**64 - 1, 17, 2**32],
                                          [1, 2**63 - 1, 2**63, 0, 2**64 - 2, 9]], np.uint64),
             -1, 1)]:
        node = helper.make_node("TopK", ["X", "K"], ["V", "I"], axis=axis, largest=largest)
        outputs = [("V", ELEM_TYPE[x.dtype]), ("I", TensorProto.INT64)]
        case = _case(f"cov_topk_{name}", [node], {"X": x}, outputs, 18, {"K": k})
        elem = ELEM_TYPE[x.dtype]
        inits = {"K": k}
        if x.dtype == np.uint32:
            ref = [helper.make_node("Cast", ["X"], ["X64"], to=TensorProto.INT64),
                   helper.make_node("TopK", ["X64", "K"], ["V64", "I"], axis=axis,
                                    largest=largest),
                   helper.make_node("Cast", ["V64"], ["V"], to=elem)]
        else:
            inits["bit"] = np.array(2**63, np.uint64)
            ref = [helper.make_node("BitwiseXor", ["X", "bit"], ["Xf"]),
                   helper.make_node("Cast", ["Xf"], ["X64"], to=TensorProto.INT64),
                   helper.make_node("TopK", ["X64", "K"], ["V64", "I"], axis=axis,
                                    largest=largest),
                   helper.make_node("Cast", ["V64"], ["Vf"], to=elem),
                   helper.make_node("BitwiseXor", ["Vf", "bit"], ["V"])]
        case["reference_model"] = _case("ref", ref, {"X": x}, outputs, 18, inits)["model"]
        yield case


def _pow_cases():
    for dtype in (np.int32, np.int64):
        a = _RNG.integers(-6, 7, size=(3, 5)).astype(dtype)
        b = _RNG.integers(-2, 9, size=(5,)).astype(dtype)
        node = helper.make_node("Pow", ["A", "B"], ["Y"])
        yield _case(f"cov_pow_{np.dtype(dtype).name}", [node], {"A": a, "B": b},
                    [("Y", ELEM_TYPE[np.dtype(dtype)])], 15)
        # fp32 exponents: integral ones exact, others truncated.
        # (Negative bases with fractional exponents and 0^-1 are NaN and inf
        # in C, whose conversion to an integer is undefined.)
        e = np.array([[0, 1, 2, 3, 0.5, 1.5, -1, 2.5, 0.3]], np.float32)
        base = np.array([[4], [9], [7], [3], [1], [2], [100]], dtype)
        yield _case(f"cov_pow_{np.dtype(dtype).name}_float_exp", [node], {"A": base, "B": e},
                    [("Y", ELEM_TYPE[np.dtype(dtype)])], 15)
        e = np.array([[0, 1, 2, 3, -1, -2, 5]], np.float32)
        base = np.array([[-4], [-1], [-7], [-2], [1]], dtype)
        yield _case(f"cov_pow_{np.dtype(dtype).name}_float_exp_neg_base", [node],
                    {"A": base, "B": e}, [("Y", ELEM_TYPE[np.dtype(dtype)])], 15)
    # Beyond 2^53, but powers of two (exact in onnxruntime's double too).
    a = np.array([2, -2, 4, 6, 7, -8], np.int64)
    b = np.array([62, 61, 30, 20, 18, 21], np.int64)
    node = helper.make_node("Pow", ["A", "B"], ["Y"])
    yield _case("cov_pow_int64_large", [node], {"A": a, "B": b}, [("Y", TensorProto.INT64)], 15)


def _through_fp32_cases():
    for op in ("Softmax", "LogSoftmax", "Hardmax"):
        for dtype, shape, axis in [(np.float16, (2, 3, 17), -1), (np.float64, (3, 5, 9), 1)]:
            if op == "Hardmax" and dtype == np.float64:
                continue  # onnxruntime has no double Hardmax
            x = (_RNG.standard_normal(shape) * 3).astype(dtype)
            node = helper.make_node(op, ["X"], ["Y"], axis=axis)
            yield _case(f"cov_{op.lower()}_{np.dtype(dtype).name}", [node], {"X": x},
                        [("Y", ELEM_TYPE[np.dtype(dtype)])], 13, rtol=2e-3, atol=2e-3)
    for name, a_shape, b_shape in [("batched", (2, 3, 7, 13), (2, 3, 13, 5)),
                                   ("broadcast_vec", (4, 1, 9, 33), (33,))]:
        a = _RNG.standard_normal(a_shape)
        b = _RNG.standard_normal(b_shape)
        node = helper.make_node("MatMul", ["A", "B"], ["Y"])
        yield _case(f"cov_matmul_double_{name}", [node], {"A": a, "B": b},
                    [("Y", TensorProto.DOUBLE)], 13, rtol=1e-4, atol=1e-4)
    # Depthwise fp16 Conv; onnxruntime's CPU provider has no fp16 Conv here, so
    # its reference computes in fp32 between Casts.
    for name, x_shape, stride, dil, extra in [("plain", (2, 6, 11, 9), 1, 1, None),
                                              ("strided_dilated", (1, 4, 13, 12), 2, 2, None),
                                              ("relu_residual", (2, 5, 8, 7), 1, 1, "fused")]:
        c = x_shape[1]
        x = _RNG.standard_normal(x_shape).astype(np.float16)
        inits = {"W": _RNG.standard_normal((c, 1, 3, 3)).astype(np.float16),
                 "B": _RNG.standard_normal(c).astype(np.float16)}
        attrs = dict(group=c, strides=[stride, stride], dilations=[dil, dil], pads=[1, 1, 1, 1])

        def graph(prefix, cast):
            xin, w, bias = ("Xf", "Wf", "Bf") if cast else ("X", "W", "B")
            nodes = [helper.make_node("Cast", [a], [a + "f"], to=TensorProto.FLOAT)
                     for a in ("X", "W", "B")] if cast else []
            conv_out = "C" if extra or cast else "Y"
            nodes.append(helper.make_node("Conv", [xin, w, bias], [conv_out], **attrs))
            last = conv_out
            if extra:
                nodes.append(helper.make_node("Relu", [last], ["R"]))
                nodes.append(helper.make_node("Add", ["R", xin], ["S" if cast else "Y"]))
                last = "S"
            if cast:
                nodes.append(helper.make_node("Cast", [last], ["Y"], to=TensorProto.FLOAT16))
            return _case(prefix, nodes, {"X": x}, [("Y", TensorProto.FLOAT16)], 13, inits,
                         rtol=2e-3, atol=2e-3)

        case = graph(f"cov_conv_depthwise_fp16_{name}", cast=False)
        case["reference_model"] = graph("ref", cast=True)["model"]
        yield case


def _scan8_cases():
    # Opset 8's batched Scan: batch 3, 5 steps, two states (one a matrix),
    # two scan inputs (one read in reverse), two scan outputs.
    f = TensorProto.FLOAT
    vi = helper.make_tensor_value_info
    body = helper.make_graph(
        [helper.make_node("Mul", ["x", "y"], ["xy"]),
         helper.make_node("Add", ["s", "xy"], ["s_out"]),
         helper.make_node("MatMul", ["m", "m"], ["mm"]),
         helper.make_node("Tanh", ["mm"], ["m_out"]),
         helper.make_node("Sub", ["s_out", "y"], ["d"]),
         helper.make_node("ReduceSum", ["m_out"], ["r"], keepdims=0)],
        "body", [vi("s", f, [4]), vi("m", f, [2, 2]), vi("x", f, [4]), vi("y", f, [4])],
        [vi("s_out", f, [4]), vi("m_out", f, [2, 2]), vi("d", f, [4]), vi("r", f, [])])
    inputs = {"S": _rand(3, 4), "M": _rand(3, 2, 2), "X": _rand(3, 5, 4), "Y": _rand(3, 5, 4)}
    for name, lens in [("batched", None), ("full_sequence_lens", [5, 5, 5])]:
        node = helper.make_node("Scan", ["L" if lens else "", "S", "M", "X", "Y"],
                                ["S_end", "M_end", "D", "R"], num_scan_inputs=2,
                                directions=[0, 1], body=body)
        inits = {"L": np.array(lens, np.int64)} if lens else None
        yield _case(f"cov_scan8_{name}", [node], inputs,
                    [("S_end", f), ("M_end", f), ("D", f), ("R", f)], 8, inits, atol=1e-5)


def cases():
    yield from _max_unpool_cases()
    yield from _conv_transpose_3d_cases()
    yield from _top_k_cases()
    yield from _unsigned_top_k_cases()
    yield from _pow_cases()
    yield from _resize_antialias_cases()
    yield from _through_fp32_cases()
    yield from _scan8_cases()
