# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# The GEMM engine at FP16 precision (ModelOptions::precision): operands
# rounded to fp16, sums in fp32. Each case's reference is the fp64 product
# of the fp32 inputs (numpy), compared with an fp16 error bound: per output,
# |error| <= 2 * 2^-11 * sum_k |a_k * b_k| (both operands rounded, relative
# error 2^-11 each), taken as the case's atol. To prove the rounding really
# happens, the largest error must also reach a quarter of what rounding the
# inputs to fp16 gives in fp64 ("min_max_error"): an fp32 kernel would be far
# closer.
#
# The scalar path (lavapipe in CI) runs every case; the "cm" cases pin the
# tensor-core kernels (VK_NV_cooperative_matrix). On a device without
# cooperative matrices a pinned "cm" plan runs the kernel's scalar emulation
# (same loaders, shared layouts and epilogue): the tiles whose shared memory
# fits lavapipe's 32 KiB run there too; elsewhere the others are refused with
# an error naming the tile, which the case checks (they run on the H100).
import numpy as np
from gemm_case import one_node_model

_RNG = np.random.default_rng(20261125)
_U16 = 2.0 ** -11


def _rand(*shape):
    return _RNG.uniform(-1.0, 1.0, size=shape).astype(np.float32)


def _f16(x):
    return x.astype(np.float16).astype(np.float64)


def _bounds(ref64, ref16, bound):
    """(atol, min_max_error) from the fp64 reference, the fp16-input one and the bound."""
    return float(bound.max()) * 1.05 + 1e-6, 0.25 * float(np.abs(ref16 - ref64).max())


def _model(op, inputs, inits, attrs, plan, names=None):
    return one_node_model(op, inputs, inits, attrs, plan, names, "gemm_fp16")


def _case(name, model, inputs, y64, y16, bound, coopmat):
    atol, min_err = _bounds(y64, y16, bound)
    case = {"name": name, "model": model, "inputs": inputs,
            "expected": [y64.astype(np.float32)], "precision": "FP16",
            "rtol": 0.0, "atol": atol, "min_max_error": min_err}
    if coopmat:
        case["requires"] = "cooperative_matrix"
    return case


def _split(tensors, weights):
    """(graph inputs, initializers): B becomes an initializer with weights."""
    inputs = {k: v for k, v in tensors.items() if not (weights and k == "B")}
    inits = {"B": tensors["B"]} if weights else {}
    return inputs, inits


def matmul(name, m, n, k, plan=None, batch=None, coopmat=False, weights=False):
    """weights: B is an initializer (stored in fp16 at FP16 precision)."""
    a = _rand(*((batch, m, k) if batch else (m, k)))
    b = _rand(k, n)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    y64 = a64 @ b64
    y16 = _f16(a) @ _f16(b)
    bound = 2 * _U16 * (np.abs(a64) @ np.abs(b64))
    inputs, inits = _split({"A": a, "B": b}, weights)
    model = _model("MatMul", inputs, inits, {}, plan, names=["A", "B"])
    return _case(name, model, inputs, y64, y16, bound, coopmat)


def gemm_tb(name, m, n, k, plan=None, coopmat=False, trans_a=False, weights=False):
    """Gemm with transB, alpha 0.5 and a bias row C: Y = 0.5 * op(A) B^T + C
    (op(A) = A^T, A stored [K, M], with trans_a)."""
    a, b, c = _rand(*((k, m) if trans_a else (m, k))), _rand(n, k), _rand(n)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    if trans_a:
        a64 = a64.T
    y64 = 0.5 * (a64 @ b64.T) + c
    y16 = 0.5 * ((_f16(a).T if trans_a else _f16(a)) @ _f16(b).T) + c
    bound = _U16 * (np.abs(a64) @ np.abs(b64).T)
    attrs = {"transB": 1, "alpha": 0.5, **({"transA": 1} if trans_a else {})}
    inputs, inits = _split({"A": a, "B": b, "C": c}, weights)
    model = _model("Gemm", inputs, inits, attrs, plan, names=["A", "B", "C"])
    return _case(name, model, inputs, y64, y16, bound, coopmat)


