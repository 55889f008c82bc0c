# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Helpers the *_cases.py modules share (gen_cases.py puts this folder on
# sys.path): the ONNX element type of each numpy dtype the cases use, and a
# one-graph model of given nodes, typed inputs, outputs and initializers.
import numpy as np
from onnx import TensorProto, helper, numpy_helper

ELEM_TYPE = {
    np.dtype(np.float32): TensorProto.FLOAT,
    np.dtype(np.float16): TensorProto.FLOAT16,
    np.dtype(np.float64): TensorProto.DOUBLE,
    np.dtype(np.int64): TensorProto.INT64,
    np.dtype(np.int32): TensorProto.INT32,
    np.dtype(np.int16): TensorProto.INT16,
    np.dtype(np.int8): TensorProto.INT8,
    np.dtype(np.uint8): TensorProto.UINT8,
    np.dtype(np.uint16): TensorProto.UINT16,
    np.dtype(np.uint32): TensorProto.UINT32,
    np.dtype(np.uint64): TensorProto.UINT64,
    np.dtype(np.bool_): TensorProto.BOOL,
}


def make_model(nodes, inputs, outputs, opset, inits=None):
    """A model of `nodes` (default domain at `opset`, IR version 8): `inputs`
    maps each graph input's name to its array (type and shape from it),
    `outputs` lists (name, element type) with the shapes left to inference,
    `inits` maps initializer names to values."""
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info(n, ELEM_TYPE[a.dtype], list(a.shape)) for n, a in inputs.items()],
        [helper.make_tensor_value_info(n, t, None) for n, t in outputs],
        initializer=[numpy_helper.from_array(np.asarray(v), n) for n, v in (inits or {}).items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def make_branch(name, nodes, outputs, inits=None):
    """A subgraph without inputs (an If's branch) of `nodes`, with (name,
    element type) outputs and `inits` as its initializers."""
    return helper.make_graph(
        nodes, name, [], [helper.make_tensor_value_info(n, t, None) for n, t in outputs],
        initializer=[numpy_helper.from_array(np.asarray(v), n) for n, v in (inits or {}).items()])
