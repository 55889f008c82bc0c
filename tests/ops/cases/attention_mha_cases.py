# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# torch.nn.MultiheadAttention's slow path as the TorchScript exporter writes
# it (torchvision's ViT, opset 17), against onnxruntime running the graph as
# written. Sequence-first: X [N, S, E] -> Transpose(1, 0, 2) -> in_proj
# (MatMul + Add) [S, N, 3E] -> Reshape [S, N, 3, E] -> Unsqueeze(0) ->
# Transpose(3, 1, 2, 0, 4) -> Squeeze -> [3, S, N, E] -> Gather 0/1/2 (Q, K,
# V) -> Reshape [S, N*H, hd] -> Transpose(1, 0, 2) -> Reshape [N, H, S, hd];
# K' as Transpose(0, 1, 3, 2); both operands scaled by sqrt(1/sqrt(hd)),
# computed from Q's shape (Shape -> Slice -> Cast -> Sqrt -> Div -> Cast ->
# Sqrt: folded at load, not initializers); the result Transpose(2, 0, 1, 3) ->
# Reshape [S*N, E] -> Gemm (out_proj) -> Reshape [S, N, E] -> Transpose(1, 0,
# 2). Every Reshape's shape is computed from Shape nodes, as the exporter
# does, and K's head-split value is also read by a Shape node. The batch
# dimension N is free in the graph, so the passes compare two signatures.
#
# "dispatches" bounds how many nodes of each op type may still run a kernel:
# the operand scales go into the Attention node (runtime/passes/
# attention_fusion.h) and with them K's Transpose; the Attention then reads
# Q, K and V where in_proj wrote them and writes [S, N, E] (runtime/passes/
# attention_sequence_first.h), so no Gather or head Transpose runs. Also:
# Q, K and V from three projections, each kernel pinned, head size 160 (the
# exact kernel), S = 197 and batches 1-3, FP32 and FP16.
import copy

import numpy as np
from onnx import TensorProto, helper

def _ints(name, values):
    return helper.make_tensor(name, TensorProto.INT64, [len(values)], values)


class _Builder:
    def __init__(self):
        self.nodes, self.inits, self.count = [], [], 0

    def node(self, op, inputs, **attrs):
        self.count += 1
        out = f"{op.lower()}_{self.count}"
        self.nodes.append(helper.make_node(op, inputs, [out], name=f"/{op}_{self.count}", **attrs))
        return out

    def const(self, values, dtype=TensorProto.INT64, dims=None):
        self.count += 1
        name = f"c_{self.count}"
        self.inits.append(helper.make_tensor(name, dtype, [len(values)] if dims is None else dims, values))
        return name

    def dim(self, value, axis):
        """Dimension `axis` of `value` as a 1-D int64, from its Shape."""
        shape = self.node("Shape", [value])
        return self.node("Gather", [shape, self.const([axis])], axis=0)

    def shape(self, parts):
        """A shape from dims (1-D values) and literal ints."""
        return self.node("Concat", [p if isinstance(p, str) else self.const([p]) for p in parts], axis=0)


