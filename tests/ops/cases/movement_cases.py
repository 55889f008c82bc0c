# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Data-movement cases that run on the GPU: Transpose, Concat, Split, Slice,
# Gather, Expand, Where and Cast, over float, int64, int32 and bool data
# (the kernels move bits, so 1-, 4- and 8-byte elements all go through the
# same shaders), odd sizes, negative axes and steps, and every opset
# variant. Also the embedding and attention-mask paths of BERT/GPT-2.
# Host-known inputs (axes, starts, split sizes, shapes) are initializers;
# expected outputs come from onnxruntime.
import numpy as np
from onnx import TensorProto, helper
from onnx_case import ELEM_TYPE, make_model

_RNG = np.random.default_rng(20260512)


_INT_MAX = np.iinfo(np.int64).max
_INT_MIN = np.iinfo(np.int64).min


def _rand(shape, dtype=np.float32):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return _RNG.random(shape) > 0.5
    if dtype == np.int64:  # exercise both words of each element
        return _RNG.integers(-(1 << 40), 1 << 40, size=shape).astype(np.int64)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return _RNG.integers(max(info.min, -1000), min(info.max, 1000), size=shape).astype(dtype)
    return _RNG.uniform(-2.0, 2.0, size=shape).astype(dtype)


def _case(name, nodes, inputs, outputs, opset, inits=None, **tol):
    case = {"name": name, "model": make_model(nodes, inputs, outputs, opset, inits), "inputs": inputs}
    case.update(tol)
    return case


def _one(name, op, x, opset, inits=None, extra_inputs=(), out_type=None, **attrs):
    """A single `op` node on input X (plus initializers named in extra_inputs)."""
    node = helper.make_node(op, ["X", *extra_inputs], ["Y"], **attrs)
    return _case(name, [node], {"X": x}, [("Y", out_type or ELEM_TYPE[x.dtype])], opset, inits)


def _i64(v):
    return np.array(v, dtype=np.int64)


def _tag(v):
    return "_".join(str(a) for a in v).replace("-", "m") if isinstance(v, (list, tuple)) else str(v).replace("-", "m")


def _transpose_cases():
    yield _one("transpose_2d_odd", "Transpose", _rand((127, 13)), 13)
    yield _one("transpose_2d_large", "Transpose", _rand((257, 515)), 13, perm=[1, 0])
    yield _one("transpose_default_3d", "Transpose", _rand((3, 7, 5)), 1)
    yield _one("transpose_3d_021", "Transpose", _rand((3, 7, 13)), 13, perm=[0, 2, 1])
    yield _one("transpose_bshd", "Transpose", _rand((2, 13, 4, 16)), 13, perm=[0, 2, 1, 3])
    yield _one("transpose_bsdh", "Transpose", _rand((2, 13, 4, 16)), 21, perm=[0, 2, 3, 1])
    yield _one("transpose_4d_3210", "Transpose", _rand((3, 1, 5, 7)), 13, perm=[3, 2, 1, 0])
    yield _one("transpose_5d", "Transpose", _rand((2, 3, 1, 5, 7)), 13, perm=[4, 0, 3, 2, 1])
    yield _one("transpose_8d", "Transpose", _rand((2, 3, 2, 1, 3, 2, 2, 3)), 13,
               perm=[7, 0, 5, 2, 6, 1, 3, 4])
    yield _one("transpose_identity", "Transpose", _rand((3, 5)), 13, perm=[0, 1])
    yield _one("transpose_int64", "Transpose", _rand((7, 3, 5), np.int64), 13, perm=[2, 0, 1])
    yield _one("transpose_int32", "Transpose", _rand((13, 7), np.int32), 13, perm=[1, 0])
    yield _one("transpose_bool", "Transpose", _rand((3, 7, 5), np.bool_), 13, perm=[1, 2, 0])
    yield _one("transpose_uint8", "Transpose", _rand((5, 3, 3), np.uint8), 21, perm=[2, 1, 0])
    yield _one("transpose_fp16", "Transpose", _rand((6, 10), np.float16), 13, perm=[1, 0])
    # Large enough for the tiled (shared-memory) path, with 0, 1 and 2 batch dims.
    yield _one("transpose_tiled_keys", "Transpose", _rand((2, 40, 4, 16)), 13, perm=[0, 2, 3, 1])
    yield _one("transpose_tiled_4d_batch2", "Transpose", _rand((3, 40, 5, 33)), 13, perm=[2, 0, 3, 1])
    yield _one("transpose_tiled_int64", "Transpose", _rand((100, 37), np.int64), 13, perm=[1, 0])
    yield _one("transpose_tiled_batched_odd", "Transpose", _rand((3, 127, 65)), 13, perm=[0, 2, 1])
    yield _one("transpose_scalar_dims", "Transpose", _rand((1, 1, 1)), 13, perm=[2, 0, 1])


