# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# GELU written out in elementary ops (runtime/passes/gelu_fusion.h) and Reshapes
# between a GEMM and its epilogue (runtime/passes/reshape_sinking.h), against
# onnxruntime running the same graphs unfused. Each case demands the node
# the fusions must leave ("fused_op"): the exact and tanh forms in the
# exporters' operand orders, after MatMul(+bias) and Gemm, standalone, and
# behind the dynamo exporter's [B*S, N] -> [B, S, N] view; and patterns that
# must stay unfused (a wrong constant, an intermediate read elsewhere), where
# the demanded node is the untouched Erf or Tanh.
import numpy as np
from onnx import TensorProto, helper

_RNG = np.random.default_rng(20261125)
_SQRT2 = float(np.sqrt(2.0))
_K = float(np.sqrt(2.0 / np.pi))


def _rand(*shape, scale=1.0):
    return (_RNG.standard_normal(shape) * scale).astype(np.float32)


def _scalar(name, value, dtype=TensorProto.FLOAT):
    return helper.make_tensor(name, dtype, [], [value])


def _case(name, nodes, inputs, inits, fused_op, outputs=("Y",)):
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(a.shape)) for n, a in inputs.items()],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs],
        initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return {"name": f"gelu_fusion_{name}", "model": model, "inputs": inputs, "atol": 2e-4,
            "fused_op": fused_op}


def _erf_gelu(x, out, order, divide=True):
    """x * 0.5 * (1 + erf(x / sqrt(2))) in one of the exporters' orders:
    "x_then_half" ((x * b) * 0.5, TorchScript), "half_x_first" (b * (x * 0.5))
    or "half_then_x" ((b * 0.5) * x)."""
    nodes = [helper.make_node("Div", [x, "sqrt2"], [f"{out}_d"]) if divide else
             helper.make_node("Mul", ["inv_sqrt2", x], [f"{out}_d"]),
             helper.make_node("Erf", [f"{out}_d"], [f"{out}_e"]),
             helper.make_node("Add", ["one", f"{out}_e"], [f"{out}_b"])]
    if order == "x_then_half":
        nodes += [helper.make_node("Mul", [x, f"{out}_b"], [f"{out}_m"]),
                  helper.make_node("Mul", [f"{out}_m", "half"], [out])]
    elif order == "half_x_first":
        nodes.insert(0, helper.make_node("Mul", [x, "half"], [f"{out}_h"]))
        nodes += [helper.make_node("Mul", [f"{out}_b", f"{out}_h"], [out])]
    else:
        nodes += [helper.make_node("Mul", [f"{out}_b", "half"], [f"{out}_m"]),
                  helper.make_node("Mul", [x, f"{out}_m"], [out])]
    return nodes


def _tanh_gelu(x, out, cube="pow", c=_K):
    """0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))), as GPT-2's
    dynamo export writes it (x * 0.5 first)."""
    nodes = [helper.make_node("Mul", [x, "half"], [f"{out}_h"])]
    if cube == "pow":
        nodes.append(helper.make_node("Pow", [x, "three"], [f"{out}_c"]))
    else:
        nodes += [helper.make_node("Mul", [x, x], [f"{out}_sq"]),
                  helper.make_node("Mul", [f"{out}_sq", x], [f"{out}_c"])]
    nodes += [helper.make_node("Mul", ["cubic", f"{out}_c"], [f"{out}_t"]),
              helper.make_node("Add", [x, f"{out}_t"], [f"{out}_s"]),
              helper.make_node("Mul", [f"{out}_s", "k"], [f"{out}_a"]),
              helper.make_node("Tanh", [f"{out}_a"], [f"{out}_th"]),
              helper.make_node("Add", [f"{out}_th", "one"], [f"{out}_b"]),
              helper.make_node("Mul", [f"{out}_h", f"{out}_b"], [out])]
    return nodes


def _constants(k=_K, sqrt2=_SQRT2):
    return [_scalar("sqrt2", sqrt2), _scalar("inv_sqrt2", 1.0 / _SQRT2), _scalar("one", 1.0),
            _scalar("half", 0.5), _scalar("three", 3.0), _scalar("cubic", 0.044715), _scalar("k", k)]


