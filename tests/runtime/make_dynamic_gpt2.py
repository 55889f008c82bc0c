#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
"""Derives gpt2_tiny_dyn, a dynamic-shape twin of gpt2_tiny.onnx, from its weights.

Usage: /usr/bin/python3 tests/runtime/make_dynamic_gpt2.py IN.onnx OUT.onnx

gpt2_tiny.onnx is a torch.onnx dynamo export with fixed dims: input_ids
int64[1,16], and the sequence length (16) and batch (1) baked into its
constants. Without torch it cannot be re-exported, so this rewrites the graph,
keeping every weight and compute node:

  * input_ids becomes int64[N,S] and logits float[N,S,V] (batch and sequence
    both dynamic);
  * N and S are read once from Shape(input_ids) (Gather), and every Reshape
    whose shape is an int64 constant gets Concat(pieces) instead, entry by
    entry: a leading 1 is the batch (N); 16 is S, except a leading 16 of a
    2-D shape, which is the flattened N*S and becomes -1 (exact: the other
    entry is fixed and there is no other -1); other entries are kept;
  * the position ids (the constant [[0..15]]) become Unsqueeze(Range(0, S));
  * the causal mask (the constant [1,1,16,16], 0 on and below the diagonal,
    float32 min above) becomes Where(col > row, min, 0) over the same Range,
    unsqueezed to [1,1,S,S], with the two values taken from the constant.

The script checks what it replaces (the position ids are 0..15, the mask is
causal with two values) and, afterwards, that no int64 constant holding 16
and no constant with a dim of 16 is left; anything unexpected raises, so a
changed model fails the tests instead of being converted wrongly. The test
(tests/runtime/sequence_length_test.cc) also checks the result under
onnxruntime: at [N,16] it must give the original model's outputs row by row,
and at longer S the causal prefix must not change.

S can be at most the rows of the position table (m.transformer.wpe.weight,
128 for gpt2_tiny).
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

FIXED_S = 16
FIXED_N = 1


class Builder:
    """New nodes and constants, named with a prefix that the graph does not use."""

    def __init__(self, graph):
        self.graph = graph
        self.nodes = []
        self.constants = []
        self.shapes = {}  # template tuple -> value name
        taken = {v for n in graph.node for v in list(n.input) + list(n.output)}
        taken |= {t.name for t in graph.initializer}
        self.prefix = "dyn"
        while any(name.startswith(self.prefix) for name in taken):
            self.prefix += "_"

    def name(self, what):
        return f"{self.prefix}/{what}"

    def const(self, what, array):
        name = self.name(what)
        self.constants.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(self, op, inputs, what, **attrs):
        out = self.name(what)
        self.nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out


def _int64_initializer(inits, name):
    t = inits.get(name)
    if t is None or t.data_type != TensorProto.INT64:
        return None
    return numpy_helper.to_array(t)


def _template(shape):
    """The entries of a baked Reshape shape as 'N', 'S' or a kept integer."""
    shape = [int(v) for v in shape]
    out = []
    for k, v in enumerate(shape):
        if k == 0 and v == FIXED_N:
            out.append("N")
        elif k == 0 and v == FIXED_S and len(shape) == 2:
            if -1 in shape:
                raise ValueError(f"shape {shape}: a flattened N*S beside a -1 is ambiguous")
            out.append(-1)
        elif v == FIXED_S:
            out.append("S")
        else:
            out.append(v)
    return tuple(out)


def _shape_value(b, template, n, s):
    """A 1-D int64 value holding `template` with N and S filled in."""
    if template in b.shapes:
        return b.shapes[template]
    pieces, literal = [], []
    for entry in template:
        if isinstance(entry, str):
            if literal:
                pieces.append(b.const(f"shape_part_{len(b.constants)}", np.array(literal, np.int64)))
                literal = []
            pieces.append(n if entry == "N" else s)
        else:
            literal.append(entry)
    if literal:
        pieces.append(b.const(f"shape_part_{len(b.constants)}", np.array(literal, np.int64)))
    label = "x".join(str(e) for e in template).replace("-1", "m1")
    out = pieces[0] if len(pieces) == 1 else b.node("Concat", pieces, f"shape_{label}", axis=0)
    b.shapes[template] = out
    return out


def _check_positions(array):
    if not np.array_equal(array, np.arange(FIXED_S, dtype=np.int64).reshape(1, FIXED_S)):
        raise ValueError(f"int64[1,{FIXED_S}] constant is not the position ids 0..{FIXED_S - 1}")


def _causal_values(array):
    """(value on/below the diagonal, value above) of a [1,1,16,16] causal mask."""
    m = array.reshape(FIXED_S, FIXED_S)
    upper = np.triu(np.ones((FIXED_S, FIXED_S), bool), k=1)
    keep, masked = m[0, 0], m[0, 1]
    if not (np.all(m[~upper] == keep) and np.all(m[upper] == masked) and masked < keep):
        raise ValueError("float[1,1,16,16] constant is not a causal mask")
    return keep, masked


def _causal_mask(b, array, position_ids, rows):
    """float[1,1,S,S]: the values of the baked mask `array`, above the diagonal where col > row."""
    keep, masked = _causal_values(array)
    future = b.node("Greater", [position_ids, rows], "future")
    mask_2d = b.node("Where", [future, b.const("masked", np.array(masked, np.float32)),
                               b.const("keep", np.array(keep, np.float32))], "causal_2d")
    return b.node("Unsqueeze", [mask_2d, b.const("axes_01", np.array([0, 1], np.int64))], "causal_mask")


def convert(model):
    """Rewrites `model` (gpt2_tiny, fixed [1,16]) in place to take input_ids [N,S]; returns it."""
    g = model.graph
    inputs = [i for i in g.input if i.name not in {t.name for t in g.initializer}]
    if len(inputs) != 1 or inputs[0].type.tensor_type.elem_type != TensorProto.INT64:
        raise ValueError("expected one int64 input (input_ids)")
    ids = inputs[0]
    dims = [d.dim_value for d in ids.type.tensor_type.shape.dim]
    if dims != [FIXED_N, FIXED_S]:
        raise ValueError(f"input_ids has dims {dims}, expected [{FIXED_N},{FIXED_S}]")
    if len(g.output) != 1 or [d.dim_value for d in g.output[0].type.tensor_type.shape.dim][:2] != dims:
        raise ValueError("expected one output [1,16,V]")

    inits = {t.name: t for t in g.initializer}
    b = Builder(g)
    shape = b.node("Shape", [ids.name], "ids_shape")
    n = b.node("Gather", [shape, b.const("index_0", np.array([0], np.int64))], "N", axis=0)
    s = b.node("Gather", [shape, b.const("index_1", np.array([1], np.int64))], "S", axis=0)
    s_scalar = b.node("Gather", [shape, b.const("index_1_scalar", np.array(1, np.int64))], "S_scalar",
                      axis=0)
    positions = b.node("Range", [b.const("zero", np.array(0, np.int64)), s_scalar,
                                 b.const("one", np.array(1, np.int64))], "positions")
    position_ids = b.node("Unsqueeze", [positions, b.const("axes_0", np.array([0], np.int64))],
                          "position_ids")
    rows = b.node("Unsqueeze", [positions, b.const("axes_1", np.array([1], np.int64))], "rows")
    mask_value = None

    replaced = {}  # initializer name -> new value name, for non-Reshape uses
    for node in g.node:
        if node.op_type == "Reshape":
            baked = _int64_initializer(inits, node.input[1])
            if baked is not None and (FIXED_S in baked.tolist()):
                node.input[1] = _shape_value(b, _template(baked), n, s)
            continue
        for k, name in enumerate(node.input):
            t = inits.get(name)
            if t is None or FIXED_S not in t.dims:
                continue
            array = numpy_helper.to_array(t)
            if array.dtype == np.int64 and array.shape == (1, FIXED_S):
                _check_positions(array)
                node.input[k] = position_ids
            elif array.dtype == np.float32 and array.shape == (1, 1, FIXED_S, FIXED_S):
                if name not in replaced:
                    replaced[name] = mask_value = _causal_mask(b, array, position_ids, rows)
                node.input[k] = replaced[name]
            else:
                raise ValueError(f"{node.op_type} '{node.name}' reads {name} {list(t.dims)}: "
                                 "not a known baked shape")
    if mask_value is None:
        raise ValueError("no causal mask found")

    # Drop the replaced constants; check nothing sized by S is left.
    used = {v for node in g.node for v in node.input}
    kept = [t for t in g.initializer if t.name in used]
    for t in kept:
        if FIXED_S in t.dims:
            raise ValueError(f"constant {t.name} {list(t.dims)} still has a dim of {FIXED_S}")
        if t.data_type == TensorProto.INT64 and FIXED_S in numpy_helper.to_array(t).flatten().tolist():
            raise ValueError(f"int64 constant {t.name} still holds {FIXED_S}")
    del g.initializer[:]
    g.initializer.extend(kept + b.constants)
    new_nodes = b.nodes + list(g.node)
    del g.node[:]
    g.node.extend(new_nodes)

    for d, param in zip(ids.type.tensor_type.shape.dim, ("N", "S")):
        d.Clear()
        d.dim_param = param
    for d, param in zip(g.output[0].type.tensor_type.shape.dim, ("N", "S")):
        d.Clear()
        d.dim_param = param
    del g.value_info[:]  # the exporter's shapes are the fixed ones
    g.name = g.name + "_dyn" if g.name else "gpt2_tiny_dyn"
    # Debian's onnx (1.12, opset 17) cannot check this opset-18 graph;
    # onnxruntime loads and runs it in the test.
    return model


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    model = convert(onnx.load(argv[1]))
    onnx.save(model, argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
