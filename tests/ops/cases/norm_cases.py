# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Normalization and reduction cases: BatchNormalization (inference; opsets
# 7-21, spatial=0 before 9, training_mode=0, statistics as initializers and
# as graph inputs), Softmax (opsets before 13 coerce to 2-D at axis; from 13
# one axis; long, short, strided and extreme-valued rows) and ReduceMean
# (axes attribute before opset 18, axes input from 18 with
# noop_with_empty_axes, keepdims, negative axes, odd shapes up to rank 6).
# Host-known inputs (ReduceMean's axes) are initializers. Expected outputs
# come from onnxruntime.
import numpy as np
from onnx import TensorProto, helper, numpy_helper

_RNG = np.random.default_rng(20260523)


def _rand(shape, lo=-2.0, hi=2.0):
    return _RNG.uniform(lo, hi, size=shape).astype(np.float32)


def _model(nodes, inputs, outputs, opset, inits=None):
    """inputs: {name: float32 array}; outputs: [(name, TensorProto type)]; inits: {name: array}."""
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(a.shape)) for n, a in inputs.items()],
        [helper.make_tensor_value_info(n, t, None) for n, t in outputs],
        initializer=[numpy_helper.from_array(np.asarray(v), n) for n, v in (inits or {}).items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def _case(name, nodes, inputs, opset, inits=None, **tol):
    case = {"name": name, "model": _model(nodes, inputs, [("Y", TensorProto.FLOAT)], opset, inits),
            "inputs": inputs}
    case.update(tol)
    return case


# ---- BatchNormalization ----

def _bn_stats(channels):
    return {"scale": _rand(channels, 0.5, 1.5), "B": _rand(channels, -1.0, 1.0),
            "mean": _rand(channels, -0.5, 0.5), "var": _rand(channels, 0.1, 2.0)}


def _bn(name, x_shape, opset, stats_as_inputs=False, stats_shape=None, **attrs):
    stats = _bn_stats(stats_shape if stats_shape is not None else (x_shape[1],))
    node = helper.make_node("BatchNormalization", ["X", "scale", "B", "mean", "var"], ["Y"], **attrs)
    inputs = {"X": _rand(x_shape)}
    if stats_as_inputs:
        inputs.update(stats)
        return _case(name, [node], inputs, opset)
    return _case(name, [node], inputs, opset, stats)


def _batch_norm_cases():
    for opset in (7, 9, 14, 15, 21):
        yield _bn(f"bn_opset{opset}", (2, 16, 9, 9), opset)
    yield _bn("bn_epsilon", (1, 13, 7, 5), 15, epsilon=1e-2)
    yield _bn("bn_training_mode_0", (2, 3, 4, 4), 14, training_mode=0)
    yield _bn("bn_momentum", (2, 3, 5, 5), 9, momentum=0.8)
    yield _bn("bn_rank2", (7, 13), 15)
    yield _bn("bn_rank3", (3, 127, 3), 15)
    yield _bn("bn_rank5", (1, 3, 4, 5, 6), 15)
    yield _bn("bn_one_channel", (3, 1, 7, 7), 15)
    yield _bn("bn_one_pixel", (4, 64, 1, 1), 15)
    yield _bn("bn_big", (2, 64, 56, 56), 15)
    yield _bn("bn_stats_inputs", (2, 7, 5, 3), 15, stats_as_inputs=True)
    yield _bn("bn_stats_inputs_vec4", (2, 13, 4, 4), 15, stats_as_inputs=True)
    yield _bn("bn_spatial1_opset7", (2, 3, 5, 5), 7, spatial=1)
    yield _bn("bn_spatial0_opset7", (2, 3, 5, 5), 7, stats_shape=(3, 5, 5), spatial=0)
    yield _bn("bn_spatial0_opset8_rank3", (3, 4, 7), 8, stats_shape=(4, 7), spatial=0)


# ---- Softmax ----

def _softmax(name, x, opset, **attrs):
    node = helper.make_node("Softmax", ["X"], ["Y"], **attrs)
    return _case(name, [node], {"X": x}, opset, atol=1e-6)


def _softmax_cases():
    # Opsets 1-12: flattened to 2-D at axis (default 1).
    for opset in (7, 11):
        yield _softmax(f"softmax{opset}_default_axis", _rand((2, 3, 4, 5)), opset)
        yield _softmax(f"softmax{opset}_axis2", _rand((2, 3, 4, 5)), opset, axis=2)
        yield _softmax(f"softmax{opset}_axis0", _rand((2, 3, 7)), opset, axis=0)
        yield _softmax(f"softmax{opset}_rank2", _rand((3, 1000), -5.0, 5.0), opset)
    yield _softmax("softmax11_axis_neg1", _rand((2, 3, 13)), 11, axis=-1)
    yield _softmax("softmax11_axis_neg3", _rand((2, 3, 13)), 11, axis=-3)
    # Opsets 13+: one axis (default -1).
    for opset in (13, 21):
        yield _softmax(f"softmax{opset}_default_axis", _rand((2, 3, 4, 5)), opset)
        yield _softmax(f"softmax{opset}_axis1", _rand((2, 3, 4, 5)), opset, axis=1)
        yield _softmax(f"softmax{opset}_axis0", _rand((3, 7, 5)), opset, axis=0)
    yield _softmax("softmax13_axis_neg2", _rand((2, 9, 11)), 13, axis=-2)
    yield _softmax("softmax13_rank1", _rand((7,)), 13)
    yield _softmax("softmax13_row_of_one", _rand((5, 1)), 13)
    yield _softmax("softmax13_rows_of_3", _rand((127, 3)), 13)
    yield _softmax("softmax13_imagenet", _rand((4, 1000), -10.0, 10.0), 13)
    yield _softmax("softmax13_long_row", _rand((2, 4097)), 13)
    yield _softmax("softmax13_attention", _rand((1, 4, 33, 33), -8.0, 8.0), 13)
    yield _softmax("softmax13_yolo_dfl", _rand((1, 16, 4, 300), -4.0, 4.0), 13, axis=1)
    yield _softmax("softmax13_long_strided", _rand((2, 1500, 3)), 13, axis=1)
    # Stability: exp(x) alone would overflow.
    yield _softmax("softmax13_large_values", _rand((3, 257), 50.0, 120.0), 13)
    yield _softmax("softmax13_large_strided", _rand((3, 33, 5), -120.0, 120.0), 13, axis=1)
    # Attention masks: very negative and infinite logits.
    x = _rand((2, 4, 65))
    x[:, :, 40:] = -1e9
    x[1, :, 10:20] = -np.inf
    yield _softmax("softmax13_masked", x, 13)


# ---- ReduceMean ----

def _reduce(name, x, opset, axes=None, axes_input=False, atol=1e-5, **attrs):
    inits = None
    if axes_input:
        node = helper.make_node("ReduceMean", ["X", "axes"] if axes is not None else ["X"], ["Y"],
                                **attrs)
        if axes is not None:
            inits = {"axes": np.array(axes, dtype=np.int64)}
    else:
        if axes is not None:
            attrs["axes"] = axes
        node = helper.make_node("ReduceMean", ["X"], ["Y"], **attrs)
    return _case(name, [node], {"X": x}, opset, inits, atol=atol)


_REDUCTIONS = [
    # (tag, shape, axes)
    ("spatial", (2, 16, 7, 9), [2, 3]),
    ("channels", (2, 16, 7, 9), [1]),
    ("last", (3, 5, 768), [-1]),
    ("first", (13, 7, 3), [0]),
    ("outer_inner", (4, 3, 5, 7), [0, 3]),
    ("alternate", (3, 4, 5, 6), [0, 2]),
    ("all_listed", (3, 1, 7), [0, 1, 2]),
    ("rank1", (127,), [0]),
    ("rank6_alternate", (2, 3, 2, 3, 2, 3), [1, 3, 5]),
    ("rank6_even", (2, 3, 2, 3, 2, 3), [0, 2, 4]),
    ("size1_axis", (5, 1, 7), [1]),
    ("short_rows", (127, 7), [-1]),
]


def _reduce_mean_cases():
    for opset in (13, 17):
        for tag, shape, axes in _REDUCTIONS:
            for keep in (0, 1):
                yield _reduce(f"reducemean{opset}_{tag}_keep{keep}", _rand(shape), opset, axes,
                              keepdims=keep)
        yield _reduce(f"reducemean{opset}_all_default", _rand((3, 4, 5)), opset)
        yield _reduce(f"reducemean{opset}_all_keep0", _rand((3, 4, 5)), opset, keepdims=0)
    yield _reduce("reducemean11_negative", _rand((2, 3, 5)), 11, [-2, -1], keepdims=1)
    # Opset 18+: axes as an input (an initializer).
    for opset in (18, 21):
        for tag, shape, axes in _REDUCTIONS:
            for keep in (0, 1):
                yield _reduce(f"reducemean{opset}_{tag}_keep{keep}", _rand(shape), opset, axes,
                              axes_input=True, keepdims=keep)
        yield _reduce(f"reducemean{opset}_no_axes", _rand((3, 4, 5)), opset, axes_input=True)
        yield _reduce(f"reducemean{opset}_no_axes_keep0", _rand((3, 4, 5)), opset,
                      axes_input=True, keepdims=0)
        yield _reduce(f"reducemean{opset}_noop_no_axes", _rand((3, 4, 5)), opset,
                      axes_input=True, noop_with_empty_axes=1)
        yield _reduce(f"reducemean{opset}_noop_empty_axes", _rand((3, 4, 5)), opset, [],
                      axes_input=True, noop_with_empty_axes=1)
        yield _reduce(f"reducemean{opset}_noop_with_axes", _rand((3, 4, 5)), opset, [1],
                      axes_input=True, noop_with_empty_axes=1)
    # Big reductions: global pooling, per-channel over a large batch, rows.
    yield _reduce("reducemean_global_pool", _rand((2, 64, 56, 56)), 13, [2, 3], atol=1e-5)
    yield _reduce("reducemean_channel_big", _rand((2, 64, 28, 28)), 13, [1], atol=1e-5)
    yield _reduce("reducemean_layernorm_rows", _rand((2, 128, 768)), 18, [-1],
                  axes_input=True, atol=1e-5)
    yield _reduce("reducemean_whole_big", _rand((3, 100, 1000)), 18, axes_input=True,
                  keepdims=0, atol=1e-5)
    # A folded ReduceMean: the mean of a tensor's dims, computed at plan time.
    x = _rand((2, 3, 8, 12))
    nodes = [helper.make_node("Shape", ["X"], ["s"]),
             helper.make_node("Cast", ["s"], ["sf"], to=TensorProto.FLOAT),
             helper.make_node("ReduceMean", ["sf"], ["m"], keepdims=1),
             helper.make_node("Mul", ["X", "m"], ["Y"])]
    yield _case("reducemean_folded_shape_mean", nodes, {"X": x}, 13)


def cases():
    yield from _batch_norm_cases()
    yield from _softmax_cases()
    yield from _reduce_mean_cases()
