# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# MatMuls whose constant B the loader stores transposed (runtime/
# weight_layout.h): B [K, N] with N not a multiple of 8, as exporters write
# a tied LM head (MatMul(x, Transpose(embedding)), the Transpose folded into
# a constant at load), against onnxruntime running the same graph. Both
# precisions, batched and 2-D A, M = 1 (the GEMV path), an N that is a
# multiple of 8 (left as it is) and a B also read by another node (left as
# it is).
import numpy as np
from onnx import TensorProto, helper, numpy_helper

_RNG = np.random.default_rng(20261126)


def _rand(*shape):
    return _RNG.uniform(-1.0, 1.0, size=shape).astype(np.float32)


def _case(name, a_shape, n, k, precision="FP32", shared=False):
    a = _rand(*a_shape)
    emb = numpy_helper.from_array(_rand(n, k), "emb")
    nodes = [helper.make_node("Transpose", ["emb"], ["w"], perm=[1, 0]),
             helper.make_node("MatMul", ["A", "w"], ["Y"])]
    outputs = [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)]
    if shared:  # the embedding lookup reads the table too
        nodes.append(helper.make_node("Gather", ["emb", "ids"], ["E"], axis=0))
        outputs.append(helper.make_tensor_value_info("E", TensorProto.FLOAT, None))
    inputs = {"A": a}
    graph_inputs = [helper.make_tensor_value_info("A", TensorProto.FLOAT, list(a_shape))]
    if shared:
        inputs["ids"] = np.array([0, n - 1, 3], dtype=np.int64)
        graph_inputs.append(helper.make_tensor_value_info("ids", TensorProto.INT64, [3]))
    graph = helper.make_graph(nodes, "g", graph_inputs, outputs, initializer=[emb])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    case = {"name": f"weight_layout_{name}", "model": model, "inputs": inputs, "atol": 1e-4, "rtol": 1e-4}
    if precision == "FP16":
        # Operands rounded to fp16: |error| <= 2 * 2^-11 * sum |a b| <= k * 2^-10.
        case.update(precision="FP16", atol=k * 2.0 ** -10, rtol=0.0)
    return case


def cases():
    yield _case("lm_head_n1001_k64", (2, 5, 64), 1001, 64)
    yield _case("lm_head_n1001_k64_fp16", (2, 5, 64), 1001, 64, precision="FP16")
    yield _case("n13_k32_2d", (7, 32), 13, 32)
    yield _case("n13_k32_m1", (1, 32), 13, 32)
    yield _case("n13_k32_m1_fp16", (1, 32), 13, 32, precision="FP16")
    yield _case("n24_k32_aligned", (3, 32), 24, 32)
    yield _case("n13_k32_shared", (4, 32), 13, 32, shared=True)
