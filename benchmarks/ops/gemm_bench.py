# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# GEMM benchmark: MatMul/Gemm shapes of BERT-base, GPT-2 decoding, CNN
# classifier heads and square sizes, each as a one-node model run by
# `vkserve infer --repeat N --profile`; prints the kernel's GPU time (its
# dispatches only, from the profile's timestamps, split-K pass included) and
# its TFLOP/s (--plan pins the kernel to compare tiles).
#
# Usage: python3 benchmarks/ops/gemm_bench.py VKSERVE [NAME_REGEX] [--repeat N]
#        [--out DIR] [--warmup SECONDS] [--precision FP32|FP16]
#        [--accumulation FP32|FP16] [--plan SPEC] [--weights] [--float16] [--statistics]
# --warmup runs each shape untimed first (GPU clocks ramp only under load);
# --precision FP16 runs the GEMMs with fp16 operands (tensor cores where the
# device has them); --accumulation FP16 (with --precision FP16) sums in fp16
# where the tensor cores offer it (`vkserve infer --accumulation`); --plan pins
# the engine's kernel ("cm128x256", "64x64/2":
# the vkserve_gemm_plan attribute, runtime/kernels/gemm/gemm_plan.h) to sweep tiles.
# --weights makes B a constant initializer (random values), as a model's
# weights are: at FP16 it is then stored in fp16 on the GPU. --float16 makes
# a model stored in float16 (A, B and Y fp16, fp32 sums; tensor cores at any
# precision): the same operand bytes as cuBLAS fp16 in gemm_peers.py.
# --statistics prints each GEMM pipeline's compile statistics as the driver
# reports them (`vkserve infer --pipeline-statistics`: registers, spills).
# gemm_peers.py times cuBLAS on the same SHAPES.
# Needs python3 with onnx and numpy (Debian: python3-onnx python3-numpy).
import argparse
import json
import os
import re
import subprocess
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

# name, op, batch, M, N, K, transB (Gemm: B stored [N, K])
SHAPES = [
    ("square_1024", "MatMul", 1, 1024, 1024, 1024, False),
    ("square_2048", "MatMul", 1, 2048, 2048, 2048, False),
    ("square_4096", "MatMul", 1, 4096, 4096, 4096, False),
    ("square_2048_tb", "Gemm", 1, 2048, 2048, 2048, True),
    # ResNet-50 b32 convolutions as plain products (A the weights): the
    # tensor-core core without the im2col loader (resnet_convs.py).
    ("r50_3x3_64_as_gemm", "MatMul", 1, 64, 100352, 576, False),
    ("r50_1x1_1024_512_as_gemm", "MatMul", 1, 512, 6272, 1024, False),
    ("bert_b1_qkv", "MatMul", 1, 128, 768, 768, False),
    ("bert_b1_ffn1", "MatMul", 1, 128, 3072, 768, False),
    ("bert_b1_ffn2", "MatMul", 1, 128, 768, 3072, False),
    ("bert_b8_qkv", "MatMul", 1, 1024, 768, 768, False),
    ("bert_b8_ffn1", "MatMul", 1, 1024, 3072, 768, False),
    ("bert_b8_ffn2", "MatMul", 1, 1024, 768, 3072, False),
    ("attn_b1_scores", "MatMul", 12, 128, 128, 64, False),
    ("attn_b1_context", "MatMul", 12, 128, 64, 128, False),
    ("attn_b8_scores", "MatMul", 96, 128, 128, 64, False),
    ("attn_b8_context", "MatMul", 96, 128, 64, 128, False),
    ("gpt2_b8_qkv", "MatMul", 1, 1024, 2304, 768, False),
    ("gpt2_b8_lm_head", "MatMul", 1, 1024, 50257, 768, False),
    ("gpt2_decode_qkv", "MatMul", 1, 1, 2304, 768, False),
    ("gpt2_decode_ffn2", "MatMul", 1, 1, 768, 3072, False),
    ("head_b1", "Gemm", 1, 1, 1000, 2048, True),
    ("head_b8", "Gemm", 1, 8, 1000, 2048, True),
    ("head_b32", "Gemm", 1, 32, 1000, 2048, True),
    ("skinny_16", "MatMul", 1, 16, 3072, 768, False),
    ("gemv_4096", "MatMul", 1, 1, 4096, 4096, False),
]