def cases():
    x = _rand(2, 5, 16)
    w = helper.make_tensor("W", TensorProto.FLOAT, [16, 24], _rand(16, 24, scale=0.5).ravel())
    bias = helper.make_tensor("bias", TensorProto.FLOAT, [24], _rand(24).ravel())
    # BERT's intermediate layer: MatMul + bias, exact GELU.
    nodes = [helper.make_node("MatMul", ["X", "W"], ["mm"]),
             helper.make_node("Add", ["mm", "bias"], ["xb"])] + _erf_gelu("xb", "Y", "x_then_half")
    yield _case("bert_erf", nodes, {"X": x}, _constants() + [w, bias], "MatMul+Add+Gelu")
    nodes = [helper.make_node("MatMul", ["X", "W"], ["mm"])] + _erf_gelu("mm", "Y", "half_x_first", False)
    yield _case("erf_mul_half_first", nodes, {"X": x}, _constants() + [w], "MatMul+Gelu")
    yield _case("erf_standalone", _erf_gelu("X", "Y", "half_then_x"), {"X": x}, _constants(),
                "Div+Erf+Add+Mul+Mul=Gelu")
    yield _case("tanh_standalone_mulcube", _tanh_gelu("X", "Y", cube="mul"), {"X": x}, _constants(),
                "Mul+Mul+Mul+Mul+Add+Mul+Tanh+Add+Mul=Gelu")
    yield from _gpt2_cases()
    yield _two_views_case()
    # Must not fuse: a constant off by 1e-3, and an intermediate that is also
    # a graph output. Both still compute the unfused graph exactly.
    yield _case("tanh_wrong_constant", _tanh_gelu("X", "Y", c=_K * 1.001), {"X": x},
                _constants(k=_K * 1.001), "Tanh")
    yield _case("erf_shared_intermediate", _erf_gelu("X", "Y", "x_then_half"), {"X": x}, _constants(),
                "Erf", outputs=("Y", "Y_e"))


def _gpt2_cases():
    """GPT-2's MLP as the dynamo exporter writes it: a 2-D Gemm on [B*S, E],
    its output viewed as [B, S, N] (Reshape with allowzero=1) before the
    tanh GELU, and the projection's view before the residual Add."""
    b, s, e, n = 2, 3, 16, 24
    x = _rand(b * s, e)
    resid_in = _rand(b, s, n)
    inits = _constants() + [
        helper.make_tensor("W1", TensorProto.FLOAT, [e, n], _rand(e, n, scale=0.5).ravel()),
        helper.make_tensor("c1", TensorProto.FLOAT, [n], _rand(n).ravel()),
        helper.make_tensor("W2", TensorProto.FLOAT, [n, n], _rand(n, n, scale=0.3).ravel()),
        helper.make_tensor("view", TensorProto.INT64, [3], [b, s, n]),
        helper.make_tensor("flat", TensorProto.INT64, [2], [-1, n])]
    mlp = [helper.make_node("Gemm", ["X", "W1", "c1"], ["fc"]),
           helper.make_node("Reshape", ["fc", "view"], ["fc3"], allowzero=1)] + _tanh_gelu("fc3", "Y")
    yield _case("gpt2_gemm_view_tanh", mlp, {"X": x}, inits, "Gemm+Gelu")
    # The residual stream R is computed before the projection, as in GPT-2.
    proj = [helper.make_node("Relu", ["R_in"], ["R"]),
            helper.make_node("Reshape", ["R", "flat"], ["R2"]),
            helper.make_node("Gemm", ["R2", "W2"], ["pr"]),
            helper.make_node("Reshape", ["pr", "view"], ["pr3"], allowzero=1),
            helper.make_node("Add", ["R", "pr3"], ["Y"])]
    yield _case("gpt2_gemm_view_residual", proj, {"R_in": resid_in}, inits, "Gemm+Add")


def _two_views_case():
    """Add(Reshape(Gemm1), Reshape(Gemm2)): only the second view moves below
    the Add, with the first (computed before the second Gemm) as its
    residual; the result is unchanged."""
    b, s, e, n = 2, 3, 8, 12
    inits = [helper.make_tensor("Wa", TensorProto.FLOAT, [e, n], _rand(e, n).ravel()),
             helper.make_tensor("Wb", TensorProto.FLOAT, [e, n], _rand(e, n).ravel()),
             helper.make_tensor("view", TensorProto.INT64, [3], [b, s, n])]
    nodes = [helper.make_node("Gemm", ["X", "Wa"], ["ga"]),
             helper.make_node("Reshape", ["ga", "view"], ["va"]),
             helper.make_node("Gemm", ["X", "Wb"], ["gb"]),
             helper.make_node("Reshape", ["gb", "view"], ["vb"]),
             helper.make_node("Add", ["va", "vb"], ["Y"])]
    return _case("two_views_into_one_add", nodes, {"X": _rand(b * s, e)}, inits, "Gemm+Add")
