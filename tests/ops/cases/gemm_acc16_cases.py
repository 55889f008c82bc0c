# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# FP16 accumulation (ModelOptions::accumulation, FP16 precision): MatMul and
# Conv pinned to the tensor-core tiles' "_f16_acc16" variants, fp16 sums over
# K. FP16 precision keeps activations in fp16, so the GEMMs read fp16
# tensors and their outputs are rounded to fp16 too. The 64x64 tiles fit
# lavapipe's shared memory, so there they run the scalar emulation (a
# float16_t running sum rounded after every product: more roundings than
# the tensor cores make, one per 16-deep matrix step) and on a device with
# fp16-result cooperative matrices the tensor cores; "kernel" proves the
# fp16-accumulating variant ran on either.
#
# Reference: the fp64 product of the fp32 inputs. Tolerance: each rounding
# of a running sum s_i errs by at most u |s_i| (u = 2^-11); the errors are
# zero-mean and independent, so the total's standard deviation is at most
# u sqrt(sum_i s_i^2) over the partial sums in the kernel's K order (per K
# split: each split sums its chunk from zero, the reduction adds in fp32).
# Adding the operands' rounding (2u |a_k b_k| each) and the fp16 output's
# (u |y|) in quadrature gives sigma per output; atol is 5 times the largest
# sigma. The deterministic bound u sum_i |s_i| is some 20x looser and would
# pass a kernel that skipped a whole K step; this one does not (a missing
# 32-deep step errs ~10x atol on the K = 1000 case).
#
# Proof that the sums really were fp16: on the long-K cases the largest
# error must reach twice what fp32 sums of the same fp16 operands, rounded
# to an fp16 output, give ("min_max_error"); with per-16-step rounding the
# tensor cores err about 4x that, the emulation about 16x.
import numpy as np
from gemm_case import one_node_model

_RNG = np.random.default_rng(20261208)
_U16 = 2.0 ** -11
_SIGMAS = 5.0


def _rand(*shape, scale=1.0):
    return (_RNG.uniform(-1.0, 1.0, size=shape) * scale).astype(np.float32)


def _f16(x):
    return x.astype(np.float16).astype(np.float64)


def _tolerance(products, y64, chunk):
    """(atol, min_max_error) from the fp16 operands' products [..., K] in the
    kernel's K order, the fp64 outputs and the K chunk per split."""
    k = products.shape[-1]
    partial_sq = np.zeros(products.shape[:-1])
    for k0 in range(0, k, chunk):
        partial_sq += (np.cumsum(products[..., k0:k0 + chunk], axis=-1) ** 2).sum(-1)
    operands_sq = (2 * np.abs(products)) ** 2
    sigma = _U16 * np.sqrt(partial_sq + operands_sq.sum(-1) + y64 ** 2)
    fp32_sums = _f16(products.sum(-1))  # fp32 (here exact) sums, fp16 output
    return _SIGMAS * float(sigma.max()), 2.0 * float(np.abs(fp32_sums - y64).max())


def _model(op, inputs, inits, attrs, plan, names=None):
    return one_node_model(op, inputs, inits, attrs, plan, names, "gemm_acc16")


def _case(name, model, inputs, y64, atol, min_err, kernel):
    case = {"name": name, "model": model, "inputs": inputs,
            "expected": [y64.astype(np.float32)], "precision": "FP16",
            "accumulation": "FP16", "rtol": 0.0, "atol": atol, "kernel": kernel}
    if min_err is not None:
        case["min_max_error"] = min_err
    return case


