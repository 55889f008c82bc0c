# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# com.microsoft BiasAdd and BiasSoftmax, which ONNX Runtime registers only
# for CUDA and ROCm: onnxruntime-node cannot run them, so each case carries a
# "reference_model" (see gen_cases.py) of standard ONNX ops that onnxruntime
# runs instead, written here from the ops' semantics and not from vkserve's
# rewrites (runtime/lowering/contrib/bias_add.cc, bias_softmax.cc):
#
#   BiasAdd: Y = X + bias + skip, X and skip [N, S, C], bias [C]. Reference:
#     one Sum of the three.
#   BiasSoftmax: X read as R = prod(X.shape[:axis]) rows of D =
#     prod(X.shape[axis:]); softmax over each whole row; the bias read as
#     Rb = size / D rows, X's row r adding bias row r // (R // Rb) with
#     is_inner_broadcast=1, r % Rb with 0. Reference (opset 11): the bias rows
#     gathered by those indices (computed here in numpy), reshaped to X's
#     shape, added, and Softmax-11, which flattens from `axis` as the op does.
#
# Cases cover ranks 2 to 5, every axis form (default, positive, negative,
# 0), both broadcasts, masks with -10000 entries, biases of lower rank,
# initializers, symbolic dims, and both ops after a MatMul (BiasAdd's Adds
# then fuse into it).
import numpy as np
from onnx import TensorProto, helper, numpy_helper

_RNG = np.random.default_rng(20261208)
_MS = "com.microsoft"


def _rand(*shape, lo=-1.0, hi=1.0):
    return _RNG.uniform(lo, hi, size=shape).astype(np.float32)


def _model(name, nodes, feeds, inits, outputs, opsets, dims=None):
    """dims: {input name: declared dims (ints or symbolic strings)} overriding the arrays' shapes."""
    dims = dims or {}
    graph = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, dims.get(n, list(v.shape)))
         for n, v in feeds.items()],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs],
        initializer=[numpy_helper.from_array(v, n) for n, v in inits.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets])
    model.ir_version = 8
    return model


def _case(name, nodes, ref_nodes, feeds, inits=None, ref_inits=None, dims=None, atol=1e-4,
          rtol=1e-3):
    """nodes: the contrib-op model's (opset 17 + com.microsoft 1); ref_nodes: the
    reference's (opset 11 only). Both read `feeds` and `inits` and write Y."""
    inits = inits or {}
    model = _model(name, nodes, feeds, inits, ["Y"], [("", 17), (_MS, 1)], dims)
    reference = _model(name + "_reference", ref_nodes, feeds, {**inits, **(ref_inits or {})},
                       ["Y"], [("", 11)])
    return {"name": name, "model": model, "reference_model": reference, "inputs": feeds,
            "atol": atol, "rtol": rtol}


# ---- BiasAdd ----

def _bias_add(name, x_shape, bias_init=False, dims=None):
    c = x_shape[-1]
    feeds = {"X": _rand(*x_shape), "skip": _rand(*x_shape)}
    inits = {}
    (inits if bias_init else feeds)["bias"] = _rand(c)
    node = helper.make_node("BiasAdd", ["X", "bias", "skip"], ["Y"], domain=_MS)
    ref = helper.make_node("Sum", ["X", "bias", "skip"], ["Y"])
    return _case(name, [node], [ref], feeds, inits, dims=dims, atol=2e-6, rtol=1e-5)


def _bias_add_after_matmul(name, batch, seq, k, c):
    """A UNet projection: MatMul by a weight, then BiasAdd with an initializer bias."""
    feeds = {"A": _rand(batch, seq, k), "skip": _rand(batch, seq, c)}
    inits = {"W": (_rand(k, c) / np.sqrt(k)).astype(np.float32), "bias": _rand(c)}
    nodes = [helper.make_node("MatMul", ["A", "W"], ["mm"]),
             helper.make_node("BiasAdd", ["mm", "bias", "skip"], ["Y"], domain=_MS)]
    ref = [helper.make_node("MatMul", ["A", "W"], ["mm"]),
           helper.make_node("Sum", ["mm", "bias", "skip"], ["Y"])]
    return _case(name, nodes, ref, feeds, inits, atol=float(1e-4 * np.sqrt(k)))


