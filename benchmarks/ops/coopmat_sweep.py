# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Tensor-core GEMM sweep in one process: ONE float16 model holding a MatMul
# per (shape, pinned plan) -- every tile of shaders/gemm/gemm_coopmat_tiles.def
# with 1, 2 and 4 K splits (vkserve_gemm_plan "cm<tile>/<splits>") -- plus one
# node per shape with no pinned plan (what the cost model picks), all run by
# one `vkserve infer --profile`. A pinned sweep with a process per plan and
# shape (gemm_bench.py --plan) starts hundreds of processes; this starts two
# per setup (`inspect` for the kernels chosen, then `infer`).
#
# The nodes are a real model's: A an fp16 input, B an fp16 initializer (the
# weights, one per [K, N] and shared by that shape's nodes; A is one input per
# [M, K]), fp16 Y. Each Y feeds a ReduceMax whose scalar is a graph output, so
# the Ys are arena intermediates the planner reuses (GPU memory stays at about
# one shape's operands) and nothing large is read back. A profiled run puts a
# timestamp and a barrier around every dispatch, so each node's span is its
# own; its time is its dispatches' (the split-K reduction is a second dispatch
# under the node's name). Nodes of one shape are spread among the other
# shapes' so a node seldom finds its weights in L2 (a model's weights come
# cold). --rounds repeats every node (common-subexpression elimination is
# disabled so the copies stay) and the median is kept.
#
# For the ViT-B/16 shapes the model also holds each tile unsplit and the
# chosen plan with the epilogue the real model fuses (bias, bias + Gelu,
# bias + residual), to price the epilogue; FC1 also with the bias alone and
# with tanh-approximated Gelu, to tell the bias from the erf.
#
# Writes JSON lines: a {"meta": ...} line (device, settings, the driver's
# pipeline statistics: registers per GEMM pipeline), then one line per node
# kind with its shape, plan, kernel and median microseconds, which
# fit_coopmat_cost.py reads.
#
# Usage: python3 benchmarks/ops/coopmat_sweep.py VKSERVE [--matrix-extension nv|khr|auto]
#        [--accumulation FP32|FP16] [--rounds 3] [--warmup SECONDS] [--repeat N]
#        [--quick] [--shapes REGEX] [--tiles A,B] [--splits 1,2,4] [--no-epilogues]
#        [--out DIR] [--jsonl FILE] [--pipeline-cache FILE] [--model-dir DIR]
# --quick shrinks every shape 16-fold per dimension (for lavapipe, where the
# pinned tiles run as their scalar "_emu" emulation); tiles whose shared
# memory the device lacks are left out.
import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time

import numpy as np
from onnx import TensorProto, helper, numpy_helper

import coopmat_table

# name: (M, N, K, epilogues swept besides none, other models with this shape)
SHAPES = {
    "square_4096": (4096, 4096, 4096, (), []),
    "vit_b32_qkv": (6304, 2304, 768, ("bias",), []),
    "vit_b32_proj": (6304, 768, 768, ("bias",), []),
    "vit_b32_fc1": (6304, 3072, 768, ("bias", "bias+gelu", "bias+gelu_tanh"), []),
    "vit_b32_fc2": (6304, 768, 3072, ("bias+residual",), []),
    "bert_b8_qkv": (1024, 768, 768, (), []),
    "bert_b8_ffn1": (1024, 3072, 768, (), ["gpt2_b8_ffn1"]),
    "bert_b8_ffn2": (1024, 768, 3072, (), ["gpt2_b8_ffn2"]),
    "gpt2_b8_qkv": (1024, 2304, 768, (), []),
    "gpt2_b8_lm_head": (1024, 50257, 768, (), []),
}
QUICK_DIVISOR = 16


