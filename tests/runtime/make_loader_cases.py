#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
"""Writes the ONNX/npy inputs of tests/runtime/onnx_loader_test.cc and npy_test.cc.

Usage: make_loader_cases.py OUTDIR [CONFORMANCE_DIR]

CONFORMANCE_DIR defaults to the ONNX node cases in tests/data/onnx-node-tests;
the script fails when that folder is missing.

Everything here is made with the upstream onnx Python package and numpy (the
independent side of the tests); the C++ tests load the results with vkserve's
loaders and compare. Well-formed models go through onnx.checker first, so a
failure to load them is vkserve's fault; malformed ones are built by hand.
"""
import os
import random
import sys

import numpy as np
import onnx
from google.protobuf.descriptor import FieldDescriptor as FD
from onnx import TensorProto, helper, numpy_helper

OUT = sys.argv[1]
CONFORMANCE = (sys.argv[2] if len(sys.argv) > 2 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), '..', 'data', 'onnx-node-tests'))
if not os.path.isdir(CONFORMANCE):
    sys.exit('make_loader_cases.py: missing the ONNX node cases at %s' % CONFORMANCE)


def path(*parts):
    p = os.path.join(OUT, *parts)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    return p


def vi(name, elem=TensorProto.FLOAT, shape=(2, 3)):
    return helper.make_tensor_value_info(name, elem, shape)


def model(nodes, inputs, outputs, initializers=(), opsets=(('', 13),), check=True, ir_version=8):
    graph = helper.make_graph(nodes, 'g', inputs, outputs, list(initializers))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets],
                          producer_name='make_loader_cases')
    m.ir_version = ir_version
    if check:
        onnx.checker.check_model(m)
    return m


def save(m, *name):
    with open(path(*name), 'wb') as f:
        f.write(m.SerializeToString())


def relu_with(initializer_tensor, **kw):
    """Y = X + W with W the given (possibly malformed) initializer."""
    return model([helper.make_node('Add', ['X', initializer_tensor.name], ['Y'], name='add')],
                 [vi('X')], [vi('Y')], [initializer_tensor], check=False, **kw)


# ---- well-formed models -------------------------------------------------------

save(model([helper.make_node('Relu', ['X'], ['t']), helper.make_node('Neg', ['t'], ['Y'])],
           [vi('X')], [vi('Y')]), 'anonymous.onnx')

# Listed out of order: 'second' reads what 'first' makes.
save(model([helper.make_node('Neg', ['t'], ['Y'], name='second'),
            helper.make_node('Relu', ['X'], ['t'], name='first')],
           [vi('X')], [vi('Y')], check=False), 'unsorted.onnx')

# Domain 'ai.onnx' spelled out; a second, custom domain with its own version.
save(model([helper.make_node('Relu', ['X'], ['t'], name='relu', domain='ai.onnx'),
            helper.make_node('Gelu', ['t'], ['Y'], name='gelu', domain='com.microsoft')],
           [vi('X')], [vi('Y')], opsets=(('', 13), ('com.microsoft', 1)), check=False),
     'domains.onnx')

# IR < 4 style: the initializer W is also listed as a graph input.
w = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), 'W')
save(model([helper.make_node('Add', ['X', 'W'], ['Y'], name='add')], [vi('X'), vi('W')], [vi('Y')], [w],
           ir_version=3, opsets=(('', 9),)), 'ir3_inputs.onnx')

# Symbolic and fixed dims with a denotation.
x_sym = helper.make_tensor_value_info('X', TensorProto.FLOAT, ['N', 3, None])
x_sym.type.tensor_type.shape.dim[0].denotation = 'DATA_BATCH'
save(model([helper.make_node('Relu', ['X'], ['Y'], name='relu')], [x_sym],
           [helper.make_tensor_value_info('Y', TensorProto.FLOAT, None)], check=False), 'dims.onnx')

