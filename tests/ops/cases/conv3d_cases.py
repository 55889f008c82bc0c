# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# 3-D Conv (NCDHW) on the GEMM engine (runtime/ops/nn/conv3d.h): single-node
# models over odd sizes, strides, pads (explicit and every auto_pad),
# dilations, groups and depthwise, with and without bias, 1x1x1 windows
# (X read as it is, and strided), fused epilogues, and the chunked im2col
# matrix (pinned small with the vkserve_im2col_limit attribute: whole images,
# and output depth slices of one image). fp32 cases compare with
# onnxruntime; FP16-precision cases compare with an fp64 reference within an
# fp16 error bound and must show the rounding (as gemm_fp16_cases.py does);
# fp16-tensor cases compare with onnxruntime running the graph in fp32
# between Casts. The "cm" cases pin the tensor-core tiles: emulated where the
# device has no cooperative matrices (64x64 fits lavapipe), real elsewhere.
import numpy as np
from onnx import TensorProto, helper, numpy_helper

_RNG = np.random.default_rng(20261206)
_U16 = 2.0 ** -11
_PLAN_ATTR = "vkserve_gemm_plan"
_LIMIT_ATTR = "vkserve_im2col_limit"


def _rand(*shape):
    return _RNG.uniform(-1.0, 1.0, size=shape).astype(np.float32)


