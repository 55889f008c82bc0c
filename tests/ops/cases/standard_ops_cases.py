# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# ONNX standard ops beyond the math families (math_cases.py), against
# onnxruntime: ArgMax/ArgMin, the bitwise ops and BitShift, Size,
# NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss, the exact Attention
# (opset 23), DepthToSpace, SpaceToDepth, EyeLike, the normalizations and LRN,
# Trilu, CumSum, Tile, TopK, OneHot, GatherND, ScatterND/ScatterElements,
# GridSample, LpPool, Quantize/DequantizeLinear and RotaryEmbedding, on odd
# shapes. Case names are the op's, lower case.
import numpy as np
from onnx import TensorProto, helper
from onnx_case import ELEM_TYPE, make_model

_RNG = np.random.default_rng(20261126)


def _case(name, nodes, inputs, outputs, opset, inits=None, **tol):
    case = {"name": name, "model": make_model(nodes, inputs, outputs, opset, inits), "inputs": inputs}
    case.update(tol)
    return case


def _arg_cases():
    for op in ("ArgMax", "ArgMin"):
        for i, (shape, axis, keep, last) in enumerate([((3, 7), 1, 1, 0), ((2, 5, 9), 0, 0, 0),
                                                       ((4, 33, 3), -2, 1, 1), ((129,), 0, 0, 1)]):
            x = np.round(_RNG.uniform(-3, 3, size=shape)).astype(np.float32)  # ties
            node = helper.make_node(op, ["X"], ["Y"], axis=axis, keepdims=keep, select_last_index=last)
            yield _case(f"{op.lower()}_{i}", [node], {"X": x}, [("Y", TensorProto.INT64)], 13)


def _bitwise_cases():
    for dtype in (np.int32, np.uint8, np.int16, np.uint64):
        info = np.iinfo(dtype)
        a = _RNG.integers(info.min, info.max, size=(3, 5, 7), dtype=dtype, endpoint=True)
        b = _RNG.integers(info.min, info.max, size=(5, 1), dtype=dtype, endpoint=True)
        for op in ("BitwiseAnd", "BitwiseOr", "BitwiseXor"):
            node = helper.make_node(op, ["a", "b"], ["Y"])
            yield _case(f"{op.lower()}_{np.dtype(dtype).name}", [node], {"a": a, "b": b},
                        [("Y", ELEM_TYPE[np.dtype(dtype)])], 18)
        node = helper.make_node("BitwiseNot", ["a"], ["Y"])
        yield _case(f"bitwisenot_{np.dtype(dtype).name}", [node], {"a": a},
                    [("Y", ELEM_TYPE[np.dtype(dtype)])], 18)
    # onnxruntime has no uint16 BitShift (the node suite covers it).
    for dtype in (np.uint8, np.uint32, np.uint64):
        bits = 8 * np.dtype(dtype).itemsize
        a = _RNG.integers(0, np.iinfo(dtype).max, size=(4, 9), dtype=dtype, endpoint=True)
        s = _RNG.integers(0, bits, size=(9,)).astype(dtype)
        for direction in ("LEFT", "RIGHT"):
            node = helper.make_node("BitShift", ["a", "s"], ["Y"], direction=direction)
            yield _case(f"bitshift_{direction.lower()}_{np.dtype(dtype).name}", [node],
                        {"a": a, "s": s}, [("Y", ELEM_TYPE[np.dtype(dtype)])], 11)


def _size_cases():
    node = helper.make_node("Size", ["X"], ["Y"])
    yield _case("size", [node], {"X": np.zeros((3, 0, 7), np.float32)},
                [("Y", TensorProto.INT64)], 13)


