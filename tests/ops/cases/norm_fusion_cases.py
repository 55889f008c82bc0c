# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# LayerNorm and RMSNorm written out in elementary ops (runtime/
# norm_fusion.h), against onnxruntime running the same graphs unfused:
# the TorchScript exporter's LayerNorm at opset 13 (axes attribute) and 18
# (axes input), with the square as Pow or d * d, with and without scale and
# bias; LLaMA-style RMSNorm with Reciprocal, 1 / x and a plain Div, with and
# without a weight. Each demands the fused node ("fused_op"); two must stay
# unfused (a mean over another axis, a centred value read elsewhere), where
# the demanded node is the untouched Sqrt.
import numpy as np
from onnx import TensorProto, helper

_RNG = np.random.default_rng(20261127)


def _scalar(name, value):
    return helper.make_tensor(name, TensorProto.FLOAT, [], [value])


def _mean(src, out, opset, axis=-1):
    if opset >= 18:
        return helper.make_node("ReduceMean", [src, "mean_axes" if axis == -1 else "other_axes"], [out])
    return helper.make_node("ReduceMean", [src], [out], axes=[axis])


def _case(name, nodes, x, inits, fused_op, opset, outputs=("Y",)):
    inits = inits + [helper.make_tensor("mean_axes", TensorProto.INT64, [1], [-1]),
                     helper.make_tensor("other_axes", TensorProto.INT64, [1], [1]),
                     helper.make_tensor("two", TensorProto.FLOAT, [], [2.0]),
                     _scalar("eps", 1e-5), _scalar("one", 1.0)]
    used = {i for n in nodes for i in n.input}
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("X", TensorProto.FLOAT, list(x.shape))],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs],
        initializer=[t for t in inits if t.name in used])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return {"name": f"norm_fusion_{name}", "model": model, "inputs": {"X": x}, "atol": 1e-4,
            "fused_op": fused_op}


def _layer_norm(opset, square="pow", affine=True, mean_axis=-1, leak=False):
    nodes = [_mean("X", "mu", opset), helper.make_node("Sub", ["X", "mu"], ["d"]),
             helper.make_node("Pow", ["d", "two"], ["d2"]) if square == "pow" else
             helper.make_node("Mul", ["d", "d"], ["d2"]),
             _mean("d2", "var", opset, mean_axis), helper.make_node("Add", ["var", "eps"], ["ve"]),
             helper.make_node("Sqrt", ["ve"], ["sd"]), helper.make_node("Div", ["d", "sd"], ["n" if affine else "Y"])]
    if affine:
        nodes += [helper.make_node("Mul", ["n", "gamma"], ["g"]), helper.make_node("Add", ["g", "beta"], ["Y"])]
    return nodes


def _rms(form, weight=True):
    nodes = [helper.make_node("Pow", ["X", "two"], ["x2"]), _mean("x2", "ms", 13),
             helper.make_node("Add", ["ms", "eps"], ["me"]), helper.make_node("Sqrt", ["me"], ["rt"])]
    out = "n" if weight else "Y"
    if form == "reciprocal":
        nodes += [helper.make_node("Reciprocal", ["rt"], ["inv"]), helper.make_node("Mul", ["X", "inv"], [out])]
    elif form == "one_over":
        nodes += [helper.make_node("Div", ["one", "rt"], ["inv"]), helper.make_node("Mul", ["inv", "X"], [out])]
    else:
        nodes += [helper.make_node("Div", ["X", "rt"], [out])]
    if weight:
        nodes.append(helper.make_node("Mul", ["gamma", "n"], ["Y"]))
    return nodes


def cases():
    d = 96
    x = (_RNG.standard_normal((2, 7, d)) * 3 + 1).astype(np.float32)
    inits = [helper.make_tensor("gamma", TensorProto.FLOAT, [d], _RNG.standard_normal(d).astype(np.float32)),
             helper.make_tensor("beta", TensorProto.FLOAT, [d], _RNG.standard_normal(d).astype(np.float32))]
    ln = "ReduceMean+Sub+Pow+ReduceMean+Add+Sqrt+Div+Mul+Add=LayerNormalization"
    yield _case("layernorm_opset13", _layer_norm(13), x, inits, ln, 13)
    yield _case("layernorm_opset18", _layer_norm(18), x, inits, ln, 18)
    yield _case("layernorm_mul_square_plain", _layer_norm(13, square="mul", affine=False), x, inits,
                "ReduceMean+Sub+Mul+ReduceMean+Add+Sqrt+Div=LayerNormalization", 13)
    yield _case("rms_reciprocal", _rms("reciprocal"), x, inits,
                "Pow+ReduceMean+Add+Sqrt+Reciprocal+Mul+Mul=RMSNorm", 13)
    yield _case("rms_one_over", _rms("one_over"), x, inits, "Pow+ReduceMean+Add+Sqrt+Div+Mul+Mul=RMSNorm", 13)
    yield _case("rms_div_no_weight", _rms("div", weight=False), x, inits,
                "Pow+ReduceMean+Add+Sqrt+Div=RMSNorm", 13)
    # Must not fuse.
    yield _case("layernorm_variance_other_axis", _layer_norm(18, mean_axis=1), x, inits, "Sqrt", 18)
    yield _case("layernorm_centred_read_elsewhere", _layer_norm(13), x, inits, "Sqrt", 13, outputs=("Y", "d"))
