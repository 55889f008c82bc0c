#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Test inputs for runtime_subgraph_fusion_test, in the case layout of
# tests/ops/gen_cases.py (OUT/<name>/{model.onnx, inputs/<i>.npy, meta.json})
# so that tests/reference/ort_batch.js adds onnxruntime's outputs. One model,
# two cases (its If's condition true and false):
#
#   a = x + c                        (main graph; c a float[8] initializer)
#   y = If(cond)
#         then: 0.5 * a * (1 + Erf(a / sqrt(2)))   GELU as exporters write it
#               + Sigmoid(x) * x                    SiLU
#         else: a * Sigmoid(a)                      SiLU of the outer value
#
# x float[2,8], cond bool[]. The branches read the outer a and x by name.
#
# Usage: /usr/bin/python3 tests/runtime/subgraph_fusion_cases.py OUT
import json
import math
import pathlib
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper


def scalar(name, value):
    return numpy_helper.from_array(np.array(value, dtype=np.float32), name)


def then_branch():
    mk = helper.make_node
    nodes = [mk("Div", ["a", "sqrt2"], ["t_div"]), mk("Erf", ["t_div"], ["t_erf"]),
             mk("Add", ["t_erf", "one"], ["t_add"]), mk("Mul", ["a", "t_add"], ["t_mul"]),
             mk("Mul", ["t_mul", "half"], ["t_gelu"]),
             mk("Sigmoid", ["x"], ["t_sig"]), mk("Mul", ["t_sig", "x"], ["t_silu"]),
             mk("Add", ["t_gelu", "t_silu"], ["then_y"])]
    return helper.make_graph(
        nodes, "then", [], [helper.make_tensor_value_info("then_y", TensorProto.FLOAT, [2, 8])],
        initializer=[scalar("sqrt2", math.sqrt(2.0)), scalar("one", 1.0), scalar("half", 0.5)])


def else_branch():
    mk = helper.make_node
    nodes = [mk("Sigmoid", ["a"], ["e_sig"]), mk("Mul", ["a", "e_sig"], ["else_y"])]
    return helper.make_graph(nodes, "else", [],
                             [helper.make_tensor_value_info("else_y", TensorProto.FLOAT, [2, 8])])


def write_case(out, name, model, inputs):
    d = pathlib.Path(out) / name
    (d / "inputs").mkdir(parents=True, exist_ok=True)
    (d / "model.onnx").write_bytes(model)
    for i, (_, array) in enumerate(inputs):
        np.save(d / "inputs" / f"{i}.npy", array, allow_pickle=False)
    meta = {"name": name, "inputs": [n for n, _ in inputs], "outputs": ["y"],
            "rtol": 0.0, "atol": 0.0}  # the C++ test applies its own tolerance
    (d / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")


def main(argv):
    if len(argv) != 2:
        print("usage: subgraph_fusion_cases.py OUT", file=sys.stderr)
        return 2
    rng = np.random.default_rng(11)
    c = rng.standard_normal(8).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "c"], ["a"]),
         helper.make_node("If", ["cond"], ["y"], then_branch=then_branch(),
                          else_branch=else_branch())],
        "if_fusion",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 8]),
         helper.make_tensor_value_info("cond", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 8])],
        initializer=[numpy_helper.from_array(c, "c")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    data = model.SerializeToString()
    x = (rng.standard_normal((2, 8)) * 2).astype(np.float32)
    for name, cond in (("if_fusion_then", True), ("if_fusion_else", False)):
        write_case(argv[1], name, data, [("x", x), ("cond", np.array(cond))])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