def _chunk(k, plan):
    """K per split of a pinned plan "cm<tile>[/<splits>]" (BK = 32): SetChunk's."""
    splits = int(plan.split("/")[1]) if "/" in plan else 1
    return -(-(-(-k // splits)) // 32) * 32


def matmul(name, m, n, k, plan, prove=False):
    a, b = _rand(m, k), _rand(k, n, scale=1.0 / np.sqrt(k))
    y64 = a.astype(np.float64) @ b.astype(np.float64)
    products = _f16(a)[:, None, :] * _f16(b).T[None, :, :]
    atol, min_err = _tolerance(products, y64, _chunk(k, plan))
    model = _model("MatMul", {"A": a, "B": b}, {}, {}, plan, ["A", "B"])
    tile = plan.split("/")[0][2:]
    return _case(name, model, {"A": a, "B": b}, y64, atol, min_err if prove else None,
                 f"ops/gemm_cm_{tile}_16x16x16_f16_acc16")


def conv(name, x_shape, c_out, kernel, pad, plan):
    """Conv with bias, stride 1: products in im2col's K order (channel, ky, kx).
    No min_max_error: K of a few hundred leaves fp16 sums too close to fp32
    ones for a margin that holds on the tensor cores."""
    n, c, h, w = x_shape
    x = _rand(*x_shape)
    wt = _rand(c_out, c, kernel, kernel, scale=1.0 / np.sqrt(c * kernel * kernel))
    bias = _rand(c_out)
    xp = np.pad(_f16(x), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = h + 2 * pad - kernel + 1, w + 2 * pad - kernel + 1
    # cols[k, (image, oy, ox)] with k = (channel, ky, kx).
    cols = np.stack([xp[:, ci, ky:ky + oh, kx:kx + ow].reshape(-1)
                     for ci in range(c) for ky in range(kernel) for kx in range(kernel)])
    products = _f16(wt).reshape(c_out, -1)[:, None, :] * cols.T[None, :, :]
    x64 = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    cols64 = np.stack([x64[:, ci, ky:ky + oh, kx:kx + ow].reshape(-1)
                       for ci in range(c) for ky in range(kernel) for kx in range(kernel)])
    y_flat = wt.astype(np.float64).reshape(c_out, -1) @ cols64  # [c_out, n * oh * ow]
    y64 = (y_flat.reshape(c_out, n, oh, ow).transpose(1, 0, 2, 3) +
           bias.astype(np.float64).reshape(1, c_out, 1, 1))
    y_bias = y_flat + bias.astype(np.float64)[:, None]  # what the fp16 output rounds
    atol, _ = _tolerance(products, y_bias, _chunk(c * kernel * kernel, plan))
    model = _model("Conv", {"X": x}, {"W": wt, "Bc": bias}, {"pads": [pad] * 4}, plan,
                   ["X", "W", "Bc"])
    tile = plan.split("/")[0][2:]
    return _case(name, model, {"X": x}, y64, atol, None,
                 f"ops/gemm_cm_{tile}_16x16x16_im2col_f16_acc16")


def cases():
    # Long K (the error grows with it), aligned and odd sizes, both stage
    # counts, a K split (fp16 chunk sums, fp32 reduction). K stays within
    # what lavapipe's loop limit lets the emulation run (some 60 steps of 32).
    yield matmul("gemm_acc16_cm64x64_mm_k1000", 96, 80, 1000, "cm64x64", prove=True)
    yield matmul("gemm_acc16_cm64x64s1_mm_odd", 37, 45, 1200, "cm64x64s1", prove=True)
    yield matmul("gemm_acc16_cm64x64k64s1p2_mm_odd", 37, 45, 1200, "cm64x64k64s1p2", prove=True)
    yield matmul("gemm_acc16_cm64x64_mm_split", 70, 64, 1024, "cm64x64/4")
    # Conv through both loaders: a 3x3 window (im2col taps) and a 1x1
    # (pointwise pixels).
    yield conv("gemm_acc16_cm64x64_conv_3x3", (2, 64, 9, 9), 32, 3, 1, "cm64x64")
    yield conv("gemm_acc16_cm64x64s1_conv_1x1", (1, 128, 8, 8), 48, 1, 0, "cm64x64s1")
