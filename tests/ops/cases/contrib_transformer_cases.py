# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# ONNX Runtime's transformer contrib ops (com.microsoft), which its CPU
# optimizer writes into .ort files, and the ONNX ops vkserve lowers them to:
#
#   FusedMatMul / TransposeMatMul: alpha, transA/transB (1-D operands
#     ignore them), transBatchA/transBatchB, broadcast batches, the GEMV and
#     split-K paths, and a bias Add, activation or residual fused after it;
#   Gelu (ONNX opset 20, none and tanh), Gelu / BiasGelu / FastGelu /
#     QuickGelu (com.microsoft), alone and fused into MatMul/Gemm/Conv;
#   SkipLayerNormalization and SkipSimplifiedLayerNormalization: with and
#     without beta and bias, skip broadcast over the batch, every optional
#     output, after a MatMul whose bias and residual then fuse into it;
#   SimplifiedLayerNormalization (RMSNorm, ONNX domain as ORT registers it).
#
# Shapes are odd where kernels have edges. Expected outputs come from
# onnxruntime (CPU), which runs the contrib ops itself.
import numpy as np
from onnx import TensorProto, helper, numpy_helper

_RNG = np.random.default_rng(20261207)
_MS = "com.microsoft"


def _rand(*shape, lo=-1.0, hi=1.0):
    return _RNG.uniform(lo, hi, size=shape).astype(np.float32)


def _case(name, nodes, feeds, inits=None, outputs=("Y",), opset=17, atol=1e-4, rtol=1e-3):
    """feeds: graph inputs {name: array}; inits: initializers {name: array}."""
    inits = inits or {}
    graph = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(v.shape)) for n, v in feeds.items()],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs],
        initializer=[numpy_helper.from_array(v, n) for n, v in inits.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset),
                                                    helper.make_opsetid(_MS, 1)])
    model.ir_version = 8
    return {"name": name, "model": model, "inputs": feeds, "atol": atol, "rtol": rtol}


def _ms(op, inputs, outputs, **attrs):
    return helper.make_node(op, inputs, outputs, domain=_MS, **attrs)


# ---- FusedMatMul ----

def _fused_matmul(name, a_shape, b_shape, b_init=False, op="FusedMatMul", tail=(), **attrs):
    """tail: nodes after the product, as (op, extra inputs {name: (array, is_init)})."""
    k = max(a_shape[-1], a_shape[0])
    a = _rand(*a_shape)
    b = (_rand(*b_shape) / np.sqrt(k)).astype(np.float32)
    feeds, inits = {"A": a}, {}
    (inits if b_init else feeds)["B"] = b
    nodes = [_ms(op, ["A", "B"], ["Y" if not tail else "mm"], **attrs)]
    cur = "mm"
    for i, (t_op, extra) in enumerate(tail):
        out = "Y" if i == len(tail) - 1 else f"t{i}"
        for n, (v, is_init) in extra.items():
            (inits if is_init else feeds)[n] = v
        domain = _MS if t_op in ("BiasGelu", "FastGelu", "QuickGelu") else ""
        nodes.append(helper.make_node(t_op, [cur, *extra], [out], domain=domain))
        cur = out
    return _case(name, nodes, feeds, inits, atol=float(1e-4 * max(1.0, np.sqrt(k))))