def make_model(op, a_shape, b_shape, trans_b, plan=None, weights=False, float16=False):
    elem = TensorProto.FLOAT16 if float16 else TensorProto.FLOAT
    inputs = [helper.make_tensor_value_info("A", elem, list(a_shape))]
    inits = []
    if weights:
        b = np.random.default_rng(1).uniform(-1, 1, size=b_shape)
        b = b.astype(np.float16 if float16 else np.float32)
        inits.append(numpy_helper.from_array(b, "B"))
    else:
        inputs.append(helper.make_tensor_value_info("B", elem, list(b_shape)))
    attrs = {"transB": 1} if trans_b else {}
    if plan:
        attrs["vkserve_gemm_plan"] = plan
    node = helper.make_node(op, ["A", "B"], ["Y"], **attrs)
    graph = helper.make_graph([node], "gemm_bench", inputs,
                              [helper.make_tensor_value_info("Y", elem, None)],
                              initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("vkserve")
    parser.add_argument("filter", nargs="?", default="")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--out", default="/tmp/vkserve_gemm_bench")
    parser.add_argument("--warmup", type=float, default=0.0)
    parser.add_argument("--precision", default="FP32", choices=["FP32", "FP16"])
    parser.add_argument("--accumulation", default="FP32", choices=["FP32", "FP16"])
    parser.add_argument("--plan", default="")
    parser.add_argument("--weights", action="store_true")
    parser.add_argument("--float16", action="store_true")
    parser.add_argument("--matrix-extension", default="auto", choices=["auto", "nv", "khr"],
                        help="vkserve's --matrix-extension: khr runs the _khr tensor-core kernels")
    parser.add_argument("--statistics", action="store_true",
                        help="print the driver's compile statistics of each GEMM pipeline")
    # Options may come before or after the positionals (VKSERVE FILTER).
    args = parser.parse_intermixed_args()
    os.makedirs(args.out, exist_ok=True)
    print(f"{'shape':18s} {'M x N x K x batch':>22s} {'kernel ms':>10s} {'TFLOP/s':>8s}")
    for name, op, batch, m, n, k, trans_b in SHAPES:
        if args.filter and not re.search(args.filter, name):
            continue
        a_shape = (batch, m, k) if batch > 1 else (m, k)
        b_shape = (batch, k, n) if batch > 1 else ((n, k) if trans_b else (k, n))
        path = os.path.join(args.out, name + ".onnx")
        with open(path, "wb") as f:
            f.write(make_model(op, a_shape, b_shape, trans_b, args.plan,
                               args.weights, args.float16).SerializeToString())
        profile = os.path.join(args.out, name + ".trace.json")
        command = [args.vkserve, "infer", path, "--repeat", str(args.repeat),
                   "--output-dir", os.path.join(args.out, "outputs"), "--profile", profile]
        if args.warmup > 0:
            command += ["--warmup", str(args.warmup)]
        if args.precision != "FP32":
            command += ["--precision", args.precision]
        if args.accumulation != "FP32":
            command += ["--accumulation", args.accumulation]
        if args.statistics:
            command += ["--pipeline-statistics"]
        if args.matrix_extension != "auto":
            command += ["--matrix-extension", args.matrix_extension]
        result = subprocess.run(command, capture_output=True, text=True)
        if args.statistics:
            for line in (result.stdout + result.stderr).splitlines():
                if "pipeline ops/gem" in line:
                    print("   ", line[line.index("pipeline "):][:400])
        if result.returncode != 0:
            print(f"{name:18s} failed: {result.stderr.strip()[-300:]}", file=sys.stderr)
            continue
        events = json.load(open(profile))
        us = sum(e["dur"] for e in events
                 if e.get("cat") == "gpu" and e["args"].get("op_type") in ("MatMul", "Gemm"))
        flop = 2.0 * batch * m * n * k
        dims = f"{m}x{n}x{k}x{batch}"
        print(f"{name:18s} {dims:>22s} {us / 1e3:10.4f} {flop / us / 1e6 if us else 0:8.1f}")


if __name__ == "__main__":
    main()
