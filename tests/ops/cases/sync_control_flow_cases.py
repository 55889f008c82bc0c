# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Sync points (runtime/sync_split.h) in graphs with control flow, in the
# patterns torchvision's detection exports hold: an If on a count read back
# at a sync point (NonZero, NonMaxSuppression: the empty and the non-empty
# branch both taken), a Loop whose trip count is such a count, TopK with k
# from a data-dependent shape, NonZero and NonMaxSuppression inside an If
# branch and inside a Loop body (a per-class NMS), and a small detection
# graph (backbone stub, box decode, per-class NMS through a Loop, TopK,
# Gather); against onnxruntime.
import numpy as np
from onnx import TensorProto, helper, numpy_helper
from onnx_case import make_branch, make_model

_RNG = np.random.default_rng(20261206)
_OPSET = 13


def _model(nodes, inputs, outputs, inits=None):
    return make_model(nodes, inputs, outputs, _OPSET, inits)


_branch = make_branch


def _const(name, value):
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.asarray(value), name))


def _case(name, model, inputs):
    return {"name": name, "model": model, "inputs": inputs}


def _boxes(n, size=10.0):
    c = _RNG.uniform(0, size, size=(1, n, 2)).astype(np.float32)
    s = _RNG.uniform(0.5, 4, size=(1, n, 2)).astype(np.float32)
    return np.concatenate([c, c + s], axis=2)  # [y1, x1, y2, x2]


def _nonzero_if_cases():
    # torchvision's "if boxes.numel() == 0": the count sets the condition.
    then_b = _branch("empty", [_const("t_out", np.array([-1.0], np.float32))], [("t_out", TensorProto.FLOAT)])
    else_b = _branch("some", [
        helper.make_node("Squeeze", ["nz", "zero_axes"], ["idx"]),
        helper.make_node("Gather", ["X", "idx"], ["picked"]),
        helper.make_node("ReduceSum", ["picked"], ["e_out"], keepdims=1),
    ], [("e_out", TensorProto.FLOAT)])
    nodes = [helper.make_node("NonZero", ["X"], ["nz"]),
             helper.make_node("Size", ["nz"], ["numel"]),
             helper.make_node("Equal", ["numel", "zero"], ["empty"]),
             helper.make_node("If", ["empty"], ["Y"], then_branch=then_b, else_branch=else_b)]
    model = _model(nodes, {"X": np.zeros(9, np.float32)}, [("Y", TensorProto.FLOAT)],
                   {"zero": np.array(0, np.int64), "zero_axes": np.array([0], np.int64)})
    x = _RNG.standard_normal(9).astype(np.float32)
    x[_RNG.random(9) < 0.5] = 0
    yield _case("sync_cf_nonzero_if_some", model, {"X": x})
    yield _case("sync_cf_nonzero_if_none", model, {"X": np.zeros(9, np.float32)})


def _nms_if_cases():
    # NMS, then an If on whether it kept anything; the kept boxes gathered.
    then_b = _branch("none", [_const("t_out", np.zeros((1, 4), np.float32))], [("t_out", TensorProto.FLOAT)])
    else_b = _branch("kept", [
        helper.make_node("Gather", ["sel", "two"], ["idx"], axis=1),
        helper.make_node("Gather", ["boxes", "idx"], ["picked"], axis=1),
        helper.make_node("Squeeze", ["picked", "zero_axes"], ["e_out"]),
    ], [("e_out", TensorProto.FLOAT)])
    nodes = [helper.make_node("NonMaxSuppression", ["boxes", "scores", "max_out", "iou", "thr"], ["sel"]),
             helper.make_node("Shape", ["sel"], ["sel_shape"]),
             helper.make_node("Gather", ["sel_shape", "zero"], ["kept"]),
             helper.make_node("Equal", ["kept", "zero"], ["none"]),
             helper.make_node("If", ["none"], ["Y"], then_branch=then_b, else_branch=else_b)]
    bx = _boxes(14)
    inits = {"max_out": np.array([5], np.int64), "iou": np.array([0.4], np.float32),
             "thr": np.array([0.5], np.float32), "zero": np.array(0, np.int64),
             "two": np.array(2, np.int64), "zero_axes": np.array([0], np.int64)}
    sc = _RNG.random((1, 1, 14)).astype(np.float32)
    model = _model(nodes, {"boxes": bx, "scores": sc}, [("Y", TensorProto.FLOAT)], inits)
    yield _case("sync_cf_nms_if_kept", model, {"boxes": bx, "scores": sc})
    yield _case("sync_cf_nms_if_none", model, {"boxes": bx, "scores": sc * 0.4})