def _bias_add_cases():
    yield _bias_add("bias_add_basic", (2, 7, 40))
    yield _bias_add("bias_add_odd", (1, 33, 17), bias_init=True)
    yield _bias_add("bias_add_unet_320", (2, 16, 320))
    yield _bias_add("bias_add_symbolic", (3, 5, 24), dims={"X": ["N", "S", 24],
                                                           "skip": ["N", "S", 24]})
    yield _bias_add_after_matmul("bias_add_after_matmul", 2, 9, 24, 40)
    yield _bias_add_after_matmul("bias_add_after_matmul_640", 1, 13, 48, 640)


# ---- BiasSoftmax ----

def _bias_rows(x_shape, bias_size, axis, inner):
    """Which bias row each of X's softmax rows adds, as the op documents it."""
    a = axis % len(x_shape)
    rows = int(np.prod(x_shape[:a], dtype=np.int64))
    row_len = int(np.prod(x_shape[a:], dtype=np.int64))
    bias_rows = bias_size // row_len
    assert bias_rows * row_len == bias_size and rows % bias_rows == 0
    r = np.arange(rows, dtype=np.int64)
    index = r // (rows // bias_rows) if inner else r % bias_rows
    return index, bias_rows, row_len


def _reference_bias_softmax(x_shape, bias_size, axis, inner, x="X", bias="B"):
    """Reference nodes and initializers: bias rows gathered per X row, Softmax-11."""
    index, bias_rows, row_len = _bias_rows(x_shape, bias_size, axis, inner)
    inits = {"ref_bias_rows_shape": np.array([bias_rows, row_len], np.int64),
             "ref_row_index": index,
             "ref_x_shape": np.array(x_shape, np.int64)}
    nodes = [
        helper.make_node("Reshape", [bias, "ref_bias_rows_shape"], ["ref_bias_rows"]),
        helper.make_node("Gather", ["ref_bias_rows", "ref_row_index"], ["ref_bias_per_row"],
                         axis=0),
        helper.make_node("Reshape", ["ref_bias_per_row", "ref_x_shape"], ["ref_bias_full"]),
        helper.make_node("Add", [x, "ref_bias_full"], ["ref_sum"]),
        helper.make_node("Softmax", ["ref_sum"], ["Y"], axis=axis),
    ]
    return nodes, inits


def _bias_softmax(name, x_shape, bias_shape, inner, axis=None, bias_init=False, mask=False,
                  dims=None, x_scale=3.0):
    x = _rand(*x_shape, lo=-x_scale, hi=x_scale)
    if mask:
        # An additive mask: 0 where attended, -10000 where masked; keep
        # one attended element per row so no row is all masked.
        b = np.where(_RNG.uniform(size=bias_shape) < 0.4, -10000.0, 0.0).astype(np.float32)
        b.reshape(-1)[0] = 0.0
    else:
        b = _rand(*bias_shape, lo=-2.0, hi=2.0)
    feeds, inits = {"X": x}, {}
    (inits if bias_init else feeds)["B"] = b
    attrs = {"is_inner_broadcast": int(inner)}
    if axis is not None:
        attrs["axis"] = axis
    node = helper.make_node("BiasSoftmax", ["X", "B"], ["Y"], domain=_MS, **attrs)
    ref_axis = 1 if axis is None else axis
    ref, ref_inits = _reference_bias_softmax(x_shape, b.size, ref_axis, inner)
    return _case(name, [node], ref, feeds, inits, ref_inits, dims=dims, atol=2e-6, rtol=1e-4)


def _bias_softmax_after_matmul(name, b, h, s, t, d):
    """Attention scores Q x K^T, then the BERT mask [B, 1, 1, T] (inner broadcast)."""
    feeds = {"Q": _rand(b, h, s, d), "KT": _rand(b, h, d, t)}
    mask = np.where(_RNG.uniform(size=(b, 1, 1, t)) < 0.3, -10000.0, 0.0).astype(np.float32)
    mask[..., 0] = 0.0
    feeds["B"] = mask
    nodes = [helper.make_node("MatMul", ["Q", "KT"], ["scores"]),
             helper.make_node("BiasSoftmax", ["scores", "B"], ["Y"], domain=_MS, axis=3,
                              is_inner_broadcast=1)]
    ref, ref_inits = _reference_bias_softmax((b, h, s, t), mask.size, 3, True, x="scores")
    ref.insert(0, helper.make_node("MatMul", ["Q", "KT"], ["scores"]))
    return _case(name, nodes, ref, feeds, ref_inits=ref_inits, atol=1e-5, rtol=1e-4)