# Every element type in typed fields (helper.make_tensor raw=False), and again as raw_data.
VALUES = {
    'f32': np.array([[1.5, -2.25, 3.0], [0.0, -0.0, 1e-8]], dtype=np.float32),
    'f64': np.array([1.0 / 3.0, -1e300, 2.0], dtype=np.float64),
    'f16': np.array([1.0, -2.5, 65504.0, 6e-8], dtype=np.float16),
    'i64': np.array([[-(2 ** 62), 7], [0, 2 ** 40]], dtype=np.int64),
    'i32': np.array([-(2 ** 31), 2 ** 31 - 1, 5], dtype=np.int32),
    'i16': np.array([-32768, 32767, -1], dtype=np.int16),
    'i8': np.array([-128, 127, -3, 0], dtype=np.int8),
    'u8': np.array([0, 255, 17], dtype=np.uint8),
    'u16': np.array([0, 65535, 300], dtype=np.uint16),
    'u32': np.array([0, 4294967295, 70000], dtype=np.uint32),
    'u64': np.array([0, 2 ** 64 - 1, 12345], dtype=np.uint64),
    'b': np.array([True, False, True], dtype=np.bool_),
    'scalar': np.array(4.0, dtype=np.float32),
    'empty': np.zeros((0, 3), dtype=np.float32),
}
for raw in (False, True):
    inits = []
    for name, a in VALUES.items():
        elem = helper.np_dtype_to_tensor_dtype(a.dtype) if hasattr(helper, 'np_dtype_to_tensor_dtype') \
            else onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[a.dtype]
        if raw:
            t = numpy_helper.from_array(a, name)
        else:
            t = helper.make_tensor(name, elem, a.shape, a.flatten().tolist())
        assert t.HasField('raw_data') == raw, name
        inits.append(t)
        np.save(path('typed', name + '.npy'), a)
    save(model([helper.make_node('Relu', ['X'], ['Y'], name='relu')], [vi('X')], [vi('Y')], inits),
         'raw.onnx' if raw else 'typed.onnx')

# Attributes of every kind, plus one with type UNDEFINED (IR 1 files) holding an int.
foo = helper.make_node('Foo', ['X'], ['Y'], name='foo', domain='com.example', f=0.5, i=-3, s=b'hello',
                       t=numpy_helper.from_array(np.array([1, 2, 3], dtype=np.int64), 'tv'),
                       fs=[1.0, 2.5], is_=[4, 5, 6], ss=[b'a', b'bc'],
                       ts=[numpy_helper.from_array(np.array([1.0], dtype=np.float32)),
                           numpy_helper.from_array(np.array([True, False]))])
for a in foo.attribute:
    if a.name == 'is_':
        a.name = 'is'
legacy = foo.attribute.add()
legacy.name = 'legacy'
legacy.i = 7
save(model([foo], [vi('X')], [vi('Y')], opsets=(('', 13), ('com.example', 1)), check=False), 'attributes.onnx')

# If whose branches read 'late', made by a node listed after the If.
then_g = helper.make_graph([helper.make_node('Identity', ['late'], ['a'], name='then_id')], 'then_g', [],
                           [vi('a')])
else_g = helper.make_graph([helper.make_node('Neg', ['late'], ['b'], name='else_neg')], 'else_g', [], [vi('b')])
save(model([helper.make_node('If', ['C'], ['Y'], name='if', then_branch=then_g, else_branch=else_g),
            helper.make_node('Relu', ['X'], ['late'], name='late_relu')],
           [vi('X'), vi('C', TensorProto.BOOL, [])], [vi('Y')], check=False), 'if_capture.onnx')

# Two levels down: the inner If's branch reads 'late' from the main graph.
inner = helper.make_node('If', ['C'], ['a'], name='inner_if', then_branch=then_g, else_branch=then_g)
outer_then = helper.make_graph([inner], 'outer_then', [], [vi('a')])
save(model([helper.make_node('If', ['C'], ['Y'], name='outer_if', then_branch=outer_then, else_branch=else_g),
            helper.make_node('Relu', ['X'], ['late'], name='late_relu')],
           [vi('X'), vi('C', TensorProto.BOOL, [])], [vi('Y')], check=False), 'nested_capture.onnx')

# External data: every initializer in weights/w.bin (offsets/lengths written by onnx).
ext = model([helper.make_node('Add', ['X', 'A'], ['t'], name='add'),
             helper.make_node('Mul', ['t', 'B'], ['Y'], name='mul')], [vi('X')], [vi('Y')],
            [numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), 'A'),
             numpy_helper.from_array(np.full((2, 3), -1.5, dtype=np.float32), 'B')])
os.makedirs(path('ext', 'weights', 'w.bin').rsplit('/', 1)[0], exist_ok=True)
if os.path.exists(path('ext', 'weights', 'w.bin')):  # onnx appends
    os.remove(path('ext', 'weights', 'w.bin'))