def _concat_cases():
    a, b, c = _rand((3, 5, 7)), _rand((3, 2, 7)), _rand((3, 1, 7))
    for opset in (4, 11, 13):
        axis = 1 if opset < 11 else -2
        yield _case(f"concat_3in_opset{opset}",
                    [helper.make_node("Concat", ["A", "B", "C"], ["Y"], axis=axis)],
                    {"A": a, "B": b, "C": c}, [("Y", TensorProto.FLOAT)], opset)
    yield _case("concat_axis0", [helper.make_node("Concat", ["A", "B"], ["Y"], axis=0)],
                {"A": _rand((2, 13)), "B": _rand((5, 13))}, [("Y", TensorProto.FLOAT)], 13)
    yield _case("concat_last_axis", [helper.make_node("Concat", ["A", "B"], ["Y"], axis=-1)],
                {"A": _rand((2, 3, 5)), "B": _rand((2, 3, 3))}, [("Y", TensorProto.FLOAT)], 13)
    yield _case("concat_single", [helper.make_node("Concat", ["A"], ["Y"], axis=0)],
                {"A": _rand((7,))}, [("Y", TensorProto.FLOAT)], 13)
    # A zero-sized input (here computed by an empty Slice) contributes nothing.
    yield _case("concat_with_empty", [
        helper.make_node("Slice", ["A", "s", "e", "ax"], ["E"]),
        helper.make_node("Concat", ["A", "E", "B"], ["Y"], axis=1)],
        {"A": _rand((2, 3)), "B": _rand((2, 4))}, [("Y", TensorProto.FLOAT)], 13,
        {"s": _i64([2]), "e": _i64([2]), "ax": _i64([1])})
    # A decoder's first step: an empty past (an empty Slice) joined to the
    # transposed keys, which Mul also reads. The Concat runs as an alias of
    # the keys, whose bytes then live in the output `present` itself.
    for keys_out in (False, True):
        outs = [("K", TensorProto.FLOAT)] if keys_out else []
        yield _case("concat_empty_past_alias" + ("_keys_out" if keys_out else ""), [
            helper.make_node("Slice", ["P", "s", "e", "ax"], ["past"]),
            helper.make_node("Transpose", ["X"], ["K"], perm=[0, 2, 1, 3]),
            helper.make_node("Concat", ["past", "K"], ["present"], axis=2),
            helper.make_node("Mul", ["present", "two"], ["Y"])],
            {"P": _rand((1, 2, 5, 4)), "X": _rand((1, 3, 2, 4))},
            outs + [("present", TensorProto.FLOAT), ("Y", TensorProto.FLOAT)], 13,
            {"s": _i64([0]), "e": _i64([0]), "ax": _i64([2]), "two": np.array(2.0, np.float32)})
    yield _case("concat_weight_and_input", [helper.make_node("Concat", ["W", "A"], ["Y"], axis=1)],
                {"A": _rand((1, 3, 16))}, [("Y", TensorProto.FLOAT)], 13, {"W": _rand((1, 1, 16))})
    yield _case("concat_int64", [helper.make_node("Concat", ["A", "B"], ["Y"], axis=1)],
                {"A": _rand((3, 5), np.int64), "B": _rand((3, 2), np.int64)},
                [("Y", TensorProto.INT64)], 13)
    yield _case("concat_bool_unaligned", [helper.make_node("Concat", ["A", "B", "C"], ["Y"], axis=1)],
                {"A": _rand((3, 5), np.bool_), "B": _rand((3, 7), np.bool_),
                 "C": _rand((3, 1), np.bool_)}, [("Y", TensorProto.BOOL)], 13)
    many = {f"I{i}": _rand((2, i + 1, 3)) for i in range(9)}
    yield _case("concat_nine_inputs", [helper.make_node("Concat", list(many), ["Y"], axis=1)],
                many, [("Y", TensorProto.FLOAT)], 13)