def _bias_softmax_cases():
    # BERT's mask [B, 1, 1, S] on scores [B, H, S, S]: inner broadcast.
    yield _bias_softmax("bias_softmax_bert_mask", (2, 3, 5, 7), (2, 1, 1, 7), True, axis=3,
                        mask=True)
    yield _bias_softmax("bias_softmax_bert_mask_neg_axis", (2, 4, 9, 9), (2, 1, 1, 9), True,
                        axis=-1, mask=True)
    # A position bias [1, H, S, S] shared by the batch: outer broadcast.
    yield _bias_softmax("bias_softmax_position_bias", (3, 2, 5, 6), (1, 2, 5, 6), False,
                        axis=-1)
    yield _bias_softmax("bias_softmax_position_bias_low_rank", (2, 3, 4, 11), (3, 4, 11), False,
                        axis=3, bias_init=True)
    # Softmax over several trailing dims (the op flattens from axis).
    yield _bias_softmax("bias_softmax_axis2_inner", (2, 3, 4, 5), (2, 1, 4, 5), True, axis=2)
    yield _bias_softmax("bias_softmax_axis_neg2_outer", (3, 2, 4, 6), (2, 4, 6), False, axis=-2)
    yield _bias_softmax("bias_softmax_axis_neg3_inner", (4, 3, 2, 5), (2, 1, 3, 2, 5), True,
                        axis=-3)
    # The default axis (1), both ways; one bias row for all.
    yield _bias_softmax("bias_softmax_default_axis_inner", (4, 9, 3), (9, 3), True)
    yield _bias_softmax("bias_softmax_default_axis_outer", (6, 5, 7), (2, 35), False)
    # Rank 2: one bias row, and two bias rows each over half of X's rows.
    yield _bias_softmax("bias_softmax_rank2_one_row", (6, 11), (11,), False, axis=1)
    yield _bias_softmax("bias_softmax_rank2_inner", (6, 11), (2, 11), True, axis=-1)
    # Rank 5, inner over two leading dims and outer over three.
    yield _bias_softmax("bias_softmax_rank5_inner", (2, 2, 3, 4, 5), (2, 2, 1, 4, 5), True,
                        axis=3)
    yield _bias_softmax("bias_softmax_rank5_outer", (2, 2, 3, 4, 5), (3, 4, 5), False, axis=-2,
                        bias_init=True)
    # axis 0: one row of every element; the bias has X's size.
    yield _bias_softmax("bias_softmax_axis0", (3, 4, 5), (3, 4, 5), True, axis=0)
    # No broadcast at all: as many bias rows as X rows.
    yield _bias_softmax("bias_softmax_no_broadcast", (2, 3, 13), (2, 3, 13), False, axis=2)
    # Long odd rows and large inputs (-10000 masks included).
    yield _bias_softmax("bias_softmax_long_row", (2, 2, 3, 1031), (2, 1, 1, 1031), True, axis=-1,
                        mask=True, x_scale=8.0)
    # Symbolic batch and sequence: the rewrite works from runtime shapes.
    yield _bias_softmax("bias_softmax_symbolic_inner", (2, 3, 6, 6), (2, 1, 1, 6), True, axis=-1,
                        mask=True, dims={"X": ["batch", 3, "seq", "seq"],
                                         "B": ["batch", 1, 1, "seq"]})
    yield _bias_softmax("bias_softmax_symbolic_outer", (3, 2, 4, 4), (1, 2, 4, 4), False, axis=2,
                        dims={"X": ["batch", 2, "seq", "seq"], "B": [1, 2, "seq", "seq"]})
    yield _bias_softmax_after_matmul("bias_softmax_after_matmul", 2, 4, 7, 9, 16)


def cases():
    yield from _bias_add_cases()
    yield from _bias_softmax_cases()