def mha_model(n, s, e, h, separate=False, pin=None):
    """The exporter's graph for one block and its inputs. `separate`: Q, K
    and V from three projections of X (each [S, N, E]) instead of one packed
    in_proj. `pin`: the attention kernel pinned on the Softmax
    (kAttentionKernelAttr), which onnxruntime does not take: the model and
    its reference then differ by that attribute alone."""
    hd = e // h
    b = _Builder()
    rng = np.random.default_rng(n * 1000 + s * 10 + e + h)
    w_in = (rng.standard_normal((e, 3 * e)) / np.sqrt(e)).astype(np.float32)
    b_in = (rng.standard_normal(3 * e) * 0.1).astype(np.float32)
    w_out = (rng.standard_normal((e, e)) / np.sqrt(e)).astype(np.float32)
    b_out = (rng.standard_normal(e) * 0.1).astype(np.float32)
    for i in range(3):
        b.inits += [helper.make_tensor(f"w_{i}", TensorProto.FLOAT, [e, e], w_in[:, i * e:(i + 1) * e].ravel()),
                    helper.make_tensor(f"b_{i}", TensorProto.FLOAT, [e], b_in[i * e:(i + 1) * e])]
    b.inits += [helper.make_tensor("w_in", TensorProto.FLOAT, [e, 3 * e], w_in.ravel()),
                helper.make_tensor("b_in", TensorProto.FLOAT, [3 * e], b_in),
                helper.make_tensor("w_out", TensorProto.FLOAT, [e, e], w_out.ravel()),
                helper.make_tensor("b_out", TensorProto.FLOAT, [e], b_out)]
    xt = b.node("Transpose", ["X"], perm=[1, 0, 2])  # [S, N, E]
    seq, batch, emb = b.dim(xt, 0), b.dim(xt, 1), b.dim(xt, 2)
    packed = b.node("Add", ["b_in", b.node("MatMul", [xt, "w_in"])])  # [S, N, 3E]
    split = b.node("Reshape", [packed, b.shape([seq, batch, 3, emb])])  # [S, N, 3, E]
    qkv = b.node("Squeeze", [b.node("Transpose", [b.node("Unsqueeze", [split, b.const([0])])],
                                    perm=[3, 1, 2, 0, 4]), b.const([-2])])  # [3, S, N, E]
    heads = b.node("Mul", [batch, b.const([h])])
    operands = []
    for i in range(3):
        b.inits.append(helper.make_tensor(f"i{i}", TensorProto.INT64, [], [i]))
        if separate:
            x = b.node("Add", [b.node("MatMul", [xt, f"w_{i}"]), f"b_{i}"])
        else:
            x = b.node("Gather", [qkv, f"i{i}"], axis=0)
        flat = b.node("Transpose", [b.node("Reshape", [x, b.shape([-1, heads, hd])])], perm=[1, 0, 2])
        if i == 1:
            b.node("Shape", [flat])  # read for its shape alone
        operands.append(b.node("Reshape", [flat, b.shape([batch, h, -1, hd])]))  # [N, H, S, hd]
    q, k, v = operands
    # sqrt(1 / sqrt(hd)) from Q's shape.
    last = b.node("Slice", [b.node("Shape", [q]), b.const([-1]), b.const([2 ** 62])])
    inv = b.node("Div", [b.const([1.0], TensorProto.FLOAT, []),
                         b.node("Sqrt", [b.node("Cast", [last], to=TensorProto.FLOAT)])])
    root = b.node("Sqrt", [b.node("Cast", [inv], to=TensorProto.FLOAT)])
    qs = b.node("Mul", [q, root])
    kts = b.node("Mul", [b.node("Transpose", [k], perm=[0, 1, 3, 2]), root])
    p = b.node("Softmax", [b.node("MatMul", [qs, kts])], axis=-1)
    softmax = b.nodes[-1]
    y = b.node("Transpose", [b.node("MatMul", [p, v])], perm=[2, 0, 1, 3])  # [S, N, H, hd]
    rows = b.node("Mul", [seq, batch])
    proj = b.node("Gemm", [b.node("Reshape", [y, b.shape([rows, e])]), "w_out", "b_out"], transB=1)
    b.nodes.append(helper.make_node(
        "Transpose", [b.node("Reshape", [proj, b.shape([seq, batch, e])])], ["Y"], perm=[1, 0, 2]))
    graph = helper.make_graph(
        b.nodes, "mha", [helper.make_tensor_value_info("X", TensorProto.FLOAT, ["N", s, e])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["N", s, e])], initializer=b.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    reference = None
    if pin is not None:
        reference = model
        model = copy.deepcopy(reference)
        pinned = next(n for n in model.graph.node if n.name == softmax.name)
        pinned.attribute.append(helper.make_attribute("vkserve_attention_kernel", pin))
    return model, reference, {"X": rng.standard_normal((n, s, e)).astype(np.float32)}


_KERNELS = {"fused": "fused flash-attention", "unfused": "unfused", "coopmat": "coopmat"}


def _case(name, n, s, e, h, fp16=False, separate=False, pin=None):
    """After the passes: no Mul, Gather or head Transpose runs; the two
    Transposes between the batch-first block input and output and the
    sequence-first projections stay."""
    model, reference, inputs = mha_model(n, s, e, h, separate, pin)
    layout = "(sequence-first)" if separate else "(QKV packed, sequence-first)"
    case = {"name": f"attention_mha_{name}", "model": model, "inputs": inputs, "atol": 3e-4,
            "fused_op": "MatMul+Mul+Mul+Softmax+MatMul=Attention" + layout,
            "dispatches": {"Mul": 0, "Gather": 0, "Transpose": 2}}
    if pin is not None:
        case.update({"name": f"{case['name']}_{pin}", "reference_model": reference, "kernel": _KERNELS[pin]})
        if pin == "coopmat":
            case.update({"requires": "cooperative_matrix", "atol": 2e-2, "rtol": 2e-2})
    if fp16:
        case.update({"name": case["name"] + "_fp16", "precision": "FP16", "rtol": 2e-2, "atol": 2e-2})
    return case


def cases():
    for fp16 in (False, True):
        yield _case("vit_s17_b2", 2, 17, 64, 4, fp16)
        yield _case("s197_b3_e96_h2", 3, 197, 96, 2, fp16)
        yield _case("s5_b1_e128_h4", 1, 5, 128, 4, fp16)
        yield _case("separate_s197_b2_e64_h4", 2, 197, 64, 4, fp16, separate=True)
    for pin in ("fused", "unfused", "coopmat"):
        yield _case("s197_b2_e64_h2", 2, 197, 64, 2, pin=pin)
        yield _case("separate_s33_b3_e64_h4", 3, 33, 64, 4, separate=True, pin=pin)
    yield _case("coopmat_s197_b2_e128_h2", 2, 197, 128, 2, fp16=True, pin="coopmat")
    # Head size 160, past the fused kernels: the exact kernel reads the
    # sequence-first operands (packed ones would need the fused kernel, so
    # only separate projections are read in place).
    exact = _case("separate_exact_s19_b2_e320_h2", 2, 19, 320, 2, separate=True)
    exact["kernel"] = "exact"
    yield exact
