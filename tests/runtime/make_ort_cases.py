#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
"""Writes the small ONNX models of tests/runtime/ort_loader_test.cc.

Usage: make_ort_cases.py OUTDIR

The test converts each OUTDIR/<name>.onnx to ONNX Runtime's format with
onnxruntime-node (tests/reference/ort_run.js --convert-ort) and loads both.
The models cover what the ORT format stores: initializers of several element
types, attributes of every kind the writer emits (ints, floats, strings,
tensors, a subgraph), symbolic and fixed dimensions with denotations, and a
chain whose value names all have the same length (v00, v01, ...) so that the
corruption test can rewire an input to a later output in place and make a
cycle.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)


def save(m, name):
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(OUT, name + '.onnx'))


def dim_with_denotation(value_info, axis, denotation):
    value_info.type.tensor_type.shape.dim[axis].denotation = denotation
    return value_info


def chain():
    """x -> Relu -> Mul(w) -> Add(b) -> Sigmoid -> ... twelve nodes, names v00..v12."""
    rng = np.random.default_rng(7)
    nodes, inits = [], []
    prev = 'v00'
    for i in range(1, 13):
        out = 'v%02d' % i
        if i % 3 == 1:
            nodes.append(helper.make_node('Relu', [prev], [out], name='n%02d' % i))
        elif i % 3 == 2:
            w = 'w%02d' % i
            inits.append(numpy_helper.from_array(rng.standard_normal((1, 8)).astype(np.float32), w))
            nodes.append(helper.make_node('Mul', [prev, w], [out], name='n%02d' % i))
        else:
            nodes.append(helper.make_node('Sigmoid', [prev], [out], name='n%02d' % i))
        prev = out
    x = dim_with_denotation(helper.make_tensor_value_info('v00', TensorProto.FLOAT, ['batch', 8]), 0, 'DATA_BATCH')
    y = helper.make_tensor_value_info(prev, TensorProto.FLOAT, ['batch', 8])
    g = helper.make_graph(nodes, 'chain', [x], [y], inits)
    save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 17)]), 'chain')


def attributes():
    """Conv (ints), LeakyRelu (float), Resize (string), ConstantOfShape (tensor),
    Cast to int64 and a Gemm; int64 and float16 initializers."""
    rng = np.random.default_rng(11)
    w = numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), 'W')
    scales = numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), 'scales')
    shape = numpy_helper.from_array(np.array([2, 5], np.int64), 'shape')
    half = numpy_helper.from_array(np.arange(10, dtype=np.float16).reshape(2, 5), 'half')
    nodes = [
        helper.make_node('Conv', ['x', 'W'], ['c'], name='conv', pads=[1, 1, 1, 1], strides=[1, 1],
                         kernel_shape=[3, 3]),
        helper.make_node('LeakyRelu', ['c'], ['l'], name='leaky', alpha=0.25),
        helper.make_node('Resize', ['l', '', 'scales'], ['r'], name='resize', mode='nearest'),
        helper.make_node('ConstantOfShape', ['shape'], ['k'], name='fill',
                         value=helper.make_tensor('v', TensorProto.FLOAT, [1], [0.5])),
        helper.make_node('Cast', ['half'], ['hf'], name='cast', to=TensorProto.FLOAT),
        helper.make_node('Add', ['k', 'hf'], ['sum'], name='add'),
    ]
    x = helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, 3, 6, 6])
    outs = [helper.make_tensor_value_info('r', TensorProto.FLOAT, [1, 4, 12, 12]),
            helper.make_tensor_value_info('sum', TensorProto.FLOAT, [2, 5])]
    g = helper.make_graph(nodes, 'attributes', [x], outs, [w, scales, shape, half])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)]), 'attributes')


def subgraph():
    """If with then/else branches that read an outer value (a GRAPH attribute)."""
    then_g = helper.make_graph([helper.make_node('Add', ['x', 'x'], ['t'])], 'then', [],
                               [helper.make_tensor_value_info('t', TensorProto.FLOAT, [4])])
    else_g = helper.make_graph([helper.make_node('Neg', ['x'], ['e'])], 'else', [],
                               [helper.make_tensor_value_info('e', TensorProto.FLOAT, [4])])
    nodes = [helper.make_node('If', ['cond'], ['y'], name='branch', then_branch=then_g, else_branch=else_g)]
    inputs = [helper.make_tensor_value_info('cond', TensorProto.BOOL, []),
              helper.make_tensor_value_info('x', TensorProto.FLOAT, [4])]
    g = helper.make_graph(nodes, 'subgraph', inputs, [helper.make_tensor_value_info('y', TensorProto.FLOAT, [4])])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)]), 'subgraph')


chain()
attributes()
subgraph()