def _split_cases():
    x = _rand((2, 12, 5))
    yield _case("split_equal_opset2", [helper.make_node("Split", ["X"], ["A", "B", "C"], axis=1)],
                {"X": x}, [("A", TensorProto.FLOAT), ("B", TensorProto.FLOAT), ("C", TensorProto.FLOAT)], 2)
    yield _case("split_attr_opset2", [helper.make_node("Split", ["X"], ["A", "B"], axis=1, split=[5, 7])],
                {"X": x}, [("A", TensorProto.FLOAT), ("B", TensorProto.FLOAT)], 2)
    yield _case("split_attr_negaxis_opset11",
                [helper.make_node("Split", ["X"], ["A", "B", "C"], axis=-1, split=[1, 3, 1])],
                {"X": x}, [("A", TensorProto.FLOAT), ("B", TensorProto.FLOAT), ("C", TensorProto.FLOAT)], 11)
    yield _case("split_default_axis0", [helper.make_node("Split", ["X"], ["A", "B"])],
                {"X": x}, [("A", TensorProto.FLOAT), ("B", TensorProto.FLOAT)], 11)
    for opset in (13, 18, 21):
        yield _case(f"split_input_opset{opset}",
                    [helper.make_node("Split", ["X", "S"], ["A", "B", "C"], axis=1)], {"X": x},
                    [("A", TensorProto.FLOAT), ("B", TensorProto.FLOAT), ("C", TensorProto.FLOAT)],
                    opset, {"S": _i64([2, 3, 7])})
    yield _case("split_equal_opset13", [helper.make_node("Split", ["X"], ["A", "B", "C", "D"], axis=1)],
                {"X": x}, [(n, TensorProto.FLOAT) for n in "ABCD"], 13)
    for opset in (18, 21):
        yield _case(f"split_num_outputs_uneven_opset{opset}",
                    [helper.make_node("Split", ["X"], ["A", "B", "C"], axis=-2, num_outputs=3)],
                    {"X": _rand((3, 7, 5))}, [(n, TensorProto.FLOAT) for n in "ABC"], opset)
    # GPT-2's QKV split.
    yield _case("split_qkv_gpt2", [helper.make_node("Split", ["X"], ["Q", "K", "V"], axis=2, num_outputs=3)],
                {"X": _rand((1, 16, 384))}, [(n, TensorProto.FLOAT) for n in "QKV"], 18)
    yield _case("split_int64", [helper.make_node("Split", ["X", "S"], ["A", "B"], axis=0)],
                {"X": _rand((13, 3), np.int64)}, [("A", TensorProto.INT64), ("B", TensorProto.INT64)],
                13, {"S": _i64([6, 7])})
    yield _case("split_bool", [helper.make_node("Split", ["X"], ["A", "B"], axis=1, split=[3, 4])],
                {"X": _rand((5, 7), np.bool_)}, [("A", TensorProto.BOOL), ("B", TensorProto.BOOL)], 11)
    yield _case("split_zero_piece", [helper.make_node("Split", ["X", "S"], ["A", "B", "C"], axis=1)],
                {"X": x}, [(n, TensorProto.FLOAT) for n in "ABC"], 13, {"S": _i64([5, 0, 7])})


