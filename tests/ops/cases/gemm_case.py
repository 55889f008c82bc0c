# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# What the GEMM-engine case modules share: the attribute that pins a plan
# (runtime/kernels/gemm/gemm_plan.h) and a one-node fp32 model around the op
# under test. gemm_fp16_cases.py and gemm_acc16_cases.py build their models
# with it.
from onnx import TensorProto, helper, numpy_helper

PLAN_ATTR = "vkserve_gemm_plan"


def one_node_model(op, inputs, inits, attrs, plan, names=None, graph_name="gemm"):
    """`op` reading `inputs` (graph inputs) and `inits` (initializers), both
    {name: array}, into Y; `plan` pins the engine's kernel (None: the
    planner's choice); names: the node's inputs in order (default: inputs,
    then inits)."""
    if plan is not None:
        attrs = dict(attrs, **{PLAN_ATTR: plan})
    node = helper.make_node(op, names or list(inputs) + list(inits), ["Y"], **attrs)
    graph = helper.make_graph(
        [node], graph_name,
        [helper.make_tensor_value_info(k, TensorProto.FLOAT, list(v.shape))
         for k, v in inputs.items()],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
        initializer=[numpy_helper.from_array(v, k) for k, v in inits.items()])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])
    m.ir_version = 9
    return m