def _loop_count_cases():
    # A Loop over NonZero's count: the body gathers each hit and sums them,
    # scanning each hit's square.
    body = helper.make_graph([
        helper.make_node("Gather", ["nz_flat", "i"], ["pos"]),
        helper.make_node("Gather", ["X", "pos"], ["v"]),
        helper.make_node("Add", ["acc_in", "v"], ["acc_out"]),
        helper.make_node("Mul", ["v", "v"], ["sq"]),
        helper.make_node("Identity", ["cond_in"], ["cond_out"]),
    ], "body", [helper.make_tensor_value_info("i", TensorProto.INT64, []),
                helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
                helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, [])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, []),
         helper.make_tensor_value_info("sq", TensorProto.FLOAT, [])])
    nodes = [helper.make_node("NonZero", ["X"], ["nz"]),
             helper.make_node("Reshape", ["nz", "minus_one"], ["nz_flat"]),
             helper.make_node("Shape", ["nz"], ["nz_shape"]),
             helper.make_node("Gather", ["nz_shape", "one"], ["m"]),
             helper.make_node("Loop", ["m", "true", "acc0"], ["S", "SQ"], body=body)]
    inits = {"minus_one": np.array([-1], np.int64), "one": np.array(1, np.int64),
             "true": np.array(True), "acc0": np.array(0, np.float32)}
    for n in (11, 1):
        x = np.zeros(11, np.float32)
        x[_RNG.permutation(11)[:max(1, n // 2)]] = _RNG.standard_normal(max(1, n // 2))
        model = _model(nodes, {"X": x}, [("S", TensorProto.FLOAT), ("SQ", TensorProto.FLOAT)], inits)
        yield _case(f"sync_cf_loop_nonzero_count_{n}", model, {"X": x})


def _topk_if_cases():
    # TopK with k = min(3, count) in an If's branch, as torchvision's _topk_min.
    else_b = _branch("top", [
        helper.make_node("Concat", ["three", "cnt"], ["ks"], axis=0),
        helper.make_node("ReduceMin", ["ks"], ["k"], keepdims=1),
        helper.make_node("TopK", ["vals", "k"], ["e_out", "e_idx"]),
    ], [("e_out", TensorProto.FLOAT)], {"three": np.array([3], np.int64)})
    then_b = _branch("none", [_const("t_out", np.array([0.0], np.float32))], [("t_out", TensorProto.FLOAT)])
    nodes = [helper.make_node("Greater", ["X", "half"], ["mask"]),
             helper.make_node("Compress", ["X", "mask"], ["vals"], axis=0),
             helper.make_node("Shape", ["vals"], ["cnt"]),
             helper.make_node("Equal", ["cnt", "zero"], ["none1"]),
             helper.make_node("Squeeze", ["none1", "zero"], ["none"]),
             helper.make_node("If", ["none"], ["Y"], then_branch=then_b, else_branch=else_b)]
    inits = {"half": np.array(0.5, np.float32), "zero": np.array([0], np.int64)}
    for tag, x in (("many", _RNG.random(12).astype(np.float32)),
                   ("two", np.array([0.1, 0.9, 0.2, 0.7, 0.0], np.float32)),
                   ("none", np.full(6, 0.25, np.float32))):
        model = _model(nodes, {"X": x}, [("Y", TensorProto.FLOAT)], inits)
        yield _case(f"sync_cf_topk_if_{tag}", model, {"X": x})


def _sync_in_branch_cases():
    # NonZero inside the else branch of an If whose condition is a count
    # read back at an earlier sync point.
    else_b = _branch("inner", [
        helper.make_node("NonZero", ["Z"], ["nz2"]),
        helper.make_node("Transpose", ["nz2"], ["nz2t"], perm=[1, 0]),
        helper.make_node("GatherND", ["Z", "nz2t"], ["hits"]),
        helper.make_node("ReduceSum", ["hits"], ["e_out"], keepdims=1),
    ], [("e_out", TensorProto.FLOAT)])
    then_b = _branch("none", [_const("t_out", np.array([-5.0], np.float32))], [("t_out", TensorProto.FLOAT)])
    nodes = [helper.make_node("NonZero", ["X"], ["nz"]),
             helper.make_node("Size", ["nz"], ["numel"]),
             helper.make_node("Equal", ["numel", "zero"], ["empty"]),
             helper.make_node("If", ["empty"], ["Y"], then_branch=then_b, else_branch=else_b)]
    inits = {"zero": np.array(0, np.int64)}
    z = np.zeros((3, 4), np.float32)
    z[_RNG.random((3, 4)) < 0.5] = 2.5
    z[0, 1] = -1.0
    x = np.array([0, 1, 0], np.float32)
    model = _model(nodes, {"X": x, "Z": z}, [("Y", TensorProto.FLOAT)], inits)
    yield _case("sync_cf_nonzero_in_branch_taken", model, {"X": x, "Z": z})
    yield _case("sync_cf_nonzero_in_branch_skipped", model, {"X": np.zeros(3, np.float32), "Z": z})


def _nms_body(score_name, cls_expr_nodes):
    """A Loop body: per class, NMS over that class's scores; carries the sum of
    kept scores and scans the number kept."""
    return helper.make_graph(cls_expr_nodes + [
        helper.make_node("Gather", [score_name, "c"], ["sc_c"], axis=1),
        helper.make_node("Unsqueeze", ["sc_c", "one_axes"], ["sc_c3"]),
        helper.make_node("NonMaxSuppression", ["boxes", "sc_c3", "max_out", "iou", "thr"], ["sel"]),
        helper.make_node("Gather", ["sel", "two"], ["idx"], axis=1),
        helper.make_node("Gather", ["sc_c", "idx"], ["kept"], axis=1),
        helper.make_node("ReduceSum", ["kept", "none_axes"], ["ksum"], keepdims=0),
        helper.make_node("Add", ["acc_in", "ksum"], ["acc_out"]),
        helper.make_node("Shape", ["sel"], ["sel_shape"]),
        helper.make_node("Gather", ["sel_shape", "zero"], ["nkept"]),
        helper.make_node("Identity", ["cond_in"], ["cond_out"]),
    ], "per_class",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, [])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, []),
         helper.make_tensor_value_info("nkept", TensorProto.INT64, [])],
        initializer=[numpy_helper.from_array(np.array([1], np.int64), "one_axes"),
                     numpy_helper.from_array(np.array([0, 1], np.int64), "none_axes")])