def _fused_matmul_cases():
    yield _fused_matmul("fusedmatmul_plain", (2, 7, 13), (13, 5), b_init=True)
    yield _fused_matmul("fusedmatmul_alpha", (3, 9, 17), (17, 6), alpha=0.37)
    # Attention scores: Q x K^T * 1/sqrt(d), batched over heads.
    yield _fused_matmul("fusedmatmul_scores", (2, 3, 9, 16), (2, 3, 11, 16), transB=1,
                        alpha=0.25)
    yield _fused_matmul("fusedmatmul_trans_a", (13, 7), (13, 5), transA=1)
    yield _fused_matmul("fusedmatmul_trans_ab", (3, 8, 5), (3, 6, 8), transA=1, transB=1,
                        alpha=-0.5)
    yield _fused_matmul("fusedmatmul_trans_b_vec4", (2, 32, 64), (48, 64), b_init=True,
                        transB=1)
    yield _fused_matmul("fusedmatmul_broadcast", (2, 1, 9, 7), (3, 9, 4), transA=1)
    # 1-D operands ignore their transpose flag. (Not with transA and a 1-D B:
    # there onnxruntime's CPU kernel reads A untransposed, where vkserve
    # transposes it as the attribute says.)
    yield _fused_matmul("fusedmatmul_1d_a", (5,), (6, 5), transA=1, transB=1)
    yield _fused_matmul("fusedmatmul_1d_b", (4, 5), (5,), transB=1, alpha=2.0)
    # One row (GEMV) and a long K (split-K), transposed.
    yield _fused_matmul("fusedmatmul_gemv_trans_b", (1, 64), (33, 64), transB=1, alpha=0.5)
    yield _fused_matmul("fusedmatmul_splitk_trans_a", (2000, 8), (2000, 24), transA=1,
                        alpha=0.1)
    # transBatch: A stored [M, b..., K] (or [K, b..., M] with transA).
    yield _fused_matmul("fusedmatmul_trans_batch_a", (4, 3, 2, 5), (3, 2, 5, 6), transBatchA=1)
    yield _fused_matmul("fusedmatmul_trans_batch_b", (3, 2, 4, 5), (5, 3, 2, 6), transBatchB=1,
                        alpha=0.75)
    yield _fused_matmul("fusedmatmul_trans_batch_both", (5, 3, 2, 4), (6, 3, 2, 5),
                        transBatchA=1, transA=1, transBatchB=1, transB=1)
    yield _fused_matmul("fusedmatmul_trans_batch_a_rank3", (7, 3, 5), (3, 5, 4), transBatchA=1,
                        alpha=1.5)
    yield _fused_matmul("fusedmatmul_transpose_matmul", (6, 9), (4, 6), op="TransposeMatMul",
                        transA=1, transB=1)
    # What fuses after it: bias Add, activation, residual Add.
    yield _fused_matmul("fusedmatmul_bias_relu", (2, 11, 24), (40, 24), b_init=True, transB=1,
                        alpha=0.5, tail=[("Add", {"bias": (_rand(40), True)}), ("Relu", {})])
    yield _fused_matmul("fusedmatmul_residual", (3, 7, 16), (16, 12), alpha=0.3,
                        tail=[("Add", {"R": (_rand(3, 7, 12), False)})])


# ---- Gelu family ----

def _unary(name, op, x, domain="", opset=17, **attrs):
    node = helper.make_node(op, ["X"], ["Y"], domain=domain, **attrs)
    return _case(name, [node], {"X": x}, opset=opset, atol=2e-5, rtol=1e-4)


def _gelu_cases():
    x = _rand(3, 37, lo=-6.0, hi=6.0)
    yield _unary("gelu_opset20", "Gelu", x, opset=20)
    yield _unary("gelu_opset20_none", "Gelu", _rand(5, 8, lo=-4.0, hi=4.0), opset=20,
                 approximate="none")
    yield _unary("gelu_opset20_tanh", "Gelu", x, opset=20, approximate="tanh")
    yield _unary("gelu_contrib", "Gelu", _rand(2, 3, 17, lo=-5.0, hi=5.0), domain=_MS)
    yield _unary("gelu_quick", "QuickGelu", x, domain=_MS)
    yield _unary("gelu_quick_alpha", "QuickGelu", _rand(7, 9, lo=-8.0, hi=8.0), domain=_MS,
                 alpha=1.0)
    yield _unary("gelu_quick_negative_alpha", "QuickGelu", _rand(129), domain=_MS, alpha=-0.6)
    # Extremes: large magnitudes saturate without NaN.
    big = np.array([-90.0, -30.0, -10.0, -1e-3, 0.0, 1e-3, 10.0, 30.0, 90.0], np.float32)
    yield _unary("gelu_opset20_tanh_extremes", "Gelu", big, opset=20, approximate="tanh")
    yield _unary("gelu_contrib_extremes", "Gelu", big, domain=_MS)
    yield _unary("gelu_quick_extremes", "QuickGelu", big, domain=_MS)

    a, bias = _rand(2, 5, 33, lo=-3.0, hi=3.0), _rand(33)
    yield _case("gelu_bias", [_ms("BiasGelu", ["A", "bias"], ["Y"])], {"A": a},
                {"bias": bias}, atol=2e-5)
    yield _case("gelu_bias_input", [_ms("BiasGelu", ["A", "bias"], ["Y"])],
                {"A": a, "bias": bias}, atol=2e-5)
    yield _case("gelu_fast_bias", [_ms("FastGelu", ["A", "bias"], ["Y"])], {"A": a},
                {"bias": bias}, atol=2e-5)
    yield _case("gelu_fast", [_ms("FastGelu", ["A"], ["Y"])], {"A": a}, atol=2e-5)
    yield _case("gelu_fast_omitted_bias", [_ms("FastGelu", ["A", ""], ["Y"])],
                {"A": _rand(4, 7)}, atol=2e-5)