def _loss_cases():
    # (name, scores shape, reduction, weight, ignore_index)
    layouts = [("nc", (7, 5), "mean", False, None), ("nc_sum_w", (7, 5), "sum", True, None),
               ("ncd", (3, 5, 11), "none", True, 2), ("ncdd_mean_w_ii", (2, 4, 3, 5), "mean", True, 1),
               ("big", (2, 33, 300), "mean", False, -1)]
    for name, shape, reduction, weighted, ignore in layouts:
        n, c = shape[0], shape[1]
        target = _RNG.integers(0, c, size=(n,) + shape[2:]).astype(np.int64)
        if ignore is not None:
            target.flat[::3] = ignore
        attrs = {"reduction": reduction}
        if ignore is not None:
            attrs["ignore_index"] = ignore
        inputs_names = ["x", "t"] + (["w"] if weighted else [])
        inits = {"w": _RNG.uniform(0.2, 2.0, size=(c,)).astype(np.float32)} if weighted else {}
        scores = _RNG.uniform(-3, 3, size=shape).astype(np.float32)
        log_prob = scores - np.log(np.exp(scores).sum(axis=1, keepdims=True))
        node = helper.make_node("NegativeLogLikelihoodLoss", inputs_names, ["Y"], **attrs)
        yield _case(f"nllloss_{name}", [node], {"x": log_prob.astype(np.float32), "t": target},
                    [("Y", TensorProto.FLOAT)], 13, inits)
        node = helper.make_node("SoftmaxCrossEntropyLoss", inputs_names, ["Y", "log_prob"], **attrs)
        yield _case(f"sce_{name}", [node], {"x": scores, "t": target},
                    [("Y", TensorProto.FLOAT), ("log_prob", TensorProto.FLOAT)], 13, inits)


def _attention_cases():
    # (name, B, Hq, Hkv, S, L, past, E, Ev, 3-D, attributes, mask)
    layouts = [
        ("4d", 2, 3, 3, 5, 7, 0, 8, 8, False, {}, None),
        ("4d_gqa_causal", 2, 6, 2, 5, 5, 0, 8, 4, False, {"is_causal": 1}, None),
        ("3d_mask", 2, 4, 4, 3, 9, 0, 6, 6, True, {"q_num_heads": 4, "kv_num_heads": 4}, "float"),
        ("4d_past_bool", 1, 2, 1, 3, 3, 4, 16, 16, False, {}, "bool"),
        ("4d_softcap_scale", 2, 2, 2, 33, 40, 0, 8, 8, False, {"softcap": 3.0, "scale": 0.3}, None),
    ]
    for name, b, hq, hkv, s, length, past, e, ev, three_d, attrs, mask in layouts:
        if three_d:
            q = _RNG.standard_normal((b, s, hq * e)).astype(np.float32)
            k = _RNG.standard_normal((b, length, hkv * e)).astype(np.float32)
            v = _RNG.standard_normal((b, length, hkv * ev)).astype(np.float32)
        else:
            q = _RNG.standard_normal((b, hq, s, e)).astype(np.float32)
            k = _RNG.standard_normal((b, hkv, length, e)).astype(np.float32)
            v = _RNG.standard_normal((b, hkv, length, ev)).astype(np.float32)
        inputs = {"Q": q, "K": k, "V": v}
        names = ["Q", "K", "V"]
        total = past + length
        if mask == "float":
            inputs["M"] = np.where(_RNG.random((s, total)) < 0.2, -1e4, 0).astype(np.float32)
            names.append("M")
        elif mask == "bool":
            m = _RNG.random((s, total)) < 0.8
            m[:, 0] = True
            inputs["M"] = m
            names.append("M")
        outputs = [("Y", TensorProto.FLOAT)]
        out_names = ["Y"]
        if past:
            while len(names) < 4:
                names.append("")
            inputs["pk"] = _RNG.standard_normal((b, hkv, past, e)).astype(np.float32)
            inputs["pv"] = _RNG.standard_normal((b, hkv, past, ev)).astype(np.float32)
            names += ["pk", "pv"]
            out_names += ["present_key", "present_value"]
            outputs += [("present_key", TensorProto.FLOAT), ("present_value", TensorProto.FLOAT)]
        node = helper.make_node("Attention", names, out_names, **attrs)
        yield _case(f"attention_{name}", [node], inputs, outputs, 23)