def _loop_nms_cases():
    inits = {"max_out": np.array([4], np.int64), "iou": np.array([0.4], np.float32),
             "thr": np.array([0.3], np.float32), "zero": np.array(0, np.int64),
             "two": np.array(2, np.int64), "true": np.array(True), "acc0": np.array(0, np.float32),
             "classes": np.array(3, np.int64), "minus_one": np.array([-1], np.int64),
             "one": np.array(1, np.int64), "best_axes": np.array([2], np.int64)}
    bx = _boxes(10)
    sc = _RNG.random((1, 3, 10)).astype(np.float32)
    # Over every class: a trip count known at load, NMS in each iteration.
    body = _nms_body("scores", [helper.make_node("Identity", ["i"], ["c"])])
    nodes = [helper.make_node("Loop", ["classes", "true", "acc0"], ["S", "K"], body=body)]
    model = _model(nodes, {"boxes": bx, "scores": sc}, [("S", TensorProto.FLOAT), ("K", TensorProto.INT64)],
                   inits)
    yield _case("sync_cf_loop_nms_per_class", model, {"boxes": bx, "scores": sc})
    # Over the classes some score passes: the trip count is NonZero's count.
    body = _nms_body("scores", [helper.make_node("Gather", ["cls", "i"], ["c"])])
    nodes = [helper.make_node("ReduceMax", ["scores", "best_axes"], ["best"], keepdims=0),
             helper.make_node("Greater", ["best", "thr"], ["live"]),
             helper.make_node("NonZero", ["live"], ["live_nz"]),
             helper.make_node("Gather", ["live_nz", "one"], ["cls"], axis=0),
             helper.make_node("Shape", ["cls"], ["cls_shape"]),
             helper.make_node("Gather", ["cls_shape", "zero"], ["m"]),
             helper.make_node("Loop", ["m", "true", "acc0"], ["S", "K"], body=body)]
    # ReduceMax with axes as an input is opset 18; give it as an attribute.
    nodes[0] = helper.make_node("ReduceMax", ["scores"], ["best"], axes=[2], keepdims=0)
    sc2 = sc.copy()
    sc2[0, 1] *= 0.25  # class 1 has no score above the threshold
    model = _model(nodes, {"boxes": bx, "scores": sc2}, [("S", TensorProto.FLOAT), ("K", TensorProto.INT64)],
                   inits)
    yield _case("sync_cf_loop_nms_live_classes", model, {"boxes": bx, "scores": sc2})


