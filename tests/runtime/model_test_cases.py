#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Test inputs for runtime_model_test, in the case layout of tests/ops/
# gen_cases.py (OUT/<name>/{model.onnx, inputs/<i>.npy, meta.json}) so that
# tests/reference/ort_batch.js adds onnxruntime's outputs:
#
#   model NAME MODEL.onnx OUT   fixed random inputs for a model file: floats
#                               standard normal, "*mask*" int64 inputs ones
#                               with the last quarter of each row 0, other
#                               integer inputs uniform over the vocabulary of
#                               the embedding table they index (else 0..99);
#                               symbolic dims are 1 for the first, 16 otherwise
#   model NAME MODEL OUT DIMS   the same with symbolic dims set by name
#                               (DIMS "N=520,S=128"; a dim not named keeps
#                               the default)
#   convnet OUT                 OUT/convnet: a small residual CNN (3->32->32->64
#                               channels, every count a multiple of 16, so
#                               ONNX Runtime's NCHWc blocking at level 'all'
#                               pads nothing) with random weights and an
#                               EfficientNet squeeze-and-excitation block
#                               (SiLU, broadcast Mul)
#   relu_add OUT                OUT/relu_add: y = Relu(x + c), x and y
#                               float[2,3,4,5], c a float[3,1,5] initializer
#
# Usage: /usr/bin/python3 tests/runtime/model_test_cases.py model NAME MODEL OUT [DIMS]
#        /usr/bin/python3 tests/runtime/model_test_cases.py relu_add OUT
import json
import os
import pathlib
import sys
import zlib

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

_NP = {TensorProto.FLOAT: np.float32, TensorProto.FLOAT16: np.float16,
       TensorProto.DOUBLE: np.float64, TensorProto.INT64: np.int64, TensorProto.INT32: np.int32,
       TensorProto.INT8: np.int8, TensorProto.UINT8: np.uint8, TensorProto.BOOL: np.bool_}


def write_case(out, name, model, inputs, outputs):
    """OUT/NAME with `model` (the bytes, or a path to link to), inputs (name, array) and meta.json."""
    d = pathlib.Path(out) / name
    (d / "inputs").mkdir(parents=True, exist_ok=True)
    if isinstance(model, bytes):
        (d / "model.onnx").write_bytes(model)
    else:
        (d / "model.onnx").symlink_to(os.path.abspath(model))
    for i, (_, array) in enumerate(inputs):
        np.save(d / "inputs" / f"{i}.npy", array, allow_pickle=False)
    meta = {"name": name, "inputs": [n for n, _ in inputs], "outputs": outputs,
            "rtol": 0.0, "atol": 0.0}  # the C++ test applies its own tolerance
    (d / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")


def vocab_size(model, input_name):
    """Rows of the embedding table that Gather indexes with input_name (else 100)."""
    inits = {t.name: t for t in model.graph.initializer}
    for node in model.graph.node:
        if node.op_type == "Gather" and len(node.input) > 1 and node.input[1] == input_name:
            table = inits.get(node.input[0])
            if table is not None and len(table.dims) >= 1:
                return int(table.dims[0])
    return 100


def model_case(name, path, out, dims=None):
    data = pathlib.Path(path).read_bytes()
    model = onnx.load_from_string(data)
    # A seed per model name: inputs do not change when other models are added.
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    inits = {t.name for t in model.graph.initializer}
    inputs = []
    for info in model.graph.input:
        if info.name in inits:
            continue
        t = info.type.tensor_type
        shape = [d.dim_value if d.HasField("dim_value")
                 else (dims or {}).get(d.dim_param, 1 if k == 0 else 16)
                 for k, d in enumerate(t.shape.dim)]
        dtype = np.dtype(_NP[t.elem_type])
        if dtype.kind == "f":
            array = rng.standard_normal(shape).astype(dtype)
        elif "mask" in info.name.lower():
            array = np.ones(shape, dtype)
            if shape and shape[-1] >= 4:
                array[..., shape[-1] - shape[-1] // 4:] = 0
        elif dtype.kind in "iu":
            array = rng.integers(0, vocab_size(model, info.name), size=shape).astype(dtype)
        else:
            array = rng.random(shape) > 0.5
        inputs.append((info.name, array))
    write_case(out, name, data, inputs, [o.name for o in model.graph.output])


def relu_add_case(out):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    c = rng.standard_normal((3, 1, 5)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "c"], ["s"]), helper.make_node("Relu", ["s"], ["y"])],
        "relu_add",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4, 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 4, 5])],
        initializer=[numpy_helper.from_array(c, "c")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    write_case(out, "relu_add", model.SerializeToString(), [("x", x)], ["y"])


def convnet_case(out):
    rng = np.random.default_rng(3)

    def w(name, *shape):
        return numpy_helper.from_array((rng.standard_normal(shape) * 0.1).astype(np.float32), name)

    mk = helper.make_node
    # r2s: an EfficientNet squeeze-and-excitation block on r2, with SiLU
    # (x * sigmoid(x), which ONNX Runtime fuses into QuickGelu) in between.
    nodes = [mk("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], strides=[2, 2]), mk("Relu", ["c1"], ["r1"]),
             mk("Conv", ["r1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1]), mk("Relu", ["c2"], ["r2"]),
             mk("GlobalAveragePool", ["r2"], ["se0"]), mk("Conv", ["se0", "ws1", "bs1"], ["se1"]),
             mk("Sigmoid", ["se1"], ["se2"]), mk("Mul", ["se1", "se2"], ["se3"]),
             mk("Conv", ["se3", "ws2", "bs2"], ["se4"]), mk("Sigmoid", ["se4"], ["se5"]),
             mk("Mul", ["r2", "se5"], ["r2s"]),
             mk("Conv", ["r2s", "w3", "b3"], ["c3"]), mk("Conv", ["r1", "w4", "b4"], ["c4"]),
             mk("Add", ["c3", "c4"], ["a"]), mk("Relu", ["a"], ["r3"]),
             mk("MaxPool", ["r3"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
             mk("GlobalAveragePool", ["p"], ["g"]), mk("Flatten", ["g"], ["f"]),
             mk("Gemm", ["f", "wf", "bf"], ["y"], transB=1)]
    inits = [w("w1", 32, 3, 3, 3), w("b1", 32), w("w2", 32, 32, 3, 3), w("b2", 32), w("ws1", 8, 32, 1, 1),
             w("bs1", 8), w("ws2", 32, 8, 1, 1), w("bs2", 32), w("w3", 64, 32, 1, 1),
             w("b3", 64), w("w4", 64, 32, 1, 1), w("b4", 64), w("wf", 10, 64), w("bf", 10)]
    graph = helper.make_graph(nodes, "convnet", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 32, 32])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 10])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    x = rng.standard_normal((2, 3, 32, 32)).astype(np.float32)
    write_case(out, "convnet", model.SerializeToString(), [("x", x)], ["y"])


def main(argv):
    if len(argv) == 5 and argv[1] == "model":
        model_case(argv[2], argv[3], argv[4])
    elif len(argv) == 6 and argv[1] == "model":
        dims = {k: int(v) for k, v in (kv.split("=") for kv in argv[5].split(","))}
        model_case(argv[2], argv[3], argv[4], dims)
    elif len(argv) == 3 and argv[1] == "relu_add":
        relu_add_case(argv[2])
    elif len(argv) == 3 and argv[1] == "convnet":
        convnet_case(argv[2])
    else:
        print(__doc__ if __doc__ else "usage: see the header of " + os.path.basename(argv[0]),
              file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