onnx.save_model(ext, path('ext', 'model.onnx'), save_as_external_data=True, all_tensors_to_one_file=True,
                location='weights/w.bin', size_threshold=0)
with open(path('outside.bin'), 'wb') as f:
    f.write(np.zeros(6, dtype=np.float32).tobytes())


def external(name, location, offset=None, length=None, dims=(2, 3)):
    t = TensorProto()
    t.name = name
    t.data_type = TensorProto.FLOAT
    t.dims.extend(dims)
    t.data_location = TensorProto.EXTERNAL
    for k, v in (('location', location), ('offset', offset), ('length', length)):
        if v is not None:
            e = t.external_data.add()
            e.key = k
            e.value = str(v)
    return t


def save_ext(case, tensor, data=None):
    save(relu_with(tensor), case, 'model.onnx')
    if data is not None:
        with open(path(case, 'data.bin'), 'wb') as f:
            f.write(data)


save_ext('ext_escape', external('W', '../outside.bin'))
save_ext('ext_absolute', external('W', os.path.abspath(path('outside.bin'))))
save_ext('ext_missing', external('W', 'nothere.bin'))
save_ext('ext_out_of_bounds', external('W', 'data.bin', offset=8), bytes(24))
save_ext('ext_bad_length', external('W', 'data.bin', length=20), bytes(24))
save_ext('ext_bad_offset', external('W', 'data.bin', offset='-4'), bytes(24))
save_ext('ext_offset_ok', external('W', 'data.bin', offset=4, length=24),
         b'\0' * 4 + np.arange(6, dtype=np.float32).tobytes() + b'\0' * 4)
save_ext('ext_symlink', external('W', 'link.bin'))
if not os.path.lexists(path('ext_symlink', 'link.bin')):
    os.symlink(os.path.join('..', 'outside.bin'), path('ext_symlink', 'link.bin'))

# ---- malformed models (built by hand, never checked) ------------------------------

save(model([helper.make_node('Add', ['X', 't2'], ['t1'], name='n1'),
            helper.make_node('Relu', ['t1'], ['t2'], name='n2'),
            helper.make_node('Neg', ['t2'], ['Y'], name='n3')], [vi('X')], [vi('Y')], check=False), 'cycle.onnx')
save(model([helper.make_node('Relu', ['nowhere'], ['Y'], name='reader')], [vi('X')], [vi('Y')], check=False),
     'dangling.onnx')
save(model([helper.make_node('Foo', ['X'], ['Y'], name='foo', domain='com.example')], [vi('X')], [vi('Y')],
           check=False), 'missing_opset.onnx')
save(model([helper.make_node('Relu', ['X'], ['Y'], name='a'), helper.make_node('Neg', ['X'], ['Y'], name='b')],
           [vi('X')], [vi('Y')], check=False), 'duplicate_output.onnx')
save(model([helper.make_node('Relu', ['X'], ['t'], name='a')], [vi('X')], [vi('Y')], check=False),
     'output_not_produced.onnx')
save(model([helper.make_node('If', ['C'], ['Y'], name='if',
                             then_branch=helper.make_graph([helper.make_node('Identity', ['ghost'], ['a'], name='g')],
                                                           'then_g', [], [vi('a')]),
                             else_branch=else_g),
            helper.make_node('Relu', ['X'], ['late'], name='late_relu')],
           [vi('X'), vi('C', TensorProto.BOOL, [])], [vi('Y')], check=False), 'subgraph_dangling.onnx')

bad = numpy_helper.from_array(np.zeros((2, 3), dtype=np.float32), 'W')
bad.raw_data = bytes(20)
save(relu_with(bad), 'bad_raw.onnx')
save(relu_with(TensorProto(name='W', data_type=TensorProto.FLOAT, dims=[2, 3], float_data=[1.0] * 5)),
     'bad_typed.onnx')
