# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Einsum against onnxruntime: matmuls with batch, broadcast and transposed
# outputs, contractions over several labels, a label summed in one operand
# only, diagonals, ellipses (broadcast too), implicit outputs, and the
# one-operand forms (transpose, reduction, trace), on odd sizes.
import numpy as np
from onnx import TensorProto, helper

_RNG = np.random.default_rng(20261125)

# (name, equation, operand shapes)
_EQUATIONS = [
    ("matmul", "ij,jk->ik", [(7, 13), (13, 5)]),
    ("matmul_implicit", "ij,jk", [(3, 9), (9, 11)]),
    ("batch_matmul", "bij,bjk->bik", [(3, 5, 7), (3, 7, 2)]),
    ("batch_transposed_out", "bij,bjk->kbi", [(2, 5, 7), (2, 7, 3)]),
    ("attention_scores", "bhqd,bhkd->bhqk", [(2, 3, 5, 8), (2, 3, 6, 8)]),
    ("two_contracted", "abc,bcd->ad", [(4, 3, 5), (3, 5, 6)]),
    ("summed_in_one", "ij,k->i", [(5, 7), (3,)]),
    ("outer", "i,j->ij", [(5,), (7,)]),
    ("inner", "i,i", [(17,), (17,)]),
    ("ellipsis", "...ij,...jk->...ik", [(2, 3, 4, 5), (2, 3, 5, 6)]),
    ("ellipsis_broadcast", "...ij,...jk->...ik", [(2, 1, 4, 5), (2, 3, 5, 6)]),
    ("maxvit_rel_pos", "bhwc,hkc->bhwk", [(2, 7, 7, 16), (7, 13, 16)]),
    ("transpose", "ijk->kji", [(3, 5, 7)]),
    ("reduce", "ijk->j", [(3, 5, 7)]),
    ("sum_all", "ij->", [(9, 11)]),
    ("trace", "ii", [(6, 6)]),
    ("batch_diagonal", "...ii->...i", [(3, 5, 5)]),
]


def cases():
    for name, equation, shapes in _EQUATIONS:
        names = [f"x{i}" for i in range(len(shapes))]
        inputs = {n: _RNG.uniform(-1, 1, size=s).astype(np.float32) for n, s in zip(names, shapes)}
        node = helper.make_node("Einsum", names, ["Y"], equation=equation)
        graph = helper.make_graph(
            [node], "g",
            [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(a.shape)) for n, a in inputs.items()],
            [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 12)])
        model.ir_version = 8
        yield {"name": f"einsum_{name}", "model": model, "inputs": inputs}
