# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Sync points (runtime/sync_split.h) where a value computed from shapes
# before the cut (Shape, Gather, Mul, Unsqueeze: a Reshape's shape, as
# torchvision's RPN computes it) is read on the host after it: by a Reshape
# in the suffix, by the part before a second sync point, and inside an If
# branch on the count that holds a NonZero (Faster R-CNN's batched NMS under
# "if boxes.numel() == 0"); against onnxruntime.
import numpy as np
from onnx import TensorProto, helper, numpy_helper
from onnx_case import make_branch, make_model

_RNG = np.random.default_rng(20261207)
_OPSET = 13


def _model(nodes, inputs, outputs, inits=None):
    return make_model(nodes, inputs, outputs, _OPSET, inits)


_branch = make_branch


_INITS = {"i0": np.array(0, np.int64), "i1": np.array(1, np.int64), "ax0": np.array([0], np.int64),
          "half": np.array(0.5, np.float32), "zero": np.array(0, np.int64)}


def _flat_nodes():
    # A = Relu(X - 0.5); flat = [rows * cols] from Shape(A); F = Reshape(A, flat).
    return [helper.make_node("Sub", ["X", "half"], ["d"]),
            helper.make_node("Relu", ["d"], ["A"]),
            helper.make_node("Shape", ["A"], ["s"]),
            helper.make_node("Gather", ["s", "i0"], ["rows"]),
            helper.make_node("Gather", ["s", "i1"], ["cols"]),
            helper.make_node("Mul", ["rows", "cols"], ["numel"]),
            helper.make_node("Unsqueeze", ["numel", "ax0"], ["flat"]),
            helper.make_node("Reshape", ["A", "flat"], ["F"]),
            helper.make_node("NonZero", ["F"], ["nz"])]


def _x(zeros=False):
    x = _RNG.uniform(0, 1, size=(3, 5)).astype(np.float32)
    return np.zeros((3, 5), np.float32) if zeros else x


def cases():
    x = {"X": np.zeros((3, 5), np.float32)}
    # The suffix reshapes by the shape computed before the cut.
    nodes = _flat_nodes() + [helper.make_node("Neg", ["A"], ["n"]),
                             helper.make_node("Reshape", ["n", "flat"], ["Y"])]
    model = _model(nodes, x, [("nz", TensorProto.INT64), ("Y", TensorProto.FLOAT)], _INITS)
    yield {"name": "sync_shape_suffix_reshape", "model": model, "inputs": {"X": _x()}}
    # A second sync point after a Reshape by that shape.
    nodes = _flat_nodes() + [helper.make_node("Sub", ["A", "half"], ["b"]),
                             helper.make_node("Relu", ["b"], ["c"]),
                             helper.make_node("Reshape", ["c", "flat"], ["G"]),
                             helper.make_node("NonZero", ["G"], ["nz2"])]
    model = _model(nodes, x, [("nz", TensorProto.INT64), ("nz2", TensorProto.INT64)], _INITS)
    yield {"name": "sync_shape_second_sync", "model": model, "inputs": {"X": _x()}}
    # An If on the count whose branch reshapes by it and holds a NonZero.
    then_b = _branch("empty", [helper.make_node("Constant", [], ["t_out"], value=numpy_helper.from_array(
        np.zeros((1, 1), np.int64), "t_out"))], [("t_out", TensorProto.INT64)])
    else_b = _branch("some", [helper.make_node("Neg", ["A"], ["e_neg"]),
                              helper.make_node("Reshape", ["e_neg", "flat"], ["e_flat"]),
                              helper.make_node("NonZero", ["e_flat"], ["e_out"])], [("e_out", TensorProto.INT64)])
    nodes = _flat_nodes() + [helper.make_node("Size", ["nz"], ["nz_numel"]),
                             helper.make_node("Equal", ["nz_numel", "zero"], ["empty"]),
                             helper.make_node("If", ["empty"], ["Y"], then_branch=then_b, else_branch=else_b)]
    model = _model(nodes, x, [("Y", TensorProto.INT64)], _INITS)
    yield {"name": "sync_shape_if_some", "model": model, "inputs": {"X": _x()}}
    yield {"name": "sync_shape_if_none", "model": model, "inputs": {"X": _x(zeros=True)}}