huge = TensorProto(name='W', data_type=TensorProto.FLOAT, dims=[2 ** 40, 2 ** 40])
save(relu_with(huge), 'huge.onnx')
save(relu_with(TensorProto(name='W', data_type=TensorProto.FLOAT, dims=[2 ** 28])), 'huge_no_data.onnx')
save(relu_with(TensorProto(name='W', data_type=TensorProto.FLOAT, dims=[2, -3])), 'negative_dim.onnx')
save(relu_with(helper.make_tensor('W', TensorProto.STRING, [2], [b'a', b'b'])), 'string_tensor.onnx')
save(relu_with(TensorProto(name='W', data_type=99, dims=[1], raw_data=b'\0')), 'unknown_type_initializer.onnx')
save(model([helper.make_node('Relu', ['X'], ['Y'], name='relu')], [vi('X', 42)], [vi('Y')], check=False),
     'unknown_type_input.onnx')
sp = helper.make_node('Foo', ['X'], ['Y'], name='sparse_user', domain='com.example')
sa = sp.attribute.add()
sa.name = 'sp'
sa.type = onnx.AttributeProto.SPARSE_TENSOR
sa.sparse_tensor.dims.extend([4])
save(model([sp], [vi('X')], [vi('Y')], opsets=(('', 13), ('com.example', 1)), check=False), 'sparse_attribute.onnx')
dup = numpy_helper.from_array(np.zeros((2, 3), dtype=np.float32), 'W')
save(model([helper.make_node('Add', ['X', 'W'], ['Y'], name='add')], [vi('X')], [vi('Y')], [dup, dup],
           check=False), 'duplicate_initializer.onnx')

# ---- fuzz seed: a small model touching most loader paths ---------------------------
fuzz = model([helper.make_node('Conv', ['X', 'W', 'B'], ['c'], name='conv', kernel_shape=[1, 1], pads=[0, 0, 0, 0]),
              helper.make_node('Reshape', ['c', 'shape'], ['r'], name='reshape'),
              helper.make_node('If', ['C'], ['Y'], name='if', then_branch=then_g, else_branch=else_g),
              helper.make_node('Relu', ['r'], ['late'])],
             [helper.make_tensor_value_info('X', TensorProto.FLOAT, ['N', 3, 2, 2]), vi('C', TensorProto.BOOL, [])],
             [vi('Y')],
             [numpy_helper.from_array(np.ones((2, 3, 1, 1), dtype=np.float32), 'W'),
              helper.make_tensor('B', TensorProto.FLOAT, [2], [0.5, -0.5]),
              helper.make_tensor('shape', TensorProto.INT64, [2], [-1, 3])], check=False)
save(fuzz, 'fuzz_seed.onnx')

# ---- structure-aware mutations of the fuzz seed -------------------------------------
# Byte flips mostly break the protobuf framing; these keep it valid and change
# one to three fields anywhere in the model (dims, types, names, data sizes,
# attribute kinds, subgraphs, ...): fuzz/<i>.onnx.
rng = random.Random(1234)
NAMES = ['X', 'Y', 'W', 'B', 'C', 'c', 'r', 'late', 'a', 'b', 'shape', '', 'ghost', 'ai.onnx', 'com.example']
INTS = [-(2 ** 63), -(2 ** 31), -1, 0, 1, 2, 3, 7, 16, 17, 99, 2 ** 31 - 1, 2 ** 40, 2 ** 62, 2 ** 63 - 1]


def fields_of(msg, out):
    for fd in msg.DESCRIPTOR.fields:
        out.append((msg, fd))
        if fd.type == FD.TYPE_MESSAGE:
            if fd.label == FD.LABEL_REPEATED:
                for sub in getattr(msg, fd.name):
                    fields_of(sub, out)
            elif msg.HasField(fd.name):
                fields_of(getattr(msg, fd.name), out)
    return out


def scalar(fd, old=None):
    if fd.type in (FD.TYPE_STRING,):
        return rng.choice(NAMES)
    if fd.type == FD.TYPE_BYTES:
        old = old or b''
        return rng.choice([b'', old[:max(0, len(old) - rng.randint(1, 8))], old + bytes(rng.randint(1, 8)),
                           bytes(rng.randint(0, 64))])
    if fd.type in (FD.TYPE_FLOAT, FD.TYPE_DOUBLE):
        return rng.choice([0.0, -1.0, 1e30, float('nan'), float('inf')])
    if fd.type == FD.TYPE_ENUM:
        return rng.choice([v.number for v in fd.enum_type.values])
    v = rng.choice(INTS)
    if fd.type in (FD.TYPE_UINT64, FD.TYPE_FIXED64):
        v = abs(v) % (2 ** 64)
    if fd.type in (FD.TYPE_INT32, FD.TYPE_SINT32, FD.TYPE_SFIXED32):
        v = max(-(2 ** 31), min(2 ** 31 - 1, v))
    if fd.type in (FD.TYPE_UINT32, FD.TYPE_FIXED32):
        v = abs(v) % (2 ** 32)
    return v