def _layout_cases():
    for mode in ("DCR", "CRD"):
        x = _RNG.standard_normal((2, 12, 3, 5)).astype(np.float32)
        node = helper.make_node("DepthToSpace", ["X"], ["Y"], blocksize=2, mode=mode)
        yield _case(f"depthtospace_{mode.lower()}", [node], {"X": x}, [("Y", TensorProto.FLOAT)], 13)
    x = _RNG.standard_normal((1, 3, 6, 9)).astype(np.float32)
    node = helper.make_node("SpaceToDepth", ["X"], ["Y"], blocksize=3)
    yield _case("spacetodepth", [node], {"X": x}, [("Y", TensorProto.FLOAT)], 13)
    # Large enough not to fold: the GPU path.
    for k in (3, -5):
        node = helper.make_node("EyeLike", ["X"], ["Y"], k=k, dtype=TensorProto.FLOAT)
        yield _case(f"eyelike_k{k}".replace("-", "m"), [node], {"X": np.zeros((300, 257), np.int32)},
                    [("Y", TensorProto.FLOAT)], 9)


def _norm_cases():
    x = _RNG.standard_normal((2, 6, 7, 9)).astype(np.float32) * 3 + 1
    c = x.shape[1]
    affine = {"s": _RNG.uniform(0.5, 1.5, size=(c,)).astype(np.float32),
              "b": _RNG.uniform(-1, 1, size=(c,)).astype(np.float32)}
    node = helper.make_node("InstanceNormalization", ["X", "s", "b"], ["Y"], epsilon=1e-3)
    yield _case("instancenorm", [node], {"X": x}, [("Y", TensorProto.FLOAT)], 6, affine)
    node = helper.make_node("GroupNormalization", ["X", "s", "b"], ["Y"], num_groups=3)
    yield _case("groupnorm_21", [node], {"X": x}, [("Y", TensorProto.FLOAT)], 21, affine)
    node = helper.make_node("MeanVarianceNormalization", ["X"], ["Y"])
    yield _case("mvn_default", [node], {"X": x}, [("Y", TensorProto.FLOAT)], 13)
    node = helper.make_node("MeanVarianceNormalization", ["X"], ["Y"], axes=[1, 3])
    yield _case("mvn_axes", [node], {"X": x}, [("Y", TensorProto.FLOAT)], 13)
    for p in (1, 2):
        node = helper.make_node("LpNormalization", ["X"], ["Y"], axis=1, p=p)
        yield _case(f"lpnorm_p{p}", [node], {"X": x}, [("Y", TensorProto.FLOAT)], 1)
    for size in (3, 5):  # onnxruntime takes odd sizes only
        node = helper.make_node("LRN", ["X"], ["Y"], size=size, alpha=2e-3, beta=0.6, bias=1.5)
        yield _case(f"lrn_{size}", [node], {"X": x}, [("Y", TensorProto.FLOAT)], 13)