def _fused_gelu_cases():
    """Each activation after a MatMul (with its bias) or Gemm or Conv, where it fuses."""
    def matmul(name, act_nodes, extra_inits, k=24, n=20):
        a = _rand(2, 9, k)
        w = (_rand(k, n) / np.sqrt(k)).astype(np.float32)
        nodes = [helper.make_node("MatMul", ["A", "W"], ["mm"])] + act_nodes
        return _case(name, nodes, {"A": a}, {"W": w, **extra_inits}, opset=20, atol=1e-4)

    bias = _rand(20)
    yield matmul("gelu_fused_matmul_biasgelu", [_ms("BiasGelu", ["mm", "bias"], ["Y"])],
                 {"bias": bias})
    yield matmul("gelu_fused_matmul_fastgelu", [_ms("FastGelu", ["mm", "bias"], ["Y"])],
                 {"bias": bias})
    yield matmul("gelu_fused_matmul_add_gelu_tanh",
                 [helper.make_node("Add", ["mm", "bias"], ["t"]),
                  helper.make_node("Gelu", ["t"], ["Y"], approximate="tanh")], {"bias": bias})
    yield matmul("gelu_fused_matmul_quickgelu", [_ms("QuickGelu", ["mm"], ["Y"], alpha=1.3)],
                 {})
    yield matmul("gelu_fused_matmul_gelu_contrib_vec4",
                 [_ms("Gelu", ["mm"], ["Y"])], {}, k=32, n=64)
    # Gelu then a residual Add, both in the MatMul's store.
    a = _rand(3, 5, 16)
    w = (_rand(16, 16) / 4.0).astype(np.float32)
    yield _case("gelu_fused_matmul_gelu_residual",
                [helper.make_node("MatMul", ["A", "W"], ["mm"]),
                 helper.make_node("Gelu", ["mm"], ["g"]),
                 helper.make_node("Add", ["g", "A"], ["Y"])],
                {"A": a}, {"W": w}, opset=20)
    # FusedMatMul -> BiasGelu: the whole BERT FFN up-projection in one kernel.
    yield _case("gelu_fused_fusedmatmul_biasgelu",
                [_ms("FusedMatMul", ["A", "W"], ["mm"], transB=1, alpha=0.8),
                 _ms("BiasGelu", ["mm", "bias"], ["Y"])],
                {"A": a}, {"W": _rand(24, 16), "bias": _rand(24)}, atol=4e-4)
    x = _rand(5, 12)
    yield _case("gelu_fused_gemm_quickgelu",
                [helper.make_node("Gemm", ["X", "W", "C"], ["g"], transB=1),
                 _ms("QuickGelu", ["g"], ["Y"])],
                {"X": x}, {"W": _rand(7, 12), "C": _rand(7)})
    img = _rand(1, 4, 6, 6)
    yield _case("gelu_fused_conv_gelu",
                [helper.make_node("Conv", ["X", "W", "B"], ["c"], pads=[1, 1, 1, 1]),
                 helper.make_node("Gelu", ["c"], ["Y"])],
                {"X": img}, {"W": _rand(8, 4, 3, 3), "B": _rand(8)}, opset=20, atol=2e-4)


# ---- SkipLayerNormalization, SkipSimplifiedLayerNormalization ----

def _skip_ln(name, x_shape, skip_shape=None, beta=True, bias=False, outputs=("Y",),
             simplified=False, offset=0.0, atol=2e-5, **attrs):
    """outputs: the node's outputs in order (output, mean, inv_std_var, sum), "" for omitted."""
    h = x_shape[-1]
    x = (_rand(*x_shape, lo=-2.0, hi=2.0) + offset).astype(np.float32)
    skip = _rand(*(skip_shape or x_shape))
    inits = {"gamma": _rand(h, lo=0.5, hi=1.5)}
    inputs = ["X", "skip", "gamma"]
    if not simplified:
        if beta:
            inits["beta"] = _rand(h)
        inputs.append("beta" if beta else "")
    if bias:
        inits["bias"] = _rand(h)
        inputs.append("bias")
    while inputs[-1] == "":
        inputs.pop()
    op = "SkipSimplifiedLayerNormalization" if simplified else "SkipLayerNormalization"
    node = _ms(op, inputs, list(outputs), **attrs)
    return _case(name, [node], {"X": x, "skip": skip}, inits, outputs=[o for o in outputs if o],
                 atol=atol, rtol=1e-4)


_ALL = ("Y", "mean", "inv_std", "sum")