def _slice_cases():
    x = _rand((7, 13, 5))
    yield _one("slice_attr_opset1", "Slice", x, 1, starts=[1, 2], ends=[5, 11], axes=[0, 1])
    yield _one("slice_attr_noaxes_opset1", "Slice", x, 1, starts=[0, 3, 1], ends=[7, 13, 4])
    yield _one("slice_attr_clamp_opset1", "Slice", x, 1, starts=[-100], ends=[1000], axes=[2])

    def s(name, starts, ends, axes=None, steps=None, opset=13, data=x):
        names, inits = ["starts", "ends"], {"starts": _i64(starts), "ends": _i64(ends)}
        if axes is not None:
            names.append("axes")
            inits["axes"] = _i64(axes)
        if steps is not None:
            if axes is None:
                names.append("")
            names.append("steps")
            inits["steps"] = _i64(steps)
        return _one(name, "Slice", data, opset, inits, names)

    yield s("slice_opset10", [1, 2], [5, 11], [0, 1], opset=10)
    yield s("slice_noaxes", [2, 1], [6, 12])
    yield s("slice_negative_starts", [-3, -10], [_INT_MAX, -1], [1, 0])
    yield s("slice_negative_axes", [1], [4], [-1])
    yield s("slice_step2", [0, 1], [7, 13], [0, 1], [2, 3])
    yield s("slice_reverse", [_INT_MAX], [_INT_MIN], [1], [-1])
    yield s("slice_reverse_step2", [-1, 5], [-100, 0], [0, 2], [-2, -2])
    yield s("slice_reverse_partial", [10], [2], [1], [-3])
    yield s("slice_empty", [5], [2], [0])
    yield s("slice_int_max_end", [3], [_INT_MAX], [1], opset=21)
    yield s("slice_steps_noaxes", [0, 0, 0], [7, 13, 5], None, [3, 4, 2], opset=11)
    yield s("slice_int64", [1, 0], [3, -1], [0, 1], data=_rand((5, 7), np.int64))
    yield s("slice_bool", [1], [6], [1], [2], data=_rand((3, 7), np.bool_))
    yield s("slice_last_token_gpt2", [-1], [_INT_MAX], [1], data=_rand((1, 16, 64)))
    yield s("slice_large", [1, 3], [511, -3], [0, 1], [1, 2], data=_rand((513, 257)))