def _host_input_cases():
    # Inputs read at plan time (k, axis, repeats, depth) as initializers.
    for upper in (0, 1):
        for k in (0, 2, -1, 9):
            x = _RNG.standard_normal((2, 5, 7)).astype(np.float32)
            node = helper.make_node("Trilu", ["X", "k"], ["Y"], upper=upper)
            yield _case(f"trilu_u{upper}_k{k}".replace("-", "m"), [node], {"X": x},
                        [("Y", TensorProto.FLOAT)], 14, {"k": np.array(k, np.int64)})
    x = _RNG.integers(-9, 9, size=(4, 6)).astype(np.int64)
    node = helper.make_node("Trilu", ["X"], ["Y"])
    yield _case("trilu_int64", [node], {"X": x}, [("Y", TensorProto.INT64)], 14)
    for exclusive in (0, 1):
        for reverse in (0, 1):
            for axis in (0, -1):
                x = _RNG.standard_normal((5, 7, 3)).astype(np.float32)
                node = helper.make_node("CumSum", ["X", "axis"], ["Y"], exclusive=exclusive, reverse=reverse)
                yield _case(f"cumsum_e{exclusive}_r{reverse}_a{axis}".replace("-", "m"), [node],
                            {"X": x}, [("Y", TensorProto.FLOAT)], 14, {"axis": np.array(axis, np.int64)})
    for i, (shape, repeats, dtype) in enumerate([((2, 3), (2, 3), np.float32), ((3, 1, 5), (1, 4, 2), np.int64),
                                                 ((7,), (5,), np.uint8)]):
        x = _RNG.integers(0, 100, size=shape).astype(dtype)
        node = helper.make_node("Tile", ["X", "r"], ["Y"])
        yield _case(f"tile_{i}", [node], {"X": x}, [("Y", ELEM_TYPE[np.dtype(dtype)])], 13,
                    {"r": np.array(repeats, np.int64)})
    for i, (shape, k, axis, largest) in enumerate([((3, 11), 4, -1, 1), ((5, 9, 2), 3, 1, 0),
                                                   ((129,), 129, 0, 1)]):
        x = np.round(_RNG.uniform(-5, 5, size=shape), 1).astype(np.float32)  # ties
        node = helper.make_node("TopK", ["X", "K"], ["V", "I"], axis=axis, largest=largest)
        yield _case(f"topk_{i}", [node], {"X": x}, [("V", TensorProto.FLOAT), ("I", TensorProto.INT64)],
                    11, {"K": np.array([k], np.int64)})
    # (indices, axis, values, depth): type combinations onnxruntime registers.
    for i, (dtype, axis, vdtype, ddtype) in enumerate([(np.int64, -1, np.float32, np.int64),
                                                       (np.int32, 0, np.float32, np.float32),
                                                       (np.float32, 1, np.float32, np.float32),
                                                       (np.int64, 1, np.int64, np.int64)]):
        idx = _RNG.integers(-5, 5, size=(3, 4)).astype(dtype)
        node = helper.make_node("OneHot", ["I", "depth", "values"], ["Y"], axis=axis)
        yield _case(f"onehot_{i}", [node], {"I": idx}, [("Y", ELEM_TYPE[np.dtype(vdtype)])], 11,
                    {"depth": np.array(5, ddtype), "values": np.array([2, 7], vdtype)})


def _index_cases():
    data = _RNG.standard_normal((4, 5, 6)).astype(np.float32)
    idx = _RNG.integers(-4, 4, size=(3, 2, 2)).astype(np.int64)
    node = helper.make_node("GatherND", ["D", "I"], ["Y"])
    yield _case("gathernd", [node], {"D": data, "I": idx}, [("Y", TensorProto.FLOAT)], 13)
    idx = _RNG.integers(0, 5, size=(4, 3, 1)).astype(np.int64)
    node = helper.make_node("GatherND", ["D", "I"], ["Y"], batch_dims=1)
    yield _case("gathernd_batch", [node], {"D": data, "I": idx}, [("Y", TensorProto.FLOAT)], 13)
    for reduction in ("none", "add", "mul", "max", "min"):
        idx = np.array([[1], [3], [1]], np.int64)  # a duplicate
        upd = _RNG.standard_normal((3, 5, 6)).astype(np.float32)
        node = helper.make_node("ScatterND", ["D", "I", "U"], ["Y"], reduction=reduction)
        if reduction != "none":
            yield _case(f"scatternd_{reduction}", [node], {"D": data, "I": idx, "U": upd},
                        [("Y", TensorProto.FLOAT)], 18)
        eidx = _RNG.integers(-5, 5, size=(4, 3, 6)).astype(np.int64)
        eupd = _RNG.standard_normal((4, 3, 6)).astype(np.float32)
        node = helper.make_node("ScatterElements", ["D", "I", "U"], ["Y"], axis=1, reduction=reduction)
        if reduction != "none":
            yield _case(f"scatterelements_{reduction}", [node], {"D": data, "I": eidx, "U": eupd},
                        [("Y", TensorProto.FLOAT)], 18)
    # Without a reduction, unique indices (duplicates would leave the result
    # to the implementation's order).
    idx = np.array([[2, 1], [0, 4]], np.int64)
    upd = _RNG.standard_normal((2, 6)).astype(np.float32)
    node = helper.make_node("ScatterND", ["D", "I", "U"], ["Y"])
    yield _case("scatternd_none", [node], {"D": data, "I": idx, "U": upd}, [("Y", TensorProto.FLOAT)], 16)
    eidx = np.stack([_RNG.permutation(5)[:3] for _ in range(4 * 6)]).reshape(4, 6, 3).transpose(0, 2, 1).astype(np.int64)
    node = helper.make_node("ScatterElements", ["D", "I", "U"], ["Y"], axis=1)
    yield _case("scatterelements_none", [node],
                {"D": data, "I": np.ascontiguousarray(eidx), "U": _RNG.standard_normal((4, 3, 6)).astype(np.float32)},
                [("Y", TensorProto.FLOAT)], 16)