def _conv64(x, w, bias, pads, stride):
    """NCHW Conv in fp64 by summing the shifted input per kernel tap."""
    n, c, h, wd = x.shape
    co, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    oh = (h + pads[0] + pads[2] - kh) // stride + 1
    ow = (wd + pads[1] + pads[3] - kw) // stride + 1
    y = np.zeros((n, co, oh, ow))
    for dy in range(kh):
        for dx in range(kw):
            patch = xp[:, :, dy:dy + stride * oh:stride, dx:dx + stride * ow:stride]
            y += np.einsum("nchw,oc->nohw", patch, w[:, :, dy, dx])
    return y + bias.reshape(1, co, 1, 1)


def conv(name, x_shape, c_out, kernel, pads, stride=1, plan=None, coopmat=False):
    x = _rand(*x_shape)
    w = _rand(c_out, x_shape[1], kernel, kernel)
    bias = _rand(c_out)
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    y64 = _conv64(x64, w64, bias.astype(np.float64), pads, stride)
    y16 = _conv64(_f16(x), _f16(w), bias.astype(np.float64), pads, stride)
    bound = 2 * _U16 * _conv64(np.abs(x64), np.abs(w64), np.zeros(c_out), pads, stride)
    attrs = {"pads": pads, "strides": [stride, stride]}
    model = _model("Conv", {"X": x}, {"W": w, "B": bias}, attrs, plan)
    return _case(name, model, {"X": x}, y64, y16, bound, coopmat)