def mutate(m):
    msg, fd = rng.choice(fields_of(m, []))
    try:
        if fd.label == FD.LABEL_REPEATED:
            seq = getattr(msg, fd.name)
            choice = rng.random()
            if fd.type == FD.TYPE_MESSAGE:
                if len(seq) and choice < 0.4:
                    del seq[rng.randrange(len(seq))]
                elif len(seq) and choice < 0.7:
                    seq.add().CopyFrom(seq[rng.randrange(len(seq))])
                elif len(seq) > 1:
                    i, j = rng.randrange(len(seq)), rng.randrange(len(seq))
                    a, b = type(seq[i])(), type(seq[j])()
                    a.CopyFrom(seq[i])
                    b.CopyFrom(seq[j])
                    seq[i].CopyFrom(b)
                    seq[j].CopyFrom(a)
            elif len(seq) and choice < 0.4:
                del seq[rng.randrange(len(seq))]
            elif len(seq) and choice < 0.8:
                i = rng.randrange(len(seq))
                seq[i] = scalar(fd, seq[i])
            else:
                seq.append(scalar(fd))
        elif fd.type == FD.TYPE_MESSAGE:
            if msg.HasField(fd.name) and rng.random() < 0.5:
                msg.ClearField(fd.name)
            else:
                getattr(msg, fd.name).SetInParent()
        else:
            setattr(msg, fd.name, scalar(fd, getattr(msg, fd.name)))
    except (ValueError, TypeError):
        pass


for i in range(400):
    m = onnx.ModelProto()
    m.CopyFrom(fuzz)
    for _ in range(rng.randint(1, 3)):
        mutate(m)
    save(m, 'fuzz', '%03d.onnx' % i)

# ---- conformance .pb files and numpy's reading of them ------------------------------
# Named cases covering many element types and ranks, then one more file per
# element type from a sorted walk; pb_list.txt lines are "PB<TAB>NPY".
PREFERRED = ['test_abs', 'test_cast_FLOAT_to_FLOAT16', 'test_cast_FLOAT_to_DOUBLE', 'test_argmax_default_axis_example',
             'test_equal', 'test_gather_0', 'test_shape', 'test_add_int8', 'test_add_uint64', 'test_and2d',
             'test_reshape_reordered_all_dims', 'test_size', 'test_cast_FLOAT16_to_FLOAT']
lines = []
seen_types = set()


def add_pb(case, pb):
    t = TensorProto()
    try:
        with open(os.path.join(CONFORMANCE, case, 'test_data_set_0', pb), 'rb') as f:
            t.ParseFromString(f.read())
    except Exception:  # sequences and optionals are other protos
        return False
    if t.data_type in (0, TensorProto.STRING, TensorProto.BFLOAT16) or t.data_type > 16:
        return False
    npy = path('pb', '%s_%s.npy' % (case, pb[:-3]))
    np.save(npy, numpy_helper.to_array(t))
    lines.append('%s\t%s\n' % (os.path.join(CONFORMANCE, case, 'test_data_set_0', pb), npy))
    seen_types.add(t.data_type)
    return True


for case in PREFERRED:
    data = os.path.join(CONFORMANCE, case, 'test_data_set_0')
    if os.path.isdir(data):
        for pb in sorted(os.listdir(data)):
            if pb.endswith('.pb'):
                add_pb(case, pb)
for case in sorted(os.listdir(CONFORMANCE)):
    data = os.path.join(CONFORMANCE, case, 'test_data_set_0')
    if len(lines) >= 40 or not os.path.isdir(data):
        continue
    for pb in sorted(os.listdir(data)):
        if pb.endswith('.pb'):
            before = set(seen_types)
            t = TensorProto()
            with open(os.path.join(data, pb), 'rb') as f:
                try:
                    t.ParseFromString(f.read())
                except Exception:
                    continue
            if t.data_type not in before:
                add_pb(case, pb)
if not lines:
    sys.exit('make_loader_cases.py: no TensorProto files under %s' % CONFORMANCE)
with open(path('pb_list.txt'), 'w') as f:
    f.writelines(lines)
print('wrote cases to', OUT)
