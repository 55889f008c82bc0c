# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Attention benchmark: 12 heads of 64 at sequence lengths 128 (BERT), 197
# (ViT-B/16), 512 and 2048, each as a one-node model run by `vkserve infer --repeat N
# --profile`:
#   chosen   the ONNX Attention op (opset 23), [B, 12, S, 64] Q/K/V, running
#            the kernel runtime/kernels/attention/attention_choice.h picks at the shape
#            (the "kernel" column: what `vkserve inspect --json` reports)
#   fused    the same pinned to the fused kernel (runtime/kernels/attention/flash_attention.h)
#            with vkserve_attention_kernel=fused
#   unfused  pinned to the GEMM lowering (runtime/kernels/attention/attention_lowering.h)
#   coopmat  pinned to the tensor-core kernel (runtime/kernels/attention/flash_attention_cm.h;
#            fp16 products, so compare it at FP16; where the device has no
#            cooperative matrices this is its slow scalar emulation);
#            coopmat:<subgroups>x<keys> (e.g. coopmat:2x64) pins one variant of
#            shaders/attention/flash_attention_cm_tiles.def (coopmat:2x64x32 also
#            its query rows per subgroup), and a suffix :shared or :registers
#            where its softmax runs
#   graph    MatMul(Q, K') -> Mul(scale) -> Softmax -> MatMul(., V), as the
#            exporters write it, run with --no-attention-fusion (the GEMM
#            engine and the Softmax op: the earlier runs' "unfused")
# and, with --peers, PyTorch's scaled_dot_product_attention on the same shapes
# in fp32 and fp16 (CUDA graph of 20 launches, after a 0.5 s warmup). Prints
# GPU ms (the node's GPU events, from the profile: not the copy of the
# output to host memory, nor at FP16 the casts of the fp32 inputs and output
# to and from fp16) and TFLOP/s counting
# 4 * B * heads * S^2 * 64 FLOP (causal cases count the full square too).
# The target: fused FP16 >= 40% of the GPU's dense fp16 rate.
#
# "chosen" should be within noise of the fastest pinned kernel. --check also
# prints each kind's largest absolute difference from the fused kernel at
# FP32 on the same inputs (random with infer's fixed seed), the check of a
# kernel on a device where onnxruntime does not run.
#
# Usage: python3 benchmarks/ops/attention_bench.py VKSERVE [NAME_REGEX]
#            [--repeat N] [--warmup SECONDS] [--precision FP32|FP16] [--out DIR]
#            [--kinds chosen,fused,unfused,coopmat,coopmat:2x64,graph] [--check]
#        python3 benchmarks/ops/attention_bench.py --peers [NAME_REGEX]
# Needs python3 with onnx and numpy; --peers needs torch with CUDA.
import argparse
import json
import math
import os
import re
import subprocess
import sys

HEADS, HEAD_SIZE = 12, 64
# name, batch, sequence, causal
SHAPES = [
    ("s128_b1", 1, 128, False),
    ("s128_b8", 8, 128, False),
    ("s197_b32", 32, 197, False),
    ("s512_b1", 1, 512, False),
    ("s512_b8", 8, 512, False),
    ("s2048_b1", 1, 2048, False),
    ("s2048_b1_causal", 1, 2048, True),
]


def flop(batch, seq):
    return 4.0 * batch * HEADS * seq * seq * HEAD_SIZE