def _gather_cases():
    w = _rand((1000, 128))
    ids = _RNG.integers(0, 1000, size=(2, 16)).astype(np.int64)
    yield _case("gather_embedding_int64", [helper.make_node("Gather", ["W", "I"], ["Y"])],
                {"I": ids}, [("Y", TensorProto.FLOAT)], 13, {"W": w})
    yield _case("gather_embedding_int32", [helper.make_node("Gather", ["W", "I"], ["Y"], axis=0)],
                {"I": ids.astype(np.int32)}, [("Y", TensorProto.FLOAT)], 13, {"W": w})
    yield _case("gather_negative_indices", [helper.make_node("Gather", ["W", "I"], ["Y"])],
                {"I": _i64([[-1, 0, -1000], [5, -7, 999]])}, [("Y", TensorProto.FLOAT)], 11, {"W": w})
    yield _case("gather_const_indices", [helper.make_node("Gather", ["X", "I"], ["Y"], axis=1)],
                {"X": _rand((3, 13, 7))}, [("Y", TensorProto.FLOAT)], 13, {"I": _i64([12, 0, 5, 5])})
    yield _case("gather_axis_last", [helper.make_node("Gather", ["X", "I"], ["Y"], axis=-1)],
                {"X": _rand((3, 5, 7)), "I": _RNG.integers(-7, 7, size=(2, 3)).astype(np.int64)},
                [("Y", TensorProto.FLOAT)], 13)
    yield _case("gather_scalar_index", [helper.make_node("Gather", ["X", "I"], ["Y"], axis=1)],
                {"X": _rand((2, 13, 3))}, [("Y", TensorProto.FLOAT)], 13, {"I": _i64(4)})
    yield _case("gather_opset1", [helper.make_node("Gather", ["X", "I"], ["Y"], axis=1)],
                {"X": _rand((4, 6)), "I": _i64([5, 1, 3])}, [("Y", TensorProto.FLOAT)], 1)
    yield _case("gather_int64_data", [helper.make_node("Gather", ["X", "I"], ["Y"], axis=0)],
                {"X": _rand((13, 3), np.int64), "I": _i64([12, 0, 7])}, [("Y", TensorProto.INT64)], 13)
    yield _case("gather_bool_data", [helper.make_node("Gather", ["X", "I"], ["Y"], axis=0)],
                {"X": _rand((26,), np.bool_)}, [("Y", TensorProto.BOOL)], 13,
                {"I": _RNG.integers(0, 26, size=(2, 1, 1, 13)).astype(np.int64)})
    yield _case("gather_rows_odd", [helper.make_node("Gather", ["X", "I"], ["Y"], axis=0)],
                {"X": _rand((127, 3)), "I": _RNG.integers(0, 127, size=(13,)).astype(np.int64)},
                [("Y", TensorProto.FLOAT)], 13)
    yield _case("gather_large_folded_indices", [
        helper.make_node("Shape", ["I"], ["S"]),
        helper.make_node("Gather", ["S", "i1"], ["L"], axis=0),
        helper.make_node("Range", ["zero", "L", "one"], ["P"]),
        helper.make_node("Gather", ["W", "P"], ["Y"], axis=0)],
        {"I": ids}, [("Y", TensorProto.FLOAT)], 17,
        {"W": _rand((128, 64)), "i1": _i64(1), "zero": _i64(0), "one": _i64(1)})


def _expand_cases():
    yield _one("expand_broadcast", "Expand", _rand((3, 1)), 13, {"S": _i64([2, 3, 4])}, ["S"])
    yield _one("expand_bidirectional", "Expand", _rand((3, 1, 5)), 8, {"S": _i64([1, 7, 1])}, ["S"])
    yield _one("expand_same", "Expand", _rand((2, 5)), 13, {"S": _i64([2, 5])}, ["S"])
    yield _one("expand_scalar", "Expand", np.array(2.5, np.float32), 13, {"S": _i64([3, 7])}, ["S"])
    yield _one("expand_int64", "Expand", _rand((1, 4), np.int64), 13, {"S": _i64([13, 4])}, ["S"])
    yield _one("expand_bool_mask", "Expand", _rand((2, 1, 1, 13), np.bool_), 17,
               {"S": _i64([2, 1, 13, 13])}, ["S"])
    yield _one("expand_large", "Expand", _rand((1, 257)), 13, {"S": _i64([300, 257])}, ["S"])


def _where_cases():
    def w(name, c, x, y, opset=16):
        return _case(name, [helper.make_node("Where", ["C", "X", "Yv"], ["Y"])],
                     {"C": c, "X": x, "Yv": y}, [("Y", ELEM_TYPE[x.dtype])], opset)

    yield w("where_same_shape", _rand((3, 7), np.bool_), _rand((3, 7)), _rand((3, 7)), 9)
    yield w("where_broadcast", _rand((2, 1, 5), np.bool_), _rand((3, 1)), _rand((1, 3, 5)))
    yield w("where_int64", _rand((13,), np.bool_), _rand((13,), np.int64), _rand((1,), np.int64))
    yield w("where_uint8", _rand((3, 5), np.bool_), _rand((3, 5), np.uint8), _rand((5,), np.uint8))
    yield w("where_int32", _rand((4, 1), np.bool_), _rand((1, 7), np.int32), _rand((4, 7), np.int32))
    # BERT's mask: Where(mask, 0, -inf-ish) with scalar constants.
    yield _case("where_scalar_consts", [helper.make_node("Where", ["C", "zero", "neg"], ["Y"])],
                {"C": _rand((2, 1, 13, 13), np.bool_)}, [("Y", TensorProto.FLOAT)], 17,
                {"zero": np.array(0.0, np.float32), "neg": np.array(-3.4e38, np.float32)})
    yield w("where_high_rank", _rand((2, 1, 3, 1, 2, 1, 2), np.bool_), _rand((1, 2, 1, 3, 1, 2, 1)),
            _rand((2, 1, 1, 1, 1, 1, 2)))