def _skip_ln_cases():
    yield _skip_ln("skiplayernorm", (2, 7, 32))
    yield _skip_ln("skiplayernorm_bias", (2, 5, 13), bias=True)
    yield _skip_ln("skiplayernorm_no_beta", (3, 9, 20), beta=False)
    yield _skip_ln("skiplayernorm_no_beta_bias", (1, 4, 17), beta=False, bias=True)
    yield _skip_ln("skiplayernorm_rank2", (11, 24), bias=True)
    yield _skip_ln("skiplayernorm_skip_2d", (3, 5, 16), skip_shape=(5, 16), bias=True)
    yield _skip_ln("skiplayernorm_skip_batch1", (3, 5, 12), skip_shape=(1, 5, 12))
    yield _skip_ln("skiplayernorm_all_outputs", (2, 3, 40), bias=True, outputs=_ALL)
    yield _skip_ln("skiplayernorm_sum_only", (2, 3, 9), bias=True, outputs=("Y", "", "", "sum"))
    yield _skip_ln("skiplayernorm_stats", (2, 6, 8), outputs=("Y", "mean", "inv_std"))
    yield _skip_ln("skiplayernorm_epsilon", (2, 5, 31), epsilon=1e-2, outputs=_ALL)
    yield _skip_ln("skiplayernorm_bert", (1, 33, 768), bias=True, epsilon=1e-12, atol=5e-5)
    yield _skip_ln("skipsimplified", (2, 7, 32), simplified=True)
    yield _skip_ln("skipsimplified_bias", (2, 5, 13), simplified=True, bias=True)
    yield _skip_ln("skipsimplified_outputs", (3, 4, 21), simplified=True, bias=True,
                   outputs=("Y", "", "inv_std", "sum"))
    yield _skip_ln("skipsimplified_skip_2d", (2, 6, 64), skip_shape=(6, 64), simplified=True,
                   epsilon=1e-6)
    yield _skip_ln("skipsimplified_offset", (2, 3, 50), simplified=True, offset=3.0)

    # BERT's attention output: MatMul -> SkipLayerNormalization(bias), where
    # the bias and the skip then fuse into the MatMul.
    for simplified in (False, True):
        h = 24
        a, skip = _rand(2, 9, 16), _rand(2, 9, h)
        inits = {"W": (_rand(16, h) / 4.0).astype(np.float32), "gamma": _rand(h, lo=0.5, hi=1.5),
                 "beta": _rand(h), "bias": _rand(h)}
        if simplified:
            del inits["beta"]
            node = _ms("SkipSimplifiedLayerNormalization", ["mm", "skip", "gamma", "bias"],
                       ["Y", "", "", "sum"])
        else:
            node = _ms("SkipLayerNormalization", ["mm", "skip", "gamma", "beta", "bias"],
                       ["Y", "", "", "sum"])
        yield _case("skiplayernorm_after_matmul" + ("_simplified" if simplified else ""),
                    [helper.make_node("MatMul", ["A", "W"], ["mm"]), node],
                    {"A": a, "skip": skip}, inits, outputs=("Y", "sum"), atol=5e-5)


# ---- SimplifiedLayerNormalization (RMSNorm) ----

def _rms(name, x, axis=-1, op="SimplifiedLayerNormalization", outputs=("Y",), opset=17,
         atol=2e-5, **attrs):
    a = axis % x.ndim
    node = helper.make_node(op, ["X", "scale"], list(outputs), axis=axis, **attrs)
    return _case(name, [node], {"X": x}, {"scale": _rand(*x.shape[a:], lo=0.5, hi=1.5)},
                 outputs=[o for o in outputs if o], opset=opset, atol=atol, rtol=1e-4)


def _rms_cases():
    yield _rms("simplifiedlayernorm", _rand(2, 7, 32))
    yield _rms("simplifiedlayernorm_odd", _rand(3, 13, lo=-3.0, hi=3.0), epsilon=1e-6)
    yield _rms("simplifiedlayernorm_inv_std", _rand(4, 5, 9), outputs=("Y", "inv_std"))
    yield _rms("simplifiedlayernorm_axis1", _rand(3, 4, 5), axis=1, outputs=("Y", "inv_std"))
    yield _rms("simplifiedlayernorm_llama", _rand(1, 9, 1024), epsilon=1e-6, atol=5e-5)
    yield _rms("simplifiedlayernorm_streamed", _rand(2, 40000), atol=5e-5)
    yield _rms("simplifiedlayernorm_many_rows", _rand(1001, 20), outputs=("Y", "inv_std"))
    yield _rms("simplifiedlayernorm_opset13", _rand(2, 3, 16), opset=13)
    yield _rms("rmsnormalization_opset23", _rand(2, 5, 24), op="RMSNormalization", opset=23)
    yield _rms("rmsnormalization_axis0", _rand(3, 7), axis=0, op="RMSNormalization", opset=23,
               epsilon=1e-3)


def cases():
    yield from _fused_matmul_cases()
    yield from _gelu_cases()
    yield from _fused_gelu_cases()
    yield from _skip_ln_cases()
    yield from _rms_cases()