def make_model(kind, batch, seq, causal):
    from onnx import TensorProto, helper
    shape = [batch, HEADS, seq, HEAD_SIZE]
    inputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, shape) for n in ("Q", "K", "V")]
    inits = []
    if kind in ("chosen", "fused", "unfused", "coopmat") or kind.startswith("coopmat:"):
        pin = {} if kind == "chosen" else {"vkserve_attention_kernel": kind}
        nodes = [helper.make_node("Attention", ["Q", "K", "V"], ["Y"], is_causal=int(causal), **pin)]
        opset = 23
    else:
        scale = helper.make_tensor("scale", TensorProto.FLOAT, [], [1.0 / math.sqrt(HEAD_SIZE)])
        inits.append(scale)
        nodes = [helper.make_node("Transpose", ["K"], ["Kt"], perm=[0, 1, 3, 2]),
                 helper.make_node("MatMul", ["Q", "Kt"], ["S"]),
                 helper.make_node("Mul", ["S", "scale"], ["Ss"])]
        scores = "Ss"
        if causal:
            import numpy as np
            mask = np.triu(np.full((seq, seq), -np.inf, np.float32), 1)
            inits.append(helper.make_tensor("mask", TensorProto.FLOAT, [seq, seq], mask.ravel()))
            nodes.append(helper.make_node("Add", ["Ss", "mask"], ["Sm"]))
            scores = "Sm"
        nodes += [helper.make_node("Softmax", [scores], ["P"], axis=-1),
                  helper.make_node("MatMul", ["P", "V"], ["Y"])]
        opset = 17
    graph = helper.make_graph(nodes, "attention_bench", inputs,
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
                              initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def kernel_of(vkserve, path, precision):
    """The Attention node's kernel as `vkserve inspect --json` reports it at
    `precision` (up to its reason in parentheses)."""
    result = subprocess.run([vkserve, "inspect", path, "--json", "--precision", precision],
                            capture_output=True, text=True)
    if result.returncode != 0:
        return "?"
    for node in json.loads(result.stdout).get("nodes", []):
        if node.get("kernel"):
            return node["kernel"].split(" (")[0]
    return "-"


def run_vkserve(args):
    os.makedirs(args.out, exist_ok=True)
    kinds = args.kinds.split(",")
    print(f"{'shape':18s} {'kind':12s} {'GPU ms':>10s} {'TFLOP/s':>8s}  kernel ({args.precision})")
    for name, batch, seq, causal in SHAPES:
        if args.filter and not re.search(args.filter, name):
            continue
        for kind in kinds:
            stem = f"{name}_{kind.replace(':', '_')}"
            path = os.path.join(args.out, f"{stem}.onnx")
            with open(path, "wb") as f:
                f.write(make_model(kind, batch, seq, causal).SerializeToString())
            profile = os.path.join(args.out, f"{stem}.trace.json")
            outputs = os.path.join(args.out, f"outputs_{stem}")
            command = [args.vkserve, "infer", path, "--repeat", str(args.repeat),
                       "--output-dir", outputs, "--profile", profile]
            if args.warmup > 0:
                command += ["--warmup", str(args.warmup)]
            if args.precision != "FP32":
                command += ["--precision", args.precision]
            if kind == "graph":  # else the attention fusion makes it one Attention node
                command += ["--no-attention-fusion"]
            result = subprocess.run(command, capture_output=True, text=True)
            if result.returncode != 0:
                print(f"{name:18s} {kind:12s} failed: {result.stderr.strip()[-300:]}", file=sys.stderr)
                continue
            events = json.load(open(profile))
            # The node's own GPU events: not the session's copies of the
            # inputs in and the output out (op_type ""), nor, at FP16, the
            # casts of the fp32 inputs and output it inserts (nodes named
            # _vkserve_fp16/..., runtime/plan/fp16_activations.h): SDPA's fp16
            # timing starts from fp16 tensors (the casts are about 25 us of
            # s128 b8's 46 on an H200).
            us = sum(e["dur"] for e in events
                     if e.get("cat") == "gpu" and e["args"].get("op_type")
                     and not e["name"].startswith("_vkserve_fp16/"))
            kernel = kernel_of(args.vkserve, path, args.precision) if kind != "graph" else "MatMul/Softmax/MatMul"
            error = f"  max abs diff {max_difference(args, name, batch, seq, causal, outputs):.2e}" \
                if args.check else ""
            print(f"{name:18s} {kind:12s} {us / 1e3:10.4f} {flop(batch, seq) / us / 1e6 if us else 0:8.1f}  "
                  f"{kernel}{error}")


def max_difference(args, name, batch, seq, causal, outputs):
    """The largest |Y - Y_ref| of the run that wrote `outputs`, Y_ref from
    the fused kernel at FP32 (run once per shape)."""
    import numpy as np
    reference = os.path.join(args.out, f"outputs_{name}_reference")
    if not os.path.exists(os.path.join(reference, "Y.npy")):
        path = os.path.join(args.out, f"{name}_reference.onnx")
        with open(path, "wb") as f:
            f.write(make_model("fused", batch, seq, causal).SerializeToString())
        subprocess.run([args.vkserve, "infer", path, "--output-dir", reference], check=True,
                       capture_output=True)
    y = np.load(os.path.join(outputs, "Y.npy")).astype(np.float64)
    return float(np.abs(y - np.load(os.path.join(reference, "Y.npy"))).max())


def run_peers(filter_regex):
    import torch
    import torch.nn.functional as F

    # The same warm-up and CUDA-graph timing as the GEMM peers.
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from gemm_peers import time_ms

    print(f"{'shape':18s} {'fp32 ms':>9s} {'TF/s':>6s} {'fp16 ms':>9s} {'TF/s':>6s}  (torch SDPA)")
    for name, batch, seq, causal in SHAPES:
        if filter_regex and not re.search(filter_regex, name):
            continue
        row = []
        for dtype in (torch.float32, torch.float16):
            q, k, v = (torch.randn(batch, HEADS, seq, HEAD_SIZE, device="cuda", dtype=dtype)
                       for _ in range(3))
            ms = time_ms(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal))
            row += [ms, flop(batch, seq) / ms / 1e9]
        print(f"{name:18s} {row[0]:9.4f} {row[1]:6.1f} {row[2]:9.4f} {row[3]:6.1f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("vkserve", nargs="?")
    parser.add_argument("filter", nargs="?", default="")
    parser.add_argument("--peers", action="store_true")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--out", default="/tmp/vkserve_attention_bench")
    parser.add_argument("--warmup", type=float, default=0.0)
    parser.add_argument("--precision", default="FP32", choices=["FP32", "FP16"])
    parser.add_argument("--kinds", default="chosen,fused,unfused,graph")
    parser.add_argument("--check", action="store_true")
    # Options may come before or after the positionals (VKSERVE FILTER).
    args = parser.parse_intermixed_args()
    if args.peers:
        # The first positional is the filter when no vkserve is given.
        run_peers(args.vkserve or args.filter)
        return
    if not args.vkserve:
        parser.error("VKSERVE is required (or --peers)")
    run_vkserve(args)


if __name__ == "__main__":
    main()