def _graph_model(nodes, inputs, inits, dtype=TensorProto.FLOAT, opset=21):
    graph = helper.make_graph(
        nodes, "conv3d",
        [helper.make_tensor_value_info(k, dtype, list(v.shape)) for k, v in inputs.items()],
        [helper.make_tensor_value_info("Y", dtype, None)],
        initializer=[numpy_helper.from_array(v, k) for k, v in inits.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def _weights(c, m, kernel, group):
    w = _rand(m, c // group, *kernel) / np.sqrt(c // group * np.prod(kernel))
    return w.astype(np.float32)


def conv(name, n, c, spatial, m, kernel, group=1, bias=True, w_as_input=False, tail=(),
         vk_attrs=None, kernel_desc=None, opset=21, **attrs):
    """fp32 Conv (then `tail`: (op, extra inputs) applied in turn), against onnxruntime.
    vk_attrs: attributes only vkserve's model gets (onnxruntime runs the model without)."""
    inputs = {"X": _rand(n, c, *spatial)}
    w = _weights(c, m, kernel, group)
    inits = {}
    if w_as_input:
        inputs["W"] = w
    else:
        inits["W"] = w
    names = ["X", "W"]
    if bias:
        inits["B"] = _rand(m)
        names.append("B")
    if group != 1:
        attrs["group"] = group

    def build(extra):
        nodes = [helper.make_node("Conv", names, ["t0"], **attrs, **extra)]
        cur = "t0"
        for i, (op, ins) in enumerate(tail):
            nodes.append(helper.make_node(op, [cur] + list(ins), [f"t{i + 1}"]))
            cur = f"t{i + 1}"
        nodes[-1].output[0] = "Y"
        return nodes

    residuals = [r for _, ins in tail for r in ins]
    if residuals:
        shape = _conv_shape((n, c, *spatial), (m, c // group, *kernel), attrs)
        for r in residuals:
            inputs[r] = _rand(*shape)
    case = {"name": name, "inputs": inputs}
    case["model"] = _graph_model(build(vk_attrs or {}), inputs, inits, opset=opset)
    if vk_attrs:
        case["reference_model"] = _graph_model(build({}), inputs, inits, opset=opset)
    if kernel_desc is not None:
        case["kernel"] = kernel_desc
    return case


def _pads_of(x_shape, w_shape, attrs):
    """(pads_begin, pads_end) per spatial dim as ONNX resolves them."""
    spatial = x_shape[2:]
    kernel = w_shape[2:]
    rank = len(spatial)
    strides = attrs.get("strides", [1] * rank)
    dilations = attrs.get("dilations", [1] * rank)
    pads = list(attrs.get("pads", [0] * (2 * rank)))
    mode = attrs.get("auto_pad", "NOTSET")
    begin, end = pads[:rank], pads[rank:]
    for i in range(rank):
        extent = (kernel[i] - 1) * dilations[i] + 1
        if mode in ("SAME_UPPER", "SAME_LOWER"):
            out = -(-spatial[i] // strides[i])
            total = max(0, (out - 1) * strides[i] + extent - spatial[i])
            begin[i] = total // 2 if mode == "SAME_UPPER" else total - total // 2
            end[i] = total - begin[i]
        elif mode == "VALID":
            begin[i] = end[i] = 0
    return begin, end, strides, dilations


def _conv_shape(x_shape, w_shape, attrs):
    begin, end, strides, dilations = _pads_of(x_shape, w_shape, attrs)
    out = [x_shape[0], w_shape[0]]
    for i, size in enumerate(x_shape[2:]):
        extent = (w_shape[2 + i] - 1) * dilations[i] + 1
        out.append((size + begin[i] + end[i] - extent) // strides[i] + 1)
    return out


def _conv64(x, w, bias, attrs):
    """N-D grouped Conv in fp64: a sum over the kernel taps of shifted, strided slices."""
    group = attrs.get("group", 1)
    begin, end, strides, dilations = _pads_of(x.shape, w.shape, attrs)
    out_shape = _conv_shape(x.shape, w.shape, attrs)
    xp = np.pad(x, [(0, 0), (0, 0)] + list(zip(begin, end)))
    cin_g, cout_g = x.shape[1] // group, w.shape[0] // group
    y = np.zeros(out_shape)
    for tap in np.ndindex(*w.shape[2:]):
        index = tuple(slice(t * d, t * d + s * (o - 1) + 1, s)
                      for t, d, s, o in zip(tap, dilations, strides, out_shape[2:]))
        for g in range(group):
            patch = xp[(slice(None), slice(g * cin_g, (g + 1) * cin_g)) + index]
            wt = w[(slice(g * cout_g, (g + 1) * cout_g), slice(None)) + tap]
            y[:, g * cout_g:(g + 1) * cout_g] += np.einsum("nc...,oc->no...", patch, wt)
    if bias is not None:
        y += bias.reshape((1, -1) + (1,) * (x.ndim - 2))
    return y


def conv_fp16(name, n, c, spatial, m, kernel, group=1, plan=None, coopmat=False,
              kernel_desc=None, **attrs):
    """fp32 tensors at FP16 precision: an fp64 reference and fp16 error bound."""
    if group != 1:
        attrs["group"] = group
    x = _rand(n, c, *spatial)
    w = _weights(c, m, kernel, group)
    b = _rand(m)
    x64, w64, b64 = x.astype(np.float64), w.astype(np.float64), b.astype(np.float64)
    f16 = lambda v: v.astype(np.float16).astype(np.float64)  # noqa: E731
    y64 = _conv64(x64, w64, b64, attrs)
    y16 = _conv64(f16(x), f16(w), b64, attrs)
    bound = 2 * _U16 * _conv64(np.abs(x64), np.abs(w64), None, attrs)
    node_attrs = dict(attrs, **({_PLAN_ATTR: plan} if plan else {}))
    node = helper.make_node("Conv", ["X", "W", "B"], ["Y"], **node_attrs)
    model = _graph_model([node], {"X": x}, {"W": w, "B": b}, opset=20)
    case = {"name": name, "model": model, "inputs": {"X": x},
            "expected": [y64.astype(np.float32)], "precision": "FP16", "rtol": 0.0,
            "atol": float(bound.max()) * 1.05 + 1e-6,
            "min_max_error": 0.25 * float(np.abs(y16 - y64).max())}
    if coopmat:
        case["requires"] = "cooperative_matrix"
    if kernel_desc is not None:
        case["kernel"] = kernel_desc
    return case


def conv_f16io(name, n, c, spatial, m, kernel, group=1, plan=None, coopmat=False,
               kernel_desc=None, vk_attrs=None, **attrs):
    """fp16 tensors; onnxruntime runs the graph in fp32 between Casts."""
    if group != 1:
        attrs["group"] = group
    x = _rand(n, c, *spatial).astype(np.float16)
    w = _weights(c, m, kernel, group).astype(np.float16)
    b = _rand(m).astype(np.float16)
    node_attrs = dict(attrs, **({_PLAN_ATTR: plan} if plan else {}), **(vk_attrs or {}))
    model = _graph_model([helper.make_node("Conv", ["X", "W", "B"], ["Y"], **node_attrs)],
                         {"X": x}, {"W": w, "B": b}, dtype=TensorProto.FLOAT16, opset=20)
    f32 = TensorProto.FLOAT
    ref_nodes = [helper.make_node("Cast", [v], [v + "_f32"], to=f32) for v in ("X", "W", "B")]
    ref_nodes.append(helper.make_node("Conv", ["X_f32", "W_f32", "B_f32"], ["y32"], **attrs))
    ref_nodes.append(helper.make_node("Cast", ["y32"], ["Y"], to=TensorProto.FLOAT16))
    reference = _graph_model(ref_nodes, {"X": x}, {"W": w, "B": b}, dtype=TensorProto.FLOAT16,
                             opset=20)
    case = {"name": name, "model": model, "inputs": {"X": x}, "reference_model": reference,
            "rtol": 2e-3, "atol": 4e-3}
    if coopmat:
        case["requires"] = "cooperative_matrix"
    if kernel_desc is not None:
        case["kernel"] = kernel_desc
    return case


_IM2COL = "im2col3d copy, then ops/gemm_"


def _fp32_cases():
    yield conv("conv3d_3x3x3_pad1", 1, 5, (7, 9, 8), 6, (3, 3, 3), pads=[1] * 6,
               kernel_desc=_IM2COL)
    # r3d_18's stem: 3x7x7, stride (1, 2, 2), pads (1, 3, 3).
    yield conv("conv3d_stem_3x7x7", 1, 3, (5, 17, 15), 16, (3, 7, 7), strides=[1, 2, 2],
               pads=[1, 3, 3, 1, 3, 3])
    yield conv("conv3d_s2_asym_pads", 2, 4, (9, 8, 7), 8, (3, 3, 3), strides=[2, 2, 2],
               pads=[1, 0, 2, 0, 1, 1])
    yield conv("conv3d_strides_213", 1, 3, (7, 11, 13), 5, (2, 3, 2), strides=[2, 1, 3],
               pads=[0, 1, 1, 1, 1, 0])
    yield conv("conv3d_dilations", 1, 4, (9, 10, 11), 6, (3, 3, 2), dilations=[2, 1, 3],
               pads=[2, 1, 1, 2, 1, 1])
    yield conv("conv3d_dilation_stride", 2, 3, (11, 9, 10), 4, (3, 2, 3), dilations=[2, 2, 1],
               strides=[2, 1, 2])
    yield conv("conv3d_no_bias", 1, 7, (5, 6, 7), 9, (3, 3, 3), bias=False, pads=[1] * 6)
    yield conv("conv3d_kernel_shape_attr", 1, 4, (5, 5, 5), 4, (3, 3, 3), kernel_shape=[3, 3, 3])
    yield conv("conv3d_w_graph_input", 1, 6, (4, 7, 5), 5, (3, 3, 3), pads=[1] * 6,
               w_as_input=True)
    # (2+1)-D factorized convolutions: spatial 1x3x3 and temporal 3x1x1.
    yield conv("conv3d_1x3x3", 2, 8, (4, 9, 9), 12, (1, 3, 3), pads=[0, 1, 1, 0, 1, 1])
    yield conv("conv3d_3x1x1", 1, 12, (8, 5, 6), 8, (3, 1, 1), pads=[1, 0, 0, 1, 0, 0])
    # 1x1x1: X read as it is (vector pixels and odd ones), strided (copied), padded.
    yield conv("conv3d_1x1x1", 1, 16, (4, 4, 4), 24, (1, 1, 1), kernel_desc="ops/gemm_")
    yield conv("conv3d_1x1x1_odd", 2, 13, (3, 5, 7), 7, (1, 1, 1))
    yield conv("conv3d_1x1x1_s2", 2, 8, (7, 9, 8), 16, (1, 1, 1), strides=[2, 2, 2],
               kernel_desc=_IM2COL)
    yield conv("conv3d_1x1x1_pads", 1, 5, (3, 4, 5), 6, (1, 1, 1), pads=[1, 0, 1, 0, 1, 1])
    # Groups and depthwise.
    yield conv("conv3d_group2", 1, 8, (5, 6, 7), 12, (3, 3, 3), group=2, pads=[1] * 6)
    yield conv("conv3d_group3_s2", 2, 9, (7, 7, 7), 6, (3, 3, 3), group=3, strides=[2, 2, 2])
    yield conv("conv3d_depthwise", 1, 13, (6, 9, 8), 13, (3, 3, 3), group=13, pads=[1] * 6)
    yield conv("conv3d_depthwise_s2_dil", 1, 7, (9, 11, 10), 7, (3, 3, 3), group=7,
               strides=[1, 2, 2], dilations=[2, 1, 1], pads=[2, 1, 1, 2, 1, 1])
    yield conv("conv3d_depthwise_multiplier", 1, 4, (5, 6, 5), 8, (3, 3, 3), group=4,
               bias=False)
    # auto_pad.
    for mode in ("SAME_UPPER", "SAME_LOWER", "VALID", "NOTSET"):
        low = mode.lower()
        yield conv(f"conv3d_autopad_{low}", 1, 3, (6, 7, 5), 4, (3, 3, 3), auto_pad=mode)
        yield conv(f"conv3d_autopad_{low}_s2", 1, 4, (7, 8, 9), 5, (4, 3, 2), strides=[2, 2, 2],
                   auto_pad=mode)
        yield conv(f"conv3d_autopad_{low}_dw", 1, 5, (6, 6, 7), 5, (3, 3, 3), group=5,
                   strides=[2, 1, 2], auto_pad=mode)
    for opset in (1, 11):
        yield conv(f"conv3d_opset{opset}", 1, 3, (4, 5, 6), 4, (3, 3, 3), opset=opset,
                   pads=[1] * 6)
    # Fused epilogues: activation, residual add.
    yield conv("conv3d_relu", 1, 6, (5, 7, 6), 8, (3, 3, 3), pads=[1] * 6, tail=[("Relu", [])])
    yield conv("conv3d_residual_relu", 1, 8, (4, 6, 6), 8, (3, 3, 3), pads=[1] * 6,
               tail=[("Add", ["R"]), ("Relu", [])])
    # The im2col matrix in chunks: of whole images (1 and 2 at a time), of
    # output depth slices, with a fused residual each chunk reads its part of.
    image = 4 * 27 * 6 * 8 * 8 * 4  # bytes of one image's matrix: 4 channels, 3x3x3, 6x8x8
    yield conv("conv3d_chunk_images", 3, 4, (6, 8, 8), 8, (3, 3, 3), pads=[1] * 6,
               vk_attrs={_LIMIT_ATTR: image + 16}, kernel_desc=_IM2COL)
    yield conv("conv3d_chunk_image_pairs", 5, 4, (6, 8, 8), 8, (3, 3, 3), pads=[1] * 6,
               vk_attrs={_LIMIT_ATTR: 2 * image + 16})
    yield conv("conv3d_chunk_slices", 1, 4, (6, 8, 8), 8, (3, 3, 3), pads=[1] * 6,
               vk_attrs={_LIMIT_ATTR: image // 3}, tail=[("Add", ["R"]), ("Relu", [])])
    yield conv("conv3d_chunk_slices_s2", 2, 3, (11, 16, 16), 8, (3, 3, 3), pads=[1] * 6,
               strides=[2, 2, 2], vk_attrs={_LIMIT_ATTR: 3 * 27 * 2 * 8 * 8 * 4},
               tail=[("Add", ["R"])])
    # Random shapes.
    for i in range(10):
        k = [int(v) for v in _RNG.choice([1, 2, 3], size=3)]
        group = int(_RNG.choice([1, 1, 2, 3]))
        c = group * int(_RNG.integers(1, 6))
        m = group * int(_RNG.integers(1, 6))
        spatial = [int(v) for v in _RNG.integers(3, 10, size=3)]
        strides = [int(v) for v in _RNG.choice([1, 2], size=3)]
        dilations = [int(v) for v in _RNG.choice([1, 1, 2], size=3)]
        dilations = [d if (kk - 1) * d + 1 <= s else 1 for d, kk, s in zip(dilations, k, spatial)]
        pads = [int(_RNG.integers(0, kk)) for kk in k + k]
        yield conv(f"conv3d_random_{i}", int(_RNG.integers(1, 3)), c, spatial, m, k, group=group,
                   strides=strides, dilations=dilations, pads=pads)


def _fp16_cases():
    # FP16 precision on fp32 tensors: the cost model's pick and pinned tiles.
    yield conv_fp16("conv3d_fp16_3x3x3", 1, 13, (5, 7, 6), 9, (3, 3, 3), pads=[1] * 6)
    yield conv_fp16("conv3d_fp16_stem", 1, 3, (4, 15, 13), 16, (3, 7, 7), strides=[1, 2, 2],
                    pads=[1, 3, 3, 1, 3, 3], plan="64x64/2")
    yield conv_fp16("conv3d_fp16_group_dil", 2, 6, (7, 6, 8), 6, (3, 2, 3), group=2,
                    dilations=[2, 1, 1], strides=[1, 2, 1], pads=[2, 0, 1, 1, 1, 0], plan="32x64")
    yield conv_fp16("conv3d_fp16_1x1x1", 1, 24, (3, 5, 6), 20, (1, 1, 1))
    for t, cm in (("64x64", False), ("128x128", True), ("128x256", True)):
        yield conv_fp16(f"conv3d_fp16_cm{t}", 2, 13, (5, 7, 6), 9, (3, 3, 3), pads=[1] * 6,
                        plan=f"cm{t}", coopmat=cm,
                        kernel_desc=f"{_IM2COL}cm_{t}_16x16x16_im2col")
        yield conv_fp16(f"conv3d_fp16_cm{t}_s2_split", 1, 16, (7, 8, 8), 32, (3, 3, 3),
                        strides=[2, 2, 2], pads=[1] * 6, plan=f"cm{t}/2", coopmat=cm)
        yield conv_fp16(f"conv3d_fp16_cm{t}_1x1x1", 1, 64, (2, 4, 4), 24, (1, 1, 1),
                        plan=f"cm{t}", coopmat=cm, kernel_desc=f"ops/gemm_cm_{t}_16x16x16_im2col")
    # fp16 tensors.
    yield conv_f16io("conv3d_f16io_3x3x3", 1, 7, (5, 6, 7), 11, (3, 3, 3), pads=[1] * 6)
    yield conv_f16io("conv3d_f16io_depthwise", 1, 9, (5, 7, 7), 9, (3, 3, 3), group=9,
                     strides=[1, 2, 2], pads=[1] * 6)
    yield conv_f16io("conv3d_f16io_1x1x1_s2", 2, 12, (5, 6, 7), 8, (1, 1, 1),
                     strides=[2, 2, 2])
    # Chunks of output slices, and of one image each with an odd element count (the
    # copy's last 32-bit word half used).
    yield conv_f16io("conv3d_f16io_chunk_slices", 1, 3, (5, 8, 8), 8, (3, 3, 3), pads=[1] * 6,
                     vk_attrs={_LIMIT_ATTR: 3 * 27 * 2 * 64 * 2})
    yield conv_f16io("conv3d_f16io_chunk_odd_images", 3, 3, (3, 5, 5), 8, (3, 3, 3),
                     pads=[1] * 6, vk_attrs={_LIMIT_ATTR: 3 * 27 * 75 * 2 + 2})
    for t, cm in (("64x64", False), ("128x128", True)):
        yield conv_f16io(f"conv3d_f16io_cm{t}", 2, 13, (5, 7, 6), 9, (3, 3, 3), pads=[1] * 6,
                         plan=f"cm{t}", coopmat=cm,
                         kernel_desc=f"{_IM2COL}cm_{t}_16x16x16_im2col_f16")
        yield conv_f16io(f"conv3d_f16io_cm{t}_vec", 1, 16, (4, 8, 8), 32, (3, 3, 3),
                         pads=[1] * 6, plan=f"cm{t}", coopmat=cm)


def cases():
    yield from _fp32_cases()
    yield from _fp16_cases()