def _sampling_cases():
    x = _RNG.standard_normal((2, 3, 5, 7)).astype(np.float32)
    grid = _RNG.uniform(-1.3, 1.3, size=(2, 4, 6, 2)).astype(np.float32)
    for mode in ("nearest", "linear", "cubic"):
        for padding in ("zeros", "border", "reflection"):
            for align in (0, 1):
                node = helper.make_node("GridSample", ["X", "G"], ["Y"], mode=mode, padding_mode=padding,
                                        align_corners=align)
                yield _case(f"gridsample_{mode}_{padding}_{align}", [node], {"X": x, "G": grid},
                            [("Y", TensorProto.FLOAT)], 20)
    for i, (shape, kernel, strides, pads, p) in enumerate([((1, 3, 11, 9), [3, 2], [2, 1], [1, 0, 1, 1], 2),
                                                           ((2, 2, 17), [4], [3], [0, 2], 3)]):
        node = helper.make_node("LpPool", ["X"], ["Y"], kernel_shape=kernel, strides=strides, pads=pads, p=p)
        yield _case(f"lppool_{i}", [node], {"X": _RNG.standard_normal(shape).astype(np.float32)},
                    [("Y", TensorProto.FLOAT)], 18)


def _quantize_cases():
    x = _RNG.uniform(-20, 20, size=(2, 3, 5)).astype(np.float32)
    for zp_dtype in (np.uint8, np.int8, np.uint16, np.int16):
        for per_axis in (False, True):
            scale = (_RNG.uniform(0.05, 0.2, size=(3,)) if per_axis else np.array(0.1)).astype(np.float32)
            zp = np.array(_RNG.integers(0, 9, size=scale.shape), dtype=zp_dtype)
            tag = f"{np.dtype(zp_dtype).name}_{'axis' if per_axis else 'tensor'}"
            node = helper.make_node("QuantizeLinear", ["X", "s", "z"], ["Y"], axis=1)
            yield _case(f"quantize_{tag}", [node], {"X": x}, [("Y", ELEM_TYPE[np.dtype(zp_dtype)])], 21,
                        {"s": scale, "z": zp})
            q = _RNG.integers(0, 100, size=(2, 3, 5)).astype(zp_dtype)
            node = helper.make_node("DequantizeLinear", ["Q", "s", "z"], ["Y"], axis=1)
            yield _case(f"dequantize_{tag}", [node], {"Q": q}, [("Y", TensorProto.FLOAT)], 21,
                        {"s": scale, "z": zp})