def _equal_cases():
    def eq(name, a, b, opset=13):
        return _case(name, [helper.make_node("Equal", ["A", "B"], ["Y"])], {"A": a, "B": b},
                     [("Y", TensorProto.BOOL)], opset)

    a = _RNG.integers(-3, 3, size=(3, 7, 5)).astype(np.float32)
    b = _RNG.integers(-3, 3, size=(3, 7, 5)).astype(np.float32)
    b[0, 0, :2] = [0.0, -0.0]
    a[0, 0, :2] = [-0.0, 0.0]
    yield eq("equal_float", a, b, 11)
    yield eq("equal_float_broadcast", a, b[:1, :, :1].copy())
    ai = _RNG.integers(-2, 2, size=(13, 1)).astype(np.int64)
    yield eq("equal_int64_broadcast", ai, _RNG.integers(-2, 2, size=(1, 7)).astype(np.int64), 7)
    yield eq("equal_int32", _RNG.integers(0, 3, size=(127,)).astype(np.int32),
             _RNG.integers(0, 3, size=(127,)).astype(np.int32))
    yield eq("equal_bool", _rand((3, 5), np.bool_), _rand((5,), np.bool_), 21)


def _cast_cases():
    def c(name, x, to, opset=13):
        return _one(name, "Cast", x, opset, out_type=to, to=to)

    f = _RNG.uniform(-1000.0, 1000.0, size=(7, 13)).astype(np.float32)
    yield c("cast_float_to_int64", f, TensorProto.INT64)
    yield c("cast_float_to_int32", f, TensorProto.INT32, 6)
    yield c("cast_float_to_bool", np.array([0.0, 1.5, -0.0, -2.0, 0.25, 0.0, 3.0], np.float32),
            TensorProto.BOOL)
    yield c("cast_float_to_fp16", _rand((5, 3)), TensorProto.FLOAT16, 9)
    yield c("cast_float_to_uint8", _RNG.uniform(0.0, 255.0, size=(13,)).astype(np.float32),
            TensorProto.UINT8)
    yield c("cast_int64_to_float", _rand((3, 7), np.int64), TensorProto.FLOAT, 19)
    yield c("cast_int64_small_to_float", _RNG.integers(-5000, 5000, size=(13,)).astype(np.int64),
            TensorProto.FLOAT)
    yield c("cast_int64_to_int32", _RNG.integers(-(1 << 31), 1 << 31, size=(13,)).astype(np.int64),
            TensorProto.INT32)
    yield c("cast_int64_to_bool", _RNG.integers(-2, 3, size=(2, 13)).astype(np.int64),
            TensorProto.BOOL, 21)
    yield c("cast_int32_to_int64", _rand((13,), np.int32), TensorProto.INT64)
    yield c("cast_int32_to_float", _rand((3, 5), np.int32), TensorProto.FLOAT)
    yield c("cast_bool_to_float", _rand((3, 7), np.bool_), TensorProto.FLOAT)
    yield c("cast_bool_to_int64", _rand((13,), np.bool_), TensorProto.INT64)
    yield c("cast_bool_to_bool", _rand((2, 13), np.bool_), TensorProto.BOOL)
    yield c("cast_fp16_to_float", _rand((4, 7), np.float16), TensorProto.FLOAT)
    yield c("cast_uint8_to_float", _rand((13,), np.uint8), TensorProto.FLOAT)
    yield c("cast_int8_to_int64", _rand((13,), np.int8), TensorProto.INT64)
    yield c("cast_float_same", _rand((5,)), TensorProto.FLOAT)