def _detection_cases():
    # A detection head in the shape torchvision exports it: a backbone stub,
    # box decode against anchors, per-class score threshold (NonZero), TopK of
    # min(5, count), torchvision's batched_nms "If numel == 0" around
    # NonMaxSuppression, all in a Loop over the foreground classes; and the
    # best boxes over every class by TopK and Gather.
    f = TensorProto.FLOAT
    i64 = TensorProto.INT64
    classes = 3
    then_b = _branch("no_boxes", [_const("t_n", np.array(0, np.int64)), _const("t_s", np.array(0, np.float32))],
                     [("t_n", i64), ("t_s", f)])
    else_b = _branch("nms", [
        helper.make_node("Unsqueeze", ["cand", "zero_axes"], ["cand3"]),
        helper.make_node("Unsqueeze", ["topv", "zero_one_axes"], ["topv3"]),
        helper.make_node("NonMaxSuppression", ["cand3", "topv3", "max_out", "iou"], ["sel"]),
        helper.make_node("Gather", ["sel", "two"], ["sel_i"], axis=1),
        helper.make_node("Gather", ["topv", "sel_i"], ["kept"]),
        helper.make_node("ReduceSum", ["kept", "zero_axes"], ["e_s"], keepdims=0),
        helper.make_node("Shape", ["sel"], ["sel_shape"]),
        helper.make_node("Gather", ["sel_shape", "zero"], ["e_n"]),
    ], [("e_n", i64), ("e_s", f)])
    body = helper.make_graph([
        helper.make_node("Add", ["i", "one"], ["c"]),
        helper.make_node("Gather", ["scores", "c"], ["sc"], axis=1),
        helper.make_node("Reshape", ["sc", "minus_one"], ["flat"]),
        helper.make_node("Greater", ["flat", "thr"], ["pass"]),
        helper.make_node("NonZero", ["pass"], ["nz"]),
        helper.make_node("Squeeze", ["nz", "zero_axes"], ["idx"]),
        helper.make_node("Gather", ["flat", "idx"], ["s_keep"]),
        helper.make_node("Shape", ["s_keep"], ["n_keep"]),
        helper.make_node("Concat", ["five", "n_keep"], ["ks"], axis=0),
        helper.make_node("ReduceMin", ["ks"], ["k"], keepdims=1),
        helper.make_node("TopK", ["s_keep", "k"], ["topv", "topi"]),
        helper.make_node("Gather", ["idx", "topi"], ["bidx"]),
        helper.make_node("Gather", ["boxes2", "bidx"], ["cand"]),
        helper.make_node("Size", ["cand"], ["numel"]),
        helper.make_node("Equal", ["numel", "zero"], ["empty"]),
        helper.make_node("If", ["empty"], ["n_out", "s_out"], then_branch=then_b, else_branch=else_b),
        helper.make_node("Add", ["acc_in", "s_out"], ["acc_out"]),
        helper.make_node("Identity", ["cond_in"], ["cond_out"]),
    ], "per_class",
        [helper.make_tensor_value_info("i", i64, []), helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_in", f, [])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []), helper.make_tensor_value_info("acc_out", f, []),
         helper.make_tensor_value_info("n_out", i64, [])])
    n = 64
    ay, ax = np.meshgrid(np.arange(8, dtype=np.float32), np.arange(8, dtype=np.float32), indexing="ij")
    anchors = np.stack([ay.ravel(), ax.ravel()], axis=1)[None] * 1.5  # [1, 64, 2] centers
    nodes = [
        helper.make_node("Conv", ["image", "w1", "b1"], ["f1"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["f1"], ["f1r"]),
        helper.make_node("Conv", ["f1r", "w2", "b2"], ["head"]),
        helper.make_node("Reshape", ["head", "head_shape"], ["head3"]),
        helper.make_node("Transpose", ["head3"], ["per_anchor"], perm=[0, 2, 1]),
        helper.make_node("Split", ["per_anchor", "split_sizes"], ["d_ctr", "d_wh", "logits"], axis=2),
        helper.make_node("Add", ["anchors", "d_ctr"], ["ctr"]),
        helper.make_node("Exp", ["d_wh"], ["wh"]),
        helper.make_node("Mul", ["wh", "half"], ["hwh"]),
        helper.make_node("Sub", ["ctr", "hwh"], ["lo"]),
        helper.make_node("Add", ["ctr", "hwh"], ["hi"]),
        helper.make_node("Concat", ["lo", "hi"], ["boxes"], axis=2),
        helper.make_node("Squeeze", ["boxes", "zero_axes"], ["boxes2"]),
        helper.make_node("Softmax", ["logits"], ["probs"], axis=2),
        helper.make_node("Transpose", ["probs"], ["scores"], perm=[0, 2, 1]),
        helper.make_node("Shape", ["scores"], ["s_shape"]),
        helper.make_node("Gather", ["s_shape", "one"], ["n_cls"]),
        helper.make_node("Sub", ["n_cls", "one"], ["trips"]),
        helper.make_node("Loop", ["trips", "", "acc0"], ["S", "K"], body=body),
        helper.make_node("Slice", ["scores", "one_1", "big_1", "one_1"], ["fg"]),
        helper.make_node("ReduceMax", ["fg"], ["best"], axes=[1], keepdims=0),
        helper.make_node("TopK", ["best", "five"], ["top_s", "top_i"]),
        helper.make_node("Squeeze", ["top_i", "zero_axes"], ["top_i1"]),
        helper.make_node("Gather", ["boxes2", "top_i1"], ["top_boxes"]),
    ]
    inits = {
        "w1": (_RNG.standard_normal((4, 3, 3, 3)) * 0.3).astype(np.float32),
        "b1": np.zeros(4, np.float32),
        "w2": (_RNG.standard_normal((4 + classes, 4, 1, 1)) * 0.5).astype(np.float32),
        "b2": np.array([0, 0, 0, 0, 0.5, 0, 0], np.float32),
        "head_shape": np.array([1, 4 + classes, n], np.int64),
        "split_sizes": np.array([2, 2, classes], np.int64),
        "anchors": anchors.astype(np.float32), "half": np.array(0.5, np.float32),
        "zero_axes": np.array([0], np.int64), "zero_one_axes": np.array([0, 1], np.int64),
        "zero": np.array(0, np.int64), "one": np.array(1, np.int64), "two": np.array(2, np.int64),
        "minus_one": np.array([-1], np.int64), "five": np.array([5], np.int64),
        "one_1": np.array([1], np.int64), "big_1": np.array([100], np.int64),
        "thr": np.array(0.34, np.float32), "max_out": np.array([3], np.int64),
        "iou": np.array([0.3], np.float32), "acc0": np.array(0, np.float32),
    }
    for tag, scale in (("busy", 1.0), ("quiet", 0.0)):
        image = (_RNG.standard_normal((1, 3, 8, 8)) * scale).astype(np.float32)
        model = _model(nodes, {"image": image},
                       [("S", f), ("K", i64), ("top_s", f), ("top_boxes", f)], inits)
        yield _case(f"sync_cf_detection_{tag}", model, {"image": image})


def cases():
    yield from _nonzero_if_cases()
    yield from _nms_if_cases()
    yield from _loop_count_cases()
    yield from _topk_if_cases()
    yield from _sync_in_branch_cases()
    yield from _loop_nms_cases()
    yield from _detection_cases()