def _rotary_cases():
    for interleaved in (0, 1):
        for rot in (0, 4):
            x = _RNG.standard_normal((2, 3, 5, 8)).astype(np.float32)
            half = (rot or 8) // 2
            cos = _RNG.uniform(-1, 1, size=(11, half)).astype(np.float32)
            sin = _RNG.uniform(-1, 1, size=(11, half)).astype(np.float32)
            pos = _RNG.integers(0, 11, size=(2, 5)).astype(np.int64)
            node = helper.make_node("RotaryEmbedding", ["X", "c", "s", "p"], ["Y"], interleaved=interleaved,
                                    rotary_embedding_dim=rot)
            yield _case(f"rotary_i{interleaved}_r{rot}", [node], {"X": x, "p": pos},
                        [("Y", TensorProto.FLOAT)], 23, {"c": cos, "s": sin})


def _value_input_cases():
    # Shape-setting inputs as graph inputs: read from the request on the host.
    x = _RNG.standard_normal((3, 8, 5)).astype(np.float32)
    node = helper.make_node("CenterCropPad", ["X", "s"], ["Y"], axes=[1, 2])
    yield _case("centercroppad", [node], {"X": x, "s": np.array([5, 8], np.int64)},
                [("Y", TensorProto.FLOAT)], 18)
    for align in (0, 1):
        theta = _RNG.standard_normal((2, 2, 3)).astype(np.float32)
        node = helper.make_node("AffineGrid", ["T", "size"], ["Y"], align_corners=align)
        yield _case(f"affinegrid_2d_{align}", [node], {"T": theta, "size": np.array([2, 3, 5, 7], np.int64)},
                    [("Y", TensorProto.FLOAT)], 20)
        theta = _RNG.standard_normal((1, 3, 4)).astype(np.float32)
        yield _case(f"affinegrid_3d_{align}", [node], {"T": theta, "size": np.array([1, 1, 3, 4, 6], np.int64)},
                    [("Y", TensorProto.FLOAT)], 20)
    node = helper.make_node("ReduceSum", ["X", "axes"], ["Y"], keepdims=0)
    yield _case("reducesum_axes_input", [node], {"X": x, "axes": np.array([0, 2], np.int64)},
                [("Y", TensorProto.FLOAT)], 13)
    node = helper.make_node("Reshape", ["X", "shape"], ["Y"])
    yield _case("reshape_shape_input", [node], {"X": x, "shape": np.array([4, -1], np.int64)},
                [("Y", TensorProto.FLOAT)], 14)
    node = helper.make_node("TopK", ["X", "K"], ["V", "I"], axis=1)
    yield _case("topk_k_input", [node], {"X": x, "K": np.array([3], np.int64)},
                [("V", TensorProto.FLOAT), ("I", TensorProto.INT64)], 11)


def _small_cases():
    for batch_axis, time_axis in ((0, 1), (1, 0)):
        x = _RNG.standard_normal((5, 6, 3)).astype(np.float32)
        lens = _RNG.integers(0, 6 if batch_axis == 0 else 5, size=(x.shape[batch_axis],)).astype(np.int64)
        node = helper.make_node("ReverseSequence", ["X", "L"], ["Y"], batch_axis=batch_axis, time_axis=time_axis)
        yield _case(f"reversesequence_b{batch_axis}", [node], {"X": x, "L": lens}, [("Y", TensorProto.FLOAT)], 10)
    for shape in ((3, 3), (2, 4, 5, 5)):
        node = helper.make_node("Det", ["X"], ["Y"])
        yield _case(f"det_{len(shape)}d", [node], {"X": _RNG.standard_normal(shape).astype(np.float32)},
                    [("Y", TensorProto.FLOAT)], 11, atol=1e-3)


def cases():
    yield from _small_cases()
    yield from _value_input_cases()
    yield from _index_cases()
    yield from _sampling_cases()
    yield from _quantize_cases()
    yield from _rotary_cases()
    yield from _host_input_cases()
    yield from _layout_cases()
    yield from _norm_cases()
    yield from _arg_cases()
    yield from _bitwise_cases()
    yield from _size_cases()
    yield from _loss_cases()
    yield from _attention_cases()