def _model_path_cases():
    # BERT's attention-mask path: int64 mask -> bool -> gather -> expand -> where.
    mask = _RNG.integers(0, 2, size=(2, 13)).astype(np.int64)
    idx = (np.arange(13)[None, :] + 13 * np.arange(2)[:, None]).reshape(2, 1, 1, 13)
    yield _case("model_bert_mask", [
        helper.make_node("Cast", ["M"], ["Mb"], to=TensorProto.BOOL),
        helper.make_node("Flatten", ["Mb"], ["F"], axis=2),
        helper.make_node("Reshape", ["F", "flat"], ["Ff"]),
        helper.make_node("Gather", ["Ff", "I"], ["G"], axis=0),
        helper.make_node("Cast", ["G"], ["Gb"], to=TensorProto.BOOL),
        helper.make_node("Expand", ["Gb", "S"], ["E"]),
        helper.make_node("Where", ["E", "zero", "neg"], ["Y"])],
        {"M": mask}, [("Y", TensorProto.FLOAT)], 17,
        {"flat": _i64([-1]), "I": idx.astype(np.int64), "S": _i64([2, 1, 13, 13]),
         "zero": np.array(0.0, np.float32), "neg": np.array(-1e4, np.float32)})
    # GPT-2's token + position embedding lookups.
    ids = _RNG.integers(0, 500, size=(1, 16)).astype(np.int64)
    yield _case("model_gpt2_embeddings", [
        helper.make_node("Reshape", ["ids", "s"], ["v"], allowzero=1),
        helper.make_node("Gather", ["wte", "v"], ["e"], axis=0),
        helper.make_node("Gather", ["wpe", "pos"], ["p"], axis=0),
        helper.make_node("Concat", ["e", "p"], ["Y"], axis=-1)],
        {"ids": ids}, [("Y", TensorProto.FLOAT)], 18,
        {"s": _i64([-1, 16]), "wte": _rand((500, 32)), "wpe": _rand((64, 32)),
         "pos": np.arange(16, dtype=np.int64).reshape(1, 16)})


def _half_transpose_cases():
    """2-byte tiles (transpose_half.comp): whole destination words only; an
    odd last dim falls back to the per-element copy. After the other cases,
    so that their inputs stay as they were."""
    yield _one("transpose_tiled_fp16_2d", "Transpose", _rand((100, 38), np.float16), 13, perm=[1, 0])
    yield _one("transpose_tiled_fp16_ragged", "Transpose", _rand((3, 50, 90), np.float16), 13, perm=[0, 2, 1])
    yield _one("transpose_tiled_fp16_patches", "Transpose", _rand((2, 64, 196), np.float16), 13, perm=[0, 2, 1])
    yield _one("transpose_tiled_fp16_keys", "Transpose", _rand((2, 40, 4, 16), np.float16), 13, perm=[0, 2, 3, 1])
    yield _one("transpose_tiled_fp16_batch2", "Transpose", _rand((3, 40, 5, 34), np.float16), 13,
               perm=[2, 0, 3, 1])
    yield _one("transpose_tiled_fp16_odd", "Transpose", _rand((3, 127, 65), np.float16), 13, perm=[0, 2, 1])
    yield _one("transpose_tiled_int16", "Transpose", _rand((34, 48), np.int16), 13, perm=[1, 0])


def cases():
    yield from _transpose_cases()
    yield from _concat_cases()
    yield from _split_cases()
    yield from _slice_cases()
    yield from _gather_cases()
    yield from _expand_cases()
    yield from _where_cases()
    yield from _equal_cases()
    yield from _cast_cases()
    yield from _model_path_cases()
    yield from _half_transpose_cases()