def cases():
    # Scalar path (every device): the cost model's pick, pinned tiles with
    # and without split-K, gemv, Gemm's scale and bias, both Conv loaders.
    yield matmul("gemm_fp16_mm_auto", 127, 13, 1000)
    yield matmul("gemm_fp16_mm_64x64_split", 13, 127, 1000, plan="64x64/4")
    yield matmul("gemm_fp16_mm_128x64_vec", 128, 64, 256, plan="128x64")
    yield matmul("gemm_fp16_mm_batch", 7, 13, 127, batch=3, plan="32x32")
    yield matmul("gemm_fp16_gemv", 3, 127, 1000, plan="gemv/4")
    yield gemm_tb("gemm_fp16_gemm_tb", 13, 127, 1000, plan="16x64/2")
    yield gemm_tb("gemm_fp16_gemv_tb", 1, 1000, 127, plan="gemv")
    yield conv("gemm_fp16_conv_3x3", (2, 13, 9, 9), 7, 3, [1, 1, 1, 1], plan="64x32/2")
    yield conv("gemm_fp16_conv_1x1", (1, 64, 8, 8), 32, 1, [0, 0, 0, 0], plan="32x64")
    # Tensor cores: each coopmat tile (both stage counts, 4 and 8
    # subgroups, wide and tall blocks), odd and aligned sizes, split-K,
    # transposed A (MatMul of a transposed input is not expressible; Gemm's
    # transA is) and B, Gemm's epilogue, both Conv loaders (scalar taps and
    # vector pixels); 64-deep steps with two steps' loads in flight.
    for t, cm in (("128x128", True), ("128x128w4", True), ("128x256", True),
                  ("256x128", True), ("64x64", False), ("64x64s1", False),
                  ("64x64k64s1p2", False)):
        yield matmul(f"gemm_fp16_cm{t}_odd", 127, 13, 1000, plan=f"cm{t}", coopmat=cm)
        yield matmul(f"gemm_fp16_cm{t}_aligned", 256, 256, 256, plan=f"cm{t}", coopmat=cm)
        # 63 K steps: past the loop count at which llvmpipe would cut the
        # emulation's loops short.
        yield matmul(f"gemm_fp16_cm{t}_long_k", 40, 13, 2000, plan=f"cm{t}", coopmat=cm)
        yield matmul(f"gemm_fp16_cm{t}_one_step", 40, 13, 24, plan=f"cm{t}", coopmat=cm)
        yield matmul(f"gemm_fp16_cm{t}_split", 13, 127, 1000, plan=f"cm{t}/4", coopmat=cm)
        yield matmul(f"gemm_fp16_cm{t}_batch", 7, 130, 127, batch=3, plan=f"cm{t}", coopmat=cm)
        yield gemm_tb(f"gemm_fp16_cm{t}_gemm_tb", 130, 127, 1000, plan=f"cm{t}/2", coopmat=cm)
        yield gemm_tb(f"gemm_fp16_cm{t}_gemm_ta", 132, 68, 200, plan=f"cm{t}", coopmat=cm,
                      trans_a=True)
        yield gemm_tb(f"gemm_fp16_cm{t}_gemm_ta_odd", 13, 130, 61, plan=f"cm{t}", coopmat=cm,
                      trans_a=True)
        yield conv(f"gemm_fp16_cm{t}_conv_3x3", (2, 13, 9, 9), 7, 3, [1, 1, 1, 1],
                   plan=f"cm{t}", coopmat=cm)
        yield conv(f"gemm_fp16_cm{t}_conv_1x1", (1, 64, 8, 8), 32, 1, [0, 0, 0, 0],
                   plan=f"cm{t}/2", coopmat=cm)
        yield conv(f"gemm_fp16_cm{t}_conv_1x1_odd", (2, 24, 5, 5), 20, 1, [0, 0, 0, 0],
                   plan=f"cm{t}", coopmat=cm)
    yield matmul("gemm_fp16_cm_auto", 512, 512, 512, coopmat=True)
    # Weights (B initializers) stored in fp16: gemv both layouts, scalar
    # tiles (scalar and vector B loads), the emulated / real coopmat tiles.
    yield matmul("gemm_fp16_w_gemv", 3, 127, 1000, plan="gemv/4", weights=True)
    yield matmul("gemm_fp16_w_gemv_vec", 1, 256, 300, plan="gemv", weights=True)
    yield gemm_tb("gemm_fp16_w_gemv_tb", 1, 1000, 127, plan="gemv", weights=True)
    yield gemm_tb("gemm_fp16_w_gemv_tb_vec", 2, 64, 256, plan="gemv/2", weights=True)
    # K long enough for the fp16 GEMV's unrolled steps (4 loads of B along K
    # on the [N, K] path, 8 on the [K, N] one) and a remainder.
    yield gemm_tb("gemm_fp16_w_gemv_tb_long", 1, 40, 1100, plan="gemv", weights=True)
    yield matmul("gemm_fp16_w_gemv_long", 2, 40, 1100, plan="gemv", weights=True)
    yield matmul("gemm_fp16_w_tile", 127, 13, 1000, plan="64x64/2", weights=True)
    yield matmul("gemm_fp16_w_tile_vec", 128, 64, 256, plan="128x64", weights=True)
    yield gemm_tb("gemm_fp16_w_tile_tb", 13, 130, 200, plan="32x64", weights=True)
    yield matmul("gemm_fp16_w_auto", 127, 13, 1000, weights=True)
    yield matmul("gemm_fp16_w_batch_bcast", 7, 13, 64, batch=3, plan="32x32", weights=True)
    for t, cm in (("64x64", False), ("128x256", True)):
        yield matmul(f"gemm_fp16_w_cm{t}_odd", 127, 13, 1000, plan=f"cm{t}", coopmat=cm,
                     weights=True)
        yield matmul(f"gemm_fp16_w_cm{t}_aligned", 256, 256, 256, plan=f"cm{t}/2",
                     coopmat=cm, weights=True)
        yield gemm_tb(f"gemm_fp16_w_cm{t}_tb", 130, 127, 1000, plan=f"cm{t}", coopmat=cm,
                      weights=True)
