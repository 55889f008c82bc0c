# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Conv benchmark: ResNet-50 / MobileNet-V2 convolution shapes at batch 1 and
# 32, each as a one-node model run by `vkserve infer --warmup S --repeat N`;
# prints the median GPU ms and TFLOP/s. Run two binaries on one machine to
# compare GEMM engine builds.
#
# Usage: python3 benchmarks/ops/conv_bench.py VKSERVE [NAME_REGEX] [--warmup S]
#        [--precision FP32|FP16] [--out DIR] [--plan SPEC]
# --plan pins the GEMM engine's kernel ("cm64x64/2", "64x64": the
# vkserve_gemm_plan attribute, runtime/kernels/gemm/gemm_plan.h) to sweep tiles.
import argparse
import os
import re
import subprocess

import numpy as np
from onnx import TensorProto, helper, numpy_helper

# name, batch, C_in, H, C_out, kernel, stride
SHAPES = [
    ("r50_conv1", 1, 3, 224, 64, 7, 2),
    ("r50_3x3_64", 1, 64, 56, 64, 3, 1),
    ("r50_1x1_256_64", 1, 256, 56, 64, 1, 1),
    ("r50_3x3_256", 1, 256, 14, 256, 3, 1),
    ("r50_1x1_1024_256", 1, 1024, 14, 256, 1, 1),
    ("r50_3x3_512", 1, 512, 7, 512, 3, 1),
    ("r50_b32_3x3_64", 32, 64, 56, 64, 3, 1),
    ("r50_b32_1x1_256_64", 32, 256, 56, 64, 1, 1),
    ("r50_b32_3x3_256", 32, 256, 14, 256, 3, 1),
    ("r50_b32_1x1_1024_256", 32, 1024, 14, 256, 1, 1),
    ("mv2_b32_1x1_96_24", 32, 96, 56, 24, 1, 1),
]


def make_model(batch, c_in, h, c_out, kernel, stride, plan=None):
    pad = kernel // 2
    w = (np.random.default_rng(0).standard_normal((c_out, c_in, kernel, kernel)) * 0.05).astype(np.float32)
    attrs = {"vkserve_gemm_plan": plan} if plan else {}
    node = helper.make_node("Conv", ["X", "W"], ["Y"], pads=[pad] * 4, strides=[stride] * 2, **attrs)
    graph = helper.make_graph(
        [node], "conv_bench",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [batch, c_in, h, h])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
        initializer=[numpy_helper.from_array(w, "W")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("vkserve")
    parser.add_argument("filter", nargs="?", default="")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--warmup", type=float, default=1.0)
    parser.add_argument("--precision", default="FP32", choices=["FP32", "FP16"])
    parser.add_argument("--out", default="/tmp/vkserve_conv_bench")
    parser.add_argument("--plan", default="")
    # Options may come before or after the positionals (VKSERVE FILTER).
    args = parser.parse_intermixed_args()
    os.makedirs(args.out, exist_ok=True)
    print(f"{'shape':22s} {'gpu ms':>9s} {'TFLOP/s':>8s}")
    for name, batch, c_in, h, c_out, kernel, stride in SHAPES:
        if args.filter and not re.search(args.filter, name):
            continue
        path = os.path.join(args.out, name + ".onnx")
        with open(path, "wb") as f:
            f.write(make_model(batch, c_in, h, c_out, kernel, stride, args.plan).SerializeToString())
        command = [args.vkserve, "infer", path, "--repeat", str(args.repeat),
                   "--warmup", str(args.warmup)]
        if args.precision != "FP32":
            command += ["--precision", args.precision]
        result = subprocess.run(command, capture_output=True, text=True)
        match = re.search(r"gpu ([0-9.]+)", result.stdout)
        if result.returncode != 0 or not match:
            print(f"{name:22s} failed: {result.stderr.strip()[-300:]}")
            continue
        ms = float(match.group(1))
        out_hw = (h + 2 * (kernel // 2) - kernel) // stride + 1
        flop = 2.0 * batch * c_out * out_hw * out_hw * c_in * kernel * kernel
        print(f"{name:22s} {ms:9.4f} {flop / ms / 1e9:8.1f}")


if __name__ == "__main__":
    main()
