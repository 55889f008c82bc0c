# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# ResNet-50's distinct convolutions (torchvision's layout, NCHW, bias and
# Relu fused as in the model) at one batch size, as ONE model of independent
# Conv+Relu nodes, each with its own input: a single profiled `vkserve infer`
# times them all, so a sweep of pinned plans costs one run per plan, not one
# per shape and plan. Prints each node's GPU time and TFLOP/s (the profile's
# per-dispatch timestamps add a little to each) and the weighted total: each
# shape counted as often as resnet50 runs it.
#
# Usage: python3 benchmarks/ops/resnet_convs.py VKSERVE [--batch 32]
#        [--plan SPEC]... [--float16] [--warmup S] [--repeat N] [--out DIR]
#        [--only REGEX] [--conv-layout AUTO|NCHW|NHWC]
# Each --plan (the vkserve_gemm_plan attribute: "cm64x64", "cm128x256/2")
# pins every node's kernel for one run; "auto" is the cost model's choice.
# --conv-layout NHWC runs the channels-last pass (each Conv then reads and
# writes NHWC between two Transposes, which the per-Conv times leave out;
# the 3-channel stem stays NCHW): the A/B of the two layouts' Conv times.
# Without it, vkserve's default (AUTO) applies: on tensor cores each Conv
# wider than 1x1 runs NHWC, and each 1x1 one (its own chain here) NCHW.
import argparse
import json
import os
import re
import subprocess

import numpy as np
from onnx import TensorProto, helper, numpy_helper

# C_in, H (input), C_out, kernel, stride, times resnet50 runs it.
SHAPES = [
    (3, 224, 64, 7, 2, 1),
    (64, 56, 64, 1, 1, 1),
    (64, 56, 64, 3, 1, 3),
    (64, 56, 256, 1, 1, 4),
    (256, 56, 64, 1, 1, 2),
    (256, 56, 128, 1, 1, 1),
    (128, 56, 128, 3, 2, 1),
    (256, 56, 512, 1, 2, 1),
    (128, 28, 512, 1, 1, 4),
    (512, 28, 128, 1, 1, 3),
    (128, 28, 128, 3, 1, 3),
    (512, 28, 256, 1, 1, 1),
    (256, 28, 256, 3, 2, 1),
    (512, 28, 1024, 1, 2, 1),
    (256, 14, 1024, 1, 1, 6),
    (1024, 14, 256, 1, 1, 5),
    (256, 14, 256, 3, 1, 5),
    (1024, 14, 512, 1, 1, 1),
    (512, 14, 512, 3, 2, 1),
    (1024, 14, 2048, 1, 2, 1),
    (512, 7, 2048, 1, 1, 3),
    (2048, 7, 512, 1, 1, 2),
    (512, 7, 512, 3, 1, 2),
]


def name_of(c_in, h, c_out, kernel, stride):
    return f"c{kernel}x{kernel}_{c_in}_{c_out}_h{h}" + (f"_s{stride}" if stride > 1 else "")


def out_size(h, kernel, stride):
    return (h + 2 * (kernel // 2) - kernel) // stride + 1


def make_model(batch, plan, float16, shapes):
    elem = TensorProto.FLOAT16 if float16 else TensorProto.FLOAT
    dtype = np.float16 if float16 else np.float32
    rng = np.random.default_rng(0)
    nodes, inputs, outputs, inits = [], [], [], []
    for c_in, h, c_out, kernel, stride, _ in shapes:
        n = name_of(c_in, h, c_out, kernel, stride)
        w = (rng.standard_normal((c_out, c_in, kernel, kernel)) / np.sqrt(c_in * kernel * kernel))
        inits += [numpy_helper.from_array(w.astype(dtype), n + "_w"),
                  numpy_helper.from_array((rng.standard_normal(c_out) * 0.1).astype(dtype), n + "_b")]
        attrs = {"vkserve_gemm_plan": plan} if plan != "auto" else {}
        nodes.append(helper.make_node("Conv", [n + "_x", n + "_w", n + "_b"], [n + "_c"], name=n,
                                      pads=[kernel // 2] * 4, strides=[stride] * 2, **attrs))
        nodes.append(helper.make_node("Relu", [n + "_c"], [n + "_y"], name=n + "_relu"))
        inputs.append(helper.make_tensor_value_info(n + "_x", elem, [batch, c_in, h, h]))
        outputs.append(helper.make_tensor_value_info(n + "_y", elem, None))
    graph = helper.make_graph(nodes, "resnet_convs", inputs, outputs, initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("vkserve")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--plan", action="append", default=[])
    parser.add_argument("--float16", action="store_true")
    parser.add_argument("--precision", default="", choices=["", "FP32", "FP16"])
    # Each run is a new process after a pause: the clocks need seconds at
    # this load (a first run after a pause can measure 2x slower).
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--out", default="/tmp/vkserve_resnet_convs")
    parser.add_argument("--only", default="", help="the shapes whose names match")
    parser.add_argument("--conv-layout", default="", choices=["", "AUTO", "NCHW", "NHWC"])
    args = parser.parse_args()
    shapes = [s for s in SHAPES if re.search(args.only, name_of(*s[:5]))]
    os.makedirs(args.out, exist_ok=True)
    for plan in args.plan or ["auto"]:
        path = os.path.join(args.out, plan.replace("/", "_") + ".onnx")
        with open(path, "wb") as f:
            f.write(make_model(args.batch, plan, args.float16, shapes).SerializeToString())
        profile = path + ".trace.json"
        command = [args.vkserve, "infer", path, "--repeat", str(args.repeat), "--warmup",
                   str(args.warmup), "--profile", profile, "--output-dir", os.path.join(args.out, "y")]
        if args.precision:
            command += ["--precision", args.precision]
        if args.conv_layout:
            command += ["--conv-layout", args.conv_layout]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            print(f"plan {plan}: failed: {result.stderr.strip()[-300:]}")
            continue
        us = {}
        for e in json.load(open(profile)):
            if e.get("cat") == "gpu" and e["args"].get("op_type", "").startswith("Conv"):
                us[e["name"]] = us.get(e["name"], 0.0) + e["dur"]
        total = 0.0
        print(f"plan {plan}")
        for c_in, h, c_out, kernel, stride, times in shapes:
            n = name_of(c_in, h, c_out, kernel, stride)
            t = us.get(n)
            if t is None:
                print(f"  {n:24s} no GPU event")
                continue
            o = out_size(h, kernel, stride)
            flop = 2.0 * args.batch * o * o * c_out * c_in * kernel * kernel
            total += t * times
            print(f"  {n:24s} {t:9.1f} us {flop / t / 1e6:7.1f} TFLOP/s")
        print(f"  {'weighted total':24s} {total:9.1f} us")


if __name__ == "__main__":
    main()