def chunked_splits(k, splits, bk):
    """The splits SetChunk (gemm_plan.cc) gives a pinned split count."""
    chunk = -(-(-(-k // splits)) // bk) * bk
    return -(-k // chunk)


def device_limits(vkserve):
    """(selected device's name, shared memory bytes, SMs or 0) from `vkserve devices`."""
    text = subprocess.run([vkserve, "devices"], capture_output=True, text=True).stdout
    selected = re.search(r"^selected: \[(\d+)\]", text, re.MULTILINE)
    blocks = re.split(r"^(?=\[\d+\] )", text, flags=re.MULTILINE)
    block = next((b for b in blocks if selected and b.startswith(f"[{selected.group(1)}]")), "")
    name = block.splitlines()[0].split("] ", 1)[1] if block else "unknown"
    shared = re.search(r"shared memory ([\d.]+) KiB", block)
    sms = re.search(r"(\d+) SMs", block)
    return (name, int(float(shared.group(1)) * 1024) if shared else 0,
            int(sms.group(1)) if sms else 0)


def plan_entries(args, tiles):
    """[(shape, plan spec or "", epilogue or "")]: every node kind of one round."""
    entries = []
    for shape, (m, n, k, epilogues, _) in SHAPES.items():
        if args.shapes and not re.search(args.shapes, shape):
            continue
        k = -(-k // QUICK_DIVISOR) if args.quick else k
        for name, tile in tiles.items():
            for splits in args.splits:
                if splits > 1 and chunked_splits(k, splits, tile["bk"]) != splits:
                    continue  # K too short for this split
                entries.append((shape, f"cm{name}/{splits}", ""))
        entries.append((shape, "", ""))
        for epilogue in () if args.no_epilogues else epilogues:
            entries += [(shape, f"cm{name}/1", epilogue) for name in tiles]
            entries.append((shape, "", epilogue))
    return entries


def dims(args, shape):
    m, n, k, _, _ = SHAPES[shape]
    if args.quick:
        m, n, k = (-(-d // QUICK_DIVISOR) for d in (m, n, k))
    return m, n, k


class Graph:
    """The sweep model's graph: shared operands, and one GEMM node at a time."""

    def __init__(self):
        self.rng = np.random.default_rng(1)
        self.inputs, self.inits, self.nodes, self.outputs = {}, {}, [], []

    def input(self, name, shape):
        self.inputs.setdefault(name, helper.make_tensor_value_info(
            name, TensorProto.FLOAT16, list(shape)))
        return name

    def weight(self, name, shape):
        if name not in self.inits:
            values = self.rng.uniform(-1, 1, size=shape).astype(np.float16)
            self.inits[name] = numpy_helper.from_array(values, name)
        return name

    def node(self, op, inputs, output, name, **attrs):
        self.nodes.append(helper.make_node(op, inputs, [output], name=name, **attrs))
        return output

    def gemm(self, node, m, n, k, plan, epilogue):
        """MatMul `node` (A [M, K] by B [K, N]), its epilogue's nodes, and the
        ReduceMax reading it into a scalar graph output."""
        attrs = {"vkserve_gemm_plan": plan} if plan else {}
        y = self.node("MatMul", [self.input(f"A_{m}x{k}", (m, k)),
                                 self.weight(f"B_{k}x{n}", (k, n))], f"{node}_y", node, **attrs)
        if epilogue:
            y = self.node("Add", [y, self.weight(f"bias_{n}", (n,))], f"{node}_b", f"{node}_bias")
        if epilogue.startswith("bias+gelu"):
            tanh = {"approximate": "tanh"} if epilogue.endswith("_tanh") else {}
            y = self.node("Gelu", [y], f"{node}_g", f"{node}_gelu", **tanh)
        elif epilogue == "bias+residual":
            y = self.node("Add", [y, self.input(f"R_{m}x{n}", (m, n))], f"{node}_r",
                          f"{node}_residual")
        out = self.node("ReduceMax", [y], f"{node}_max", f"x{node}", keepdims=0)
        self.outputs.append(helper.make_tensor_value_info(out, TensorProto.FLOAT16, []))

    def model(self):
        graph = helper.make_graph(self.nodes, "coopmat_sweep", list(self.inputs.values()),
                                  self.outputs, initializer=list(self.inits.values()))
        # Opset 20 for Gelu's tanh form; the IR version Debian 12's onnx writes.
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])
        model.ir_version = 8
        return model


def build_model(args, entries):
    """The model and {GEMM node name: entry}: `args.rounds` copies of every
    entry, each round shuffled within a shape and each shape's nodes spread
    evenly over the round (each at its own offset), so a node's predecessor
    is almost never of its shape and its weights come cold, as a model's do."""
    graph, manifest = Graph(), {}
    by_shape = {}
    for entry in entries:
        by_shape.setdefault(entry[0], []).append(entry)
    for r in range(args.rounds):
        placed = []
        for i, nodes in enumerate(by_shape.values()):
            shuffled = random.Random(r * 7919 + i).sample(nodes, len(nodes))
            offset = (i + 0.5 + r) / len(by_shape) % 1
            placed += [((j + offset) / len(nodes), e) for j, e in enumerate(shuffled)]
        for _, entry in sorted(placed, key=lambda p: p[0]):
            node = f"g{len(manifest)}"
            manifest[node] = entry
            graph.gemm(node, *dims(args, entry[0]), entry[1], entry[2])
    return graph.model(), manifest


def model_flags(args):
    # Statistics for both commands: the same pipeline flags, so infer finds
    # inspect's pipelines in the cache.
    flags = ["--precision", "FP16", "--disable-pass", "common-subexpressions",
             "--pipeline-cache", args.pipeline_cache, "--pipeline-statistics"]
    if args.accumulation != "FP32":
        flags += ["--accumulation", args.accumulation]
    if args.matrix_extension != "auto":
        flags += ["--matrix-extension", args.matrix_extension]
    return flags


def run(command, log):
    started = time.monotonic()
    result = subprocess.run(command, capture_output=True, text=True)
    with open(log, "w") as f:
        f.write(" ".join(command) + "\n" + result.stdout + result.stderr)
    if result.returncode != 0:
        sys.exit(f"failed ({log}): {' '.join(command)}\n{result.stderr.strip()[-2000:]}")
    return result.stdout + result.stderr, time.monotonic() - started


def parse_inspect(text):
    """({node: kernel description}, {pipeline "name [spec]": statistics})"""
    kernels, node = {}, None
    for line in text.split("\nstored nodes:")[0].splitlines():
        m = re.match(r"  (\S+)\s+\S+\s+ai\.onnx\s", line)
        if m:
            node = m.group(1)
            continue
        m = re.match(r"\s+kernel: (.*)$", line)
        if m and node:
            kernels[node] = m.group(1).strip()
    pipelines = {}
    for m in re.finditer(r"pipeline (ops/gemm\S*) \[([^\]]*)\]: (.*)", text):
        pipelines[f"{m.group(1)} [{m.group(2)}]"] = m.group(3).strip()
    return kernels, pipelines


def kernel_plan(kernel):
    """(tile, splits, emulated) of a coopmat kernel description, or (None, splits, False)."""
    m = re.match(r"ops/gemm_cm_(\S+?)_\d+x\d+x\d+", kernel)
    splits = re.search(r"K split (\d+) ways", kernel)
    return (m.group(1) if m else None, int(splits.group(1)) if splits else 1,
            "_emu" in kernel.split(",")[0])


def node_samples(profile, manifest, kernels):
    """{entry: [(microseconds, [per dispatch], kernel)] per round} from the
    profile: a node's GPU spans are its dispatches (the split-K reduction the
    second)."""
    spans = {}
    for e in json.load(open(profile)):
        if e.get("cat") == "gpu" and e["name"] in manifest:
            spans.setdefault(e["name"], []).append(e["dur"])
    samples = {}
    for node, entry in manifest.items():
        if node not in spans or node not in kernels:
            sys.exit(f"node {node} {entry}: no GPU span or no kernel in inspect")
        samples.setdefault(entry, []).append((sum(spans[node]), spans[node], kernels[node]))
    return samples


def ran_through(kernels):
    """The extension the kernels ran through, as their names tell ("auto"
    resolved; "none" where only emulations and scalar tiles ran)."""
    plans = [(kernel_plan(k), k.split(",")[0]) for k in kernels.values()]
    if any(name.endswith("_khr") for _, name in plans):
        return "khr"
    return "nv" if any(tile and not emulated for (tile, _, emulated), _ in plans) else "none"


def write_rows(args, meta, entries, samples):
    """The JSON lines (meta first, then a row per entry) and a table of them."""
    with open(args.jsonl, "w") as out:
        out.write(json.dumps({"meta": meta}) + "\n")
        print(f"{'shape':16s} {'plan':16s} {'epilogue':14s} {'kernel':44s} {'us':>9s} "
              f"{'TFLOP/s':>7s}")
        for entry in entries:
            shape, plan, epilogue = entry
            m, n, k = dims(args, shape)
            runs = samples[entry]
            kernel = runs[0][2]
            tile, splits, emulated = kernel_plan(kernel)
            us = statistics.median(r[0] for r in runs)
            row = {"extension": meta["extension"], "accumulation": args.accumulation,
                   "shape": shape, "also": SHAPES[shape][4], "m": m, "n": n, "k": k, "batch": 1,
                   "plan": plan, "epilogue": epilogue, "kernel": kernel, "tile": tile,
                   "splits": splits, "emulated": emulated, "us": round(us, 3),
                   "samples": [round(r[0], 3) for r in runs],
                   "dispatch_us": [r[1] for r in runs]}
            if plan and (tile is None or f"cm{tile}/{splits}" != plan):
                row["mismatch"] = True  # the engine ran another plan than the pin
            out.write(json.dumps(row) + "\n")
            tflops = 2.0 * m * n * k / us / 1e6 if us else 0
            print(f"{shape:16s} {plan or '(chosen)':16s} {epilogue or '-':14s} "
                  f"{kernel[:44]:44s} {us:9.1f} {tflops:7.1f}"
                  f"{'  MISMATCH' if 'mismatch' in row else ''}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("vkserve")
    parser.add_argument("--matrix-extension", default="auto", choices=["auto", "nv", "khr"])
    parser.add_argument("--accumulation", default="FP32", choices=["FP32", "FP16"])
    parser.add_argument("--rounds", type=int, default=3, help="copies of every node")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds of untimed runs")
    parser.add_argument("--repeat", type=int, default=2, help="timed runs; the last is profiled")
    parser.add_argument("--quick", action="store_true", help="every dimension / 16 (lavapipe)")
    parser.add_argument("--shapes", default="", help="regex over the shape names")
    parser.add_argument("--tiles", default="", help="comma list (default: the whole table)")
    parser.add_argument("--splits", default="1,2,4")
    parser.add_argument("--no-epilogues", action="store_true")
    parser.add_argument("--out", default="/tmp/vkserve_coopmat_sweep")
    parser.add_argument("--jsonl", default="", help="default: OUT/sweep-<ext>[-acc16].jsonl")
    parser.add_argument("--pipeline-cache", default="", help="default: OUT/pipelines.bin")
    parser.add_argument("--model-dir", default="", help="where the model goes (default: OUT)")
    args = parser.parse_args()
    args.splits = [int(s) for s in args.splits.split(",")]
    os.makedirs(args.out, exist_ok=True)
    tag = args.matrix_extension + ("-acc16" if args.accumulation == "FP16" else "")
    args.jsonl = args.jsonl or os.path.join(args.out, f"sweep-{tag}.jsonl")
    args.pipeline_cache = args.pipeline_cache or os.path.join(args.out, "pipelines.bin")

    table, _ = coopmat_table.read_table()
    device, shared, sms = device_limits(args.vkserve)
    wanted = [t for t in args.tiles.split(",") if t] or list(table)
    if set(wanted) - set(table):
        sys.exit(f"no such tiles: {sorted(set(wanted) - set(table))}; the table has {list(table)}")
    tiles = {n: table[n] for n in wanted
             if not shared or coopmat_table.shared_bytes(table[n]) <= shared}
    left_out = sorted(set(wanted) - set(tiles))
    if left_out:
        print(f"left out (more shared memory than the device's {shared} bytes): {left_out}")
    entries = plan_entries(args, tiles)
    model, manifest = build_model(args, entries)
    os.makedirs(args.model_dir or args.out, exist_ok=True)
    path = os.path.join(args.model_dir or args.out, f"sweep-{tag}.onnx")
    with open(path, "wb") as f:
        f.write(model.SerializeToString())
    print(f"{device}: {len(entries)} node kinds x {args.rounds} rounds = {len(manifest)} GEMMs")

    flags = model_flags(args)
    text, inspect_s = run([args.vkserve, "inspect", path] + flags,
                          os.path.join(args.out, f"inspect-{tag}.log"))
    kernels, pipelines = parse_inspect(text)
    profile = os.path.join(args.out, f"profile-{tag}.json")
    text, infer_s = run([args.vkserve, "infer", path, "--warmup", str(args.warmup), "--repeat",
                         str(args.repeat), "--profile", profile] + flags,
                        os.path.join(args.out, f"infer-{tag}.log"))
    timing = re.search(r"^timing .*$", text, re.MULTILINE)
    print(f"inspect {inspect_s:.1f} s, infer {infer_s:.1f} s; "
          f"{timing.group(0) if timing else 'no timing line'}")

    samples = node_samples(profile, manifest, kernels)
    meta = {"device": device, "sms": sms, "extension": ran_through(kernels),
            "accumulation": args.accumulation, "quick": args.quick, "rounds": args.rounds,
            "warmup_s": args.warmup, "repeat": args.repeat, "timing": timing and timing.group(0),
            "pipelines": pipelines}
    write_rows(args, meta, entries, samples)
    print(f"wrote {args.jsonl}")


if __name__ == "__main__":
    main()
